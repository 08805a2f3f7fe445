/**
 * @module
 * Submitted leads and quotes: the record, its payload chunks and its idempotency key,
 * written in one commit with the submission's review notice (outbox.ts); erasure of one
 * submission with everything it owns; and `completeOutbox`, which marks a submission
 * notified and removes its notice in one commit.
 *
 * Keys:
 * - `["submissions", request_id]` → {@linkcode SubmissionRecord}
 * - `["submission_payloads", request_id, n]` → chunk n of the submitted JSON (UTF-8 bytes)
 * - `["idempotency", endpoint, address, key]` → {@linkcode IdempotencyRecord}, `expireIn` = 24 h
 * - `["submission_idempotency", request_id]` → that key, `expireIn` = 24 h: how an erasure
 *   finds it (not in the record, which would keep the address as long as the submission)
 */

import type { BudgetEstimate } from "../catalog/estimate.ts";
import { retryLocked } from "./calls.ts";
import { dueKey, getOutboxEntry, newNoticeKey, type OutboxEntry, outboxKey } from "./outbox.ts";
import {
  decidedIndexKey,
  emailIndexKey,
  INDEX_MIGRATION_KEY,
  normalizeEmail,
  timeIndexKey,
} from "./submission_index.ts";

export const submissionKey = (id: string): Deno.KvKey => ["submissions", id];
export const payloadKey = (id: string, n: number): Deno.KvKey => ["submission_payloads", id, n];
export const idempotencyRecordKey = (scope: IdempotencyScope): Deno.KvKey => [
  "idempotency",
  scope.endpoint,
  scope.address,
  scope.key,
];
export const idempotencyPointerKey = (id: string): Deno.KvKey => ["submission_idempotency", id];

export type SubmissionKind = "lead" | "quote";
export type ReviewStatus = "pending" | "approved" | "rejected";

/** How a submission came in: the home page's forms, the REST API, or an MCP tool. */
export type Channel = "web" | "api" | "mcp";

/** What a review list row shows of who sent a submission, each at most 64 characters. */
export interface SubmissionSummary {
  company: string | null;
  /** The contact's name, else the email. */
  contact: string | null;
  city: string | null;
}

export interface SubmissionRecord {
  request_id: string;
  kind: SubmissionKind;
  /** What `review list` shows, so it reads no payload. Absent on records not yet indexed. */
  summary?: SubmissionSummary;
  /** The keyed hash of its email (submission_index.ts), to find and erase its index key. */
  email_hash?: string | null;
  /** Absent on records written before the field existed. */
  channel?: Channel;
  status: ReviewStatus;
  /** ISO 8601 */
  created_at: string;
  /** The accepted JSON is stored beside the record, split into chunks that fit KV values. */
  payload: { chunks: number; bytes: number };
  /** Catalog facts for the review list; none of it is the submitter's free text. */
  service_id: string | null;
  /** null when the city was ambiguous or not given. */
  covered: boolean | null;
  /** How soon the submitter needs it; absent or null when not given. */
  urgency?: "emergency" | "asap" | "scheduled" | null;
  budget_estimate: BudgetEstimate | null;
  /** ISO 8601; set once the review notification went out (webhook or log). */
  notified_at: string | null;
  decision: {
    status: Exclude<ReviewStatus, "pending">;
    decided_at: string;
    by: string | null;
    note: string | null;
  } | null;
  /**
   * Whether an idempotency record replays this submission (for 24 h; its key is under
   * {@linkcode idempotencyPointerKey}). Absent on records written before the field
   * existed: an erasure then searches for one.
   */
  idempotent?: boolean;
}

export interface IdempotencyRecord {
  /** SHA-256 of the request body as parsed, so a changed body is detected. */
  body_hash: string;
  request_id: string;
  /** The first answer, replayed verbatim. */
  response: string;
  /** ms since the epoch; KV may return the key after its `expireIn`. */
  expires_at: number;
}

/** Who may replay an idempotent answer: the same endpoint, address and key. */
export interface IdempotencyScope {
  endpoint: string;
  address: string;
  key: string;
}

// The outbox keeps its own copy of the kind (it imports nothing from here); this fails to
// compile if the two ever differ.
const _kindsAgree: [OutboxEntry["kind"], SubmissionKind] extends
  [SubmissionKind, OutboxEntry["kind"]] ? true
  : never = true;
void _kindsAgree;

/** KV values are at most 64 KiB; payload chunks stay well below. */
export const PAYLOAD_CHUNK_BYTES = 32 * 1024;

