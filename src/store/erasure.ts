/**
 * @module
 * Erasing submissions: one, or up to {@linkcode ERASE_BATCH} in one commit, each with
 * everything that points to it (payload chunks, review notice, idempotency record and its
 * pointer, index keys). Every key read is checked, so a notifier or reviewer writing
 * meanwhile makes it read again and retry. Which submissions to erase is review/'s
 * business (review/retention.ts).
 */

import {
  decidedIndexKey,
  dueKey,
  emailIndexKey,
  idempotencyPointerKey,
  newNoticeKey,
  payloadKey,
  timeIndexKey,
} from "./keys.ts";
import { findLegacyIdempotency } from "./migrations.ts";
import { getOutboxEntry } from "./outbox.ts";
import { retryLocked } from "./retry_locked.ts";
import {
  getSubmission,
  type IdempotencyRecord,
  type SubmissionKind,
  type SubmissionRecord,
} from "./submissions.ts";

/** What {@linkcode eraseSubmission} removed. */
export interface Erased {
  request_id: string;
  kind: SubmissionKind;
  created_at: string;
  /** How many keys the one commit deleted. */
  keys: number;
}

/**
 * Erases a submission in one commit: its record, its payload chunks, its outbox entry
 * and due key, and the idempotency record that would replay it with its pointer. Returns
 * null when there is no such submission.
 */
export async function eraseSubmission(
  kv: Deno.Kv,
  id: string,
  now: number = Date.now(),
): Promise<Erased | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const plan = await _erasePlan(kv, id, now);
    if (!plan) return null;
    const op = kv.atomic();
    _addPlan(op, plan);
    if ((await retryLocked(() => op.commit())).ok) return plan.erased;
  }
  throw new Error(`${id} kept changing while it was being erased`);
}

/**
 * Submissions erased together, per commit, by {@linkcode eraseSubmissions}: each adds at
 * most three checks and about a dozen deletions, well inside KV's limits of 100 checks and
 * 1,000 mutations a commit.
 */
export const ERASE_BATCH = 25;

/**
 * Erases up to {@linkcode ERASE_BATCH} submissions in one commit, each with everything
 * that points to it, as {@linkcode eraseSubmission} would; when anything read changed
 * meanwhile, each is erased on its own instead. Fewer, larger commits are what keeps a
 * large purge quick and small (docs/performance.md, "Cost as the store grows"). Those
 * already gone are left out.
 */
export async function eraseSubmissions(
  kv: Deno.Kv,
  ids: readonly string[],
  now: number = Date.now(),
): Promise<Erased[]> {
  const unique = new Set(ids);
  if (unique.size > ERASE_BATCH) throw new RangeError(`at most ${ERASE_BATCH} a commit`);
  const plans: ErasePlan[] = [];
  for (const id of unique) {
    const plan = await _erasePlan(kv, id, now);
    if (plan) plans.push(plan);
  }
  const op = kv.atomic();
  for (const plan of plans) _addPlan(op, plan);
  // A failed check, or a commit KV refuses (a limit): each on its own then.
  const together = plans.length > 0 &&
    await retryLocked(() => op.commit()).then((r) => r.ok, () => false);
  if (together) return plans.map((p) => p.erased);
  const erased: Erased[] = [];
  for (const { erased: { request_id } } of plans) {
    const done = await eraseSubmission(kv, request_id, now);
    if (done) erased.push(done);
  }
  return erased;
}

interface ErasePlan {
  checks: Deno.AtomicCheck[];
  keys: Deno.KvKey[];
  erased: Erased;
}

function _addPlan(op: Deno.AtomicOperation, plan: ErasePlan): void {
  for (const check of plan.checks) op.check(check);
  for (const key of plan.keys) op.delete(key);
}

/** What erasing `id` reads, checks and deletes; null when there is no such submission. */
async function _erasePlan(kv: Deno.Kv, id: string, now: number): Promise<ErasePlan | null> {
  const record = await getSubmission(kv, id);
  if (!record.value) return null;
  const outbox = await getOutboxEntry(kv, id);
  const idem = await _idempotencyOf(kv, record.value, now);
  const checks: Deno.AtomicCheck[] = [record, outbox];
  const keys: Deno.KvKey[] = [record.key];
  for (let n = 0; n < record.value.payload.chunks; n++) keys.push(payloadKey(id, n));
  if (outbox.value) keys.push(outbox.key, dueKey(outbox.value));
  if (idem?.value?.request_id === id) {
    checks.push(idem);
    keys.push(idem.key);
  }
  if (record.value.idempotent) keys.push(idempotencyPointerKey(id));
  keys.push(timeIndexKey(Date.parse(record.value.created_at), id));
  if (outbox.value?.attempts === 0) keys.push(newNoticeKey(outbox.value.next_attempt_at, id));
  const decided = record.value.decision?.decided_at;
  if (decided) keys.push(decidedIndexKey(Date.parse(decided), id));
  if (record.value.email_hash) keys.push(emailIndexKey(record.value.email_hash, id));
  const { kind, created_at } = record.value;
  return { checks, keys, erased: { request_id: id, kind, created_at, keys: keys.length } };
}

/**
 * The idempotency entry that replays a submission, through its pointer key; for a record
 * stored before submissions said whether they had one, the search of migrations.ts.
 */
async function _idempotencyOf(
  kv: Deno.Kv,
  record: SubmissionRecord,
  now: number,
): Promise<Deno.KvEntryMaybe<IdempotencyRecord> | null> {
  if (record.idempotent === undefined) return await findLegacyIdempotency(kv, record, now);
  if (!record.idempotent) return null;
  const pointer = await retryLocked(() =>
    kv.get<Deno.KvKey>(idempotencyPointerKey(record.request_id))
  );
  const key = pointer.value;
  return key ? await retryLocked(() => kv.get<IdempotencyRecord>(key)) : null;
}
