/**
 * @module
 * Erasing submissions: one, or up to {@linkcode ERASE_BATCH} at once, each with
 * everything that points to it (payload chunks, review notice, idempotency records and
 * their pointer, index keys). Every key read is checked, so a notifier or reviewer writing
 * meanwhile makes it read again and retry. Which submissions to erase is review/'s
 * business (review/retention.ts).
 */

import type { Atomic, Kv } from "./store.ts";
import {
  decidedIndexKey,
  dueKey,
  emailIndexKey,
  idempotencyPointerKey,
  newNoticeKey,
  payloadKey,
  timeIndexKey,
} from "./keys.ts";
import { isStoreUnavailable } from "./deadline.ts";
import { KV_LIMITS } from "./limits.ts";
import { getOutboxEntry } from "./outbox.ts";
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
 * Which submissions an erasure may take, judged on the record it reads and checks in its
 * commit: a purge of pending ones leaves one decided meanwhile alone.
 */
export type EraseOnly = (record: SubmissionRecord) => boolean;

/**
 * Erases a submission in one commit: its record, its payload chunks, its outbox entry
 * and due key, and the idempotency records that would replay it with their pointer. `extra`
 * joins that commit (a staff action's audit entry). Returns null when there is no such
 * submission, or when `only` refuses it.
 */
export async function eraseSubmission(
  kv: Kv,
  id: string,
  extra?: (op: Atomic) => void,
  only?: EraseOnly,
): Promise<Erased | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const plan = await _erasePlan(kv, id, only);
    if (!plan) return null;
    const op = kv.atomic();
    _addPlan(op, plan);
    extra?.(op);
    if ((await op.commit()).ok) return plan.erased;
  }
  throw new Error(`${id} kept changing while it was being erased`);
}

/**
 * Submissions erased together by {@linkcode eraseSubmissions}: read at once, and committed
 * in as few commits as KV's limits allow (limits.ts). Each adds two to four checks (its
 * record, its notice, its idempotency records: the same request's for 10 minutes, an
 * `Idempotency-Key`'s for 24 h) and about a dozen deletions, so a commit holds two to five
 * of them under denokv's 10 checks, and the commits go out together.
 */
export const ERASE_BATCH = 25;

/**
 * Erases up to {@linkcode ERASE_BATCH} submissions, each with everything that points to it,
 * as {@linkcode eraseSubmission} would. What each reads is read for all at once; the
 * deletions go out in commits of at most 10 checks, all at once; when anything a commit
 * read changed meanwhile, each of its submissions is erased on its own instead. Fewer,
 * larger commits and no read waiting on another submission's are what keep a large purge
 * quick and small (docs/performance.md, "Cost as the store grows"), on a far-away store
 * above all. Those already gone, and those `only` refuses, are left out.
 */
export async function eraseSubmissions(
  kv: Kv,
  ids: readonly string[],
  only?: EraseOnly,
): Promise<Erased[]> {
  const unique = new Set(ids);
  if (unique.size > ERASE_BATCH) throw new RangeError(`at most ${ERASE_BATCH} a commit`);
  const plans = (await Promise.all([...unique].map((id) => _erasePlan(kv, id, only))))
    .filter((p) => p !== null);
  const erased = await Promise.all(
    _commitsOf(plans).map((group) => _eraseGroup(kv, group, only)),
  );
  return erased.flat();
}

/** `plans` cut, in order, into groups that each fit one atomic operation (limits.ts). */
function _commitsOf(plans: readonly ErasePlan[]): ErasePlan[][] {
  const groups: ErasePlan[][] = [];
  let group: ErasePlan[] = [];
  let checks = 0;
  let mutations = 0;
  for (const plan of plans) {
    if (
      group.length && (checks + plan.checks.length > KV_LIMITS.checks ||
        mutations + plan.keys.length > KV_LIMITS.mutations)
    ) {
      groups.push(group);
      group = [];
      checks = mutations = 0;
    }
    group.push(plan);
    checks += plan.checks.length;
    mutations += plan.keys.length;
  }
  if (group.length) groups.push(group);
  return groups;
}

/** One commit for `plans`; when a check fails (or KV refuses it), each on its own. */
async function _eraseGroup(kv: Kv, plans: ErasePlan[], only?: EraseOnly): Promise<Erased[]> {
  const op = kv.atomic();
  for (const plan of plans) _addPlan(op, plan);
  const together = await op.commit().then((r) => r.ok, (err) => {
    if (isStoreUnavailable(err)) throw err; // alone, each would only wait again
    return false;
  });
  if (together) return plans.map((p) => p.erased);
  const erased: Erased[] = [];
  for (const { erased: { request_id } } of plans) {
    const done = await eraseSubmission(kv, request_id, undefined, only);
    if (done) erased.push(done);
  }
  return erased;
}

interface ErasePlan {
  checks: Deno.AtomicCheck[];
  keys: Deno.KvKey[];
  erased: Erased;
}

function _addPlan(op: Atomic, plan: ErasePlan): void {
  for (const check of plan.checks) op.check(check);
  for (const key of plan.keys) op.delete(key);
}

/**
 * What erasing `id` reads, checks and deletes; null when there is no such submission or
 * `only` refuses it. The record is among the checks, so what `only` judged is what goes.
 */
async function _erasePlan(kv: Kv, id: string, only?: EraseOnly): Promise<ErasePlan | null> {
  const record = await getSubmission(kv, id);
  if (!record.value || (only && !only(record.value))) return null;
  const outbox = await getOutboxEntry(kv, id);
  const idempotency = await _idempotencyOf(kv, record.value);
  const checks: Deno.AtomicCheck[] = [record, outbox];
  const keys: Deno.KvKey[] = [record.key];
  for (let n = 0; n < record.value.payload.chunks; n++) keys.push(payloadKey(id, n));
  if (outbox.value) keys.push(outbox.key, dueKey(outbox.value));
  for (const idem of idempotency) {
    if (idem.value?.request_id !== id) continue;
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

/** The idempotency entries that replay a submission, through its pointer key's list. */
async function _idempotencyOf(
  kv: Kv,
  record: SubmissionRecord,
): Promise<Deno.KvEntryMaybe<IdempotencyRecord>[]> {
  if (!record.idempotent) return [];
  const keys = (await kv.get<Deno.KvKey[]>(idempotencyPointerKey(record.request_id))).value;
  if (!keys?.length) return [];
  return await kv.getMany<IdempotencyRecord[]>(keys);
}