export interface NewSubmission {
  record: SubmissionRecord;
  payload: Uint8Array;
  idempotency?: {
    scope: IdempotencyScope;
    value: IdempotencyRecord;
    expireIn: number;
    /** The versionstamp of an expired record KV still returned, or null for none. */
    versionstamp: string | null;
  };
}

/**
 * Writes a submission in one atomic commit: the record, its payload chunks, its review
 * notification in the outbox and the idempotency key. Returns false, writing nothing,
 * when the idempotency key (or the id) changed meanwhile.
 *
 * The outbox is a plain key rather than `kv.enqueue`: KV Connect rejects atomic
 * operations that enqueue, and the outbox works on every backend.
 */
export async function commitSubmission(kv: Deno.Kv, sub: NewSubmission): Promise<boolean> {
  return (await retryLocked(() => _submissionOp(kv, sub).commit())).ok;
}

function _submissionOp(kv: Deno.Kv, sub: NewSubmission): Deno.AtomicOperation {
  const id = sub.record.request_id;
  const op = kv.atomic().check({ key: submissionKey(id), versionstamp: null })
    .set(submissionKey(id), { ...sub.record, idempotent: sub.idempotency !== undefined })
    .set(timeIndexKey(Date.parse(sub.record.created_at), id), true)
    .set(newNoticeKey(Date.parse(sub.record.created_at), id), true);
  if (sub.record.email_hash) op.set(emailIndexKey(sub.record.email_hash, id), true);
  for (let n = 0; n < sub.record.payload.chunks; n++) {
    const start = n * PAYLOAD_CHUNK_BYTES;
    op.set(payloadKey(id, n), sub.payload.subarray(start, start + PAYLOAD_CHUNK_BYTES));
  }
  const outbox: OutboxEntry = {
    request_id: id,
    kind: sub.record.kind,
    attempts: 0,
    next_attempt_at: Date.parse(sub.record.created_at),
    last_error: null,
  };
  op.check({ key: outboxKey(id), versionstamp: null }).set(outboxKey(id), outbox)
    .set(dueKey(outbox), true);
  if (sub.idempotency) {
    const key = idempotencyRecordKey(sub.idempotency.scope);
    const expireIn = sub.idempotency.expireIn;
    op.check({ key, versionstamp: sub.idempotency.versionstamp })
      .set(key, sub.idempotency.value, { expireIn })
      .set(idempotencyPointerKey(id), key, { expireIn });
  }
  return op;
}

export function getIdempotency(
  kv: Deno.Kv,
  scope: IdempotencyScope,
): Promise<Deno.KvEntryMaybe<IdempotencyRecord>> {
  return retryLocked(() => kv.get<IdempotencyRecord>(idempotencyRecordKey(scope)));
}

export function getSubmission(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntryMaybe<SubmissionRecord>> {
  return retryLocked(() => kv.get<SubmissionRecord>(submissionKey(id)));
}

/** Reassembles the submitted JSON text of a submission (at most a few chunks: one getMany). */
export async function getSubmissionPayload(
  kv: Deno.Kv,
  record: SubmissionRecord,
): Promise<string> {
  const keys = Array.from(
    { length: record.payload.chunks },
    (_, n) => payloadKey(record.request_id, n),
  );
  const entries = await retryLocked(() => kv.getMany<Uint8Array[]>(keys));
  const bytes = new Uint8Array(record.payload.bytes);
  let offset = 0;
  for (const [n, e] of entries.entries()) {
    if (!e.value) throw new Error(`payload chunk ${n} of ${record.request_id} is missing`);
    bytes.set(e.value, offset);
    offset += e.value.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The summary a review list row shows, from a submission as it was accepted. */
export function summaryOf(request: Record<string, unknown>): SubmissionSummary {
  const text = (v: unknown) =>
    typeof v === "string" && v.trim() ? [...v.trim()].slice(0, 64).join("") : null;
  return {
    company: text(request.company),
    contact: text(request.contact_name) ?? text(request.email),
    city: text(request.city),
  };
}

/** The records of `ids`, in that order; those erased meanwhile are left out. */
export async function getSubmissions(
  kv: Deno.Kv,
  ids: readonly string[],
): Promise<SubmissionRecord[]> {
  const out: SubmissionRecord[] = [];
  for (const id of ids) {
    const entry = await getSubmission(kv, id);
    if (entry.value) out.push(entry.value);
  }
  return out;
}

/**
 * Indexes the submissions written before the indexes existed (submission_index.ts): a
 * page at a time, each record with its index keys and summary in one checked commit,
 * then the marker, so it runs once per store. `hash` is the store's email hasher.
 * Returns how many records it indexed; 0 at once when the marker is there.
 */
export async function indexSubmissions(
  kv: Deno.Kv,
  hash: (email: string) => string,
  pause: () => Promise<void> = () => new Promise((r) => setTimeout(r, 0)),
): Promise<number> {
  if ((await retryLocked(() => kv.get(INDEX_MIGRATION_KEY))).value) return 0;
  let indexed = 0;
  let cursor: string | undefined;
  while (true) {
    const iter = kv.list<SubmissionRecord>({ prefix: ["submissions"] }, { limit: 200, cursor });
    const page = await retryLocked(() => Array.fromAsync(iter));
    for (const entry of page) {
      if (entry.value.summary !== undefined) continue;
      let request: Record<string, unknown> = {};
      try {
        request = JSON.parse(await getSubmissionPayload(kv, entry.value));
      } catch { /* erased meanwhile: the check below fails */ }
      const email = typeof request.email === "string" ? normalizeEmail(request.email) : "";
      const next = {
        ...entry.value,
        summary: summaryOf(request),
        email_hash: email ? hash(email) : null,
      };
      const id = entry.value.request_id;
      const op = kv.atomic().check(entry).set(entry.key, next)
        .set(timeIndexKey(Date.parse(next.created_at), id), true);
      if (next.email_hash) op.set(emailIndexKey(next.email_hash, id), true);
      if (next.decision) op.set(decidedIndexKey(Date.parse(next.decision.decided_at), id), true);
      if ((await retryLocked(() => op.commit())).ok) indexed++;
    }
    if (page.length < 200) break;
    cursor = iter.cursor;
    await pause();
  }
  await retryLocked(() => kv.set(INDEX_MIGRATION_KEY, 1));
  return indexed;
}

/**
 * Replaces a submission only if it has not changed since `entry` was read
 * (versionstamp check). Returns false when someone else changed it first.
 */
export async function updateSubmission(
  kv: Deno.Kv,
  entry: Deno.KvEntry<SubmissionRecord>,
  next: SubmissionRecord,
): Promise<boolean> {
  const op = kv.atomic().check(entry).set(entry.key, next);
  // The decision index moves with the decision.
  const was = entry.value.decision?.decided_at;
  const now = next.decision?.decided_at;
  if (was !== now) {
    if (was) op.delete(decidedIndexKey(Date.parse(was), next.request_id));
    if (now) op.set(decidedIndexKey(Date.parse(now), next.request_id), true);
  }
  return (await retryLocked(() => op.commit())).ok;
}

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
 * and due key, and the idempotency record that would replay it with its pointer. Every key read is
 * checked, so a notifier or reviewer writing meanwhile makes it read again and retry.
 * Returns null when there is no such submission.
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
 * purge of 100,000 quick and small (docs/performance.md). Those already gone are left out.
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
 * The idempotency entry that replays a submission, through its pointer key. For a record
 * written before submissions said whether they had one, a search; only while such a
 * record could still have one (idempotency records live 24 h).
 */
async function _idempotencyOf(
  kv: Deno.Kv,
  record: SubmissionRecord,
  now: number,
): Promise<Deno.KvEntryMaybe<IdempotencyRecord> | null> {
  if (record.idempotent === false) return null;
  if (record.idempotent === true) {
    const pointer = await retryLocked(() =>
      kv.get<Deno.KvKey>(idempotencyPointerKey(record.request_id))
    );
    const key = pointer.value;
    return key ? await retryLocked(() => kv.get<IdempotencyRecord>(key)) : null;
  }
  if (now - Date.parse(record.created_at) > LEGACY_SEARCH_MS) return null;
  return await retryLocked(async () => {
    for await (const e of kv.list<IdempotencyRecord>({ prefix: ["idempotency"] })) {
      if (e.value.request_id === record.request_id) return e;
    }
    return null;
  });
}

/** Idempotency records live 24 h; an hour more covers KV's lazy expiry. */
const LEGACY_SEARCH_MS = 25 * 60 * 60 * 1000;

/**
 * Marks a submission notified and removes its outbox entry in one commit, both
 * checked; false when either changed meanwhile.
 */
export async function completeOutbox(
  kv: Deno.Kv,
  outbox: Deno.KvEntry<OutboxEntry>,
  submission: Deno.KvEntry<SubmissionRecord>,
  notifiedAt: string,
): Promise<boolean> {
  const res = await retryLocked(() =>
    kv.atomic().check(outbox).check(submission)
      .delete(outbox.key)
      .delete(dueKey(outbox.value))
      .set(submission.key, { ...submission.value, notified_at: notifiedAt })
      .commit()
  );
  return res.ok;
}
