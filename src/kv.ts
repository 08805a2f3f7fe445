/**
 * @module
 * Owns every Deno KV key and every read and write of the store. Other modules
 * call these functions and never build keys themselves.
 *
 * Keys:
 * - `["clients", client_id]` → {@linkcode ClientRecord}
 * - `["tokens", sha256(token)]` → {@linkcode TokenRecord}, `expireIn` = lifetime (clean-up only)
 * - `["revocations"]` → a count, bumped in the same commit as every token deleted and every
 *   client disabled: its versionstamp tells a cache that a record may be gone (store_cache.ts)
 * - `["rate", window, bucket, address]` → `Deno.KvU64` request count, swept after its window
 * - `["submissions", request_id]` → {@linkcode SubmissionRecord}
 * - `["submission_payloads", request_id, n]` → chunk n of the submitted JSON (UTF-8 bytes)
 * - `["idempotency", endpoint, address, key]` → {@linkcode IdempotencyRecord}, `expireIn` = 24 h
 * - `["submission_idempotency", request_id]` → that key, `expireIn` = 24 h: how an erasure
 *   finds it (not in the record, which would keep the address as long as the submission)
 * - `["review_outbox", request_id]` → {@linkcode OutboxEntry}: a review notification not yet sent
 * - `["review_due", next_attempt_at, request_id]` → `true`: the outbox in due order, moved
 *   in the same commit as every change of the entry's `next_attempt_at`
 */

import type { BudgetEstimate } from "./estimate.ts";
import type { Scope } from "./oauth/scopes.ts";

export interface ClientRecord {
  /** base64url SHA-256 of the client secret; the secret itself is never stored. */
  secret_hash: string;
  scopes: Scope[];
  /** ms since the epoch */
  created_at: number;
  /**
   * ms since the epoch: an unused registration lapses then. Token issuance extends it,
   * at most once a day (a write per issuance would cost a commit each).
   */
  expires_at: number;
  /** ms since the epoch: set by `review disable-client`; the client can no longer authenticate. */
  disabled_at?: number;
}

export interface TokenRecord {
  client_id: string;
  scopes: Scope[];
  audience: string;
  /** ms since the epoch */
  issued_at: number;
  /** ms since the epoch. Decides validity: KV may return a key after its `expireIn`. */
  expires_at: number;
}

export const submissionKey = (id: string): Deno.KvKey => ["submissions", id];
export const payloadKey = (id: string, n: number): Deno.KvKey => ["submission_payloads", id, n];
export const idempotencyRecordKey = (scope: IdempotencyScope): Deno.KvKey => [
  "idempotency",
  scope.endpoint,
  scope.address,
  scope.key,
];
export const idempotencyPointerKey = (id: string): Deno.KvKey => ["submission_idempotency", id];
export const outboxKey = (id: string): Deno.KvKey => ["review_outbox", id];
/** The due index: listing it in key order gives the outbox by next attempt time. */
export const dueKey = (entry: OutboxEntry): Deno.KvKey => [
  "review_due",
  entry.next_attempt_at,
  entry.request_id,
];
export const clientKey = (clientId: string): Deno.KvKey => ["clients", clientId];
/** The marker every revocation bumps; see store_cache.ts. */
export const revocationKey: Deno.KvKey = ["revocations"];
export const tokenKey = (tokenHash: string): Deno.KvKey => ["tokens", tokenHash];
// The window comes first, so that finished windows can be swept as one key range.
export const rateKey = (bucket: string, address: string, window: number): Deno.KvKey => [
  "rate",
  window,
  bucket,
  address,
];

/** Stores a new client; fails if the id already exists (ids are random, so that is a bug). */
export async function createClient(
  kv: Deno.Kv,
  clientId: string,
  record: ClientRecord,
): Promise<void> {
  const key = clientKey(clientId);
  const res = await _retry(() =>
    kv.atomic().check({ key, versionstamp: null })
      .set(key, record, { expireIn: _ttl(record.expires_at, record.created_at) }).commit()
  );
  if (!res.ok) throw new Error("client id collision");
}

export function getClient(kv: Deno.Kv, clientId: string): Promise<Deno.KvEntryMaybe<ClientRecord>> {
  return _retry(() => kv.get<ClientRecord>(clientKey(clientId)));
}

/**
 * Stores an issued token under its digest, checked against the client record as
 * authentication read it: if the client was disabled (or changed) meanwhile, nothing is
 * written and this returns false, so the caller reads the client again. `extended`, when
 * given, replaces the client record in the same commit. One key per token: a second one
 * (an index by client) nearly halved issuance under group commit, and disabling a client
 * (rare) scans the tokens instead. `expireIn` lets KV clean up once a token lapses.
 */
export async function storeToken(
  kv: Deno.Kv,
  tokenHash: string,
  record: TokenRecord,
  client: Deno.KvEntry<ClientRecord>,
  extended?: ClientRecord,
): Promise<boolean> {
  const expireIn = _ttl(record.expires_at, record.issued_at);
  const op = kv.atomic().check(client).set(tokenKey(tokenHash), record, { expireIn });
  if (extended) {
    op.set(client.key, extended, { expireIn: _ttl(extended.expires_at, record.issued_at) });
  }
  return (await _retry(() => op.commit())).ok;
}

function _ttl(expiresAt: number, now: number): number {
  return Math.max(1, expiresAt - now);
}

export async function getToken(kv: Deno.Kv, tokenHash: string): Promise<TokenRecord | null> {
  return (await _retry(() => kv.get<TokenRecord>(tokenKey(tokenHash)))).value;
}

/**
 * Revokes a token by deleting it, bumping the revocation marker in the same commit so
 * that no instance serves it from a cache afterwards; every later lookup misses. The
 * commit is checked against the revoking client's record as authentication read it:
 * false when the client changed meanwhile (disabled, or extended), so the caller reads
 * it again.
 */
export async function deleteToken(
  kv: Deno.Kv,
  tokenHash: string,
  client: Deno.KvEntry<ClientRecord>,
): Promise<boolean> {
  const res = await _retry(() =>
    kv.atomic().check(client).delete(tokenKey(tokenHash)).sum(revocationKey, 1n).commit()
  );
  return res.ok;
}

/**
 * Disables a client: marks its record (checked, so a token issued meanwhile either
 * commits first and is revoked below, or fails its check and is refused), then deletes
 * every token it holds. Returns the record as it now is, whether it was disabled
 * already, and how many tokens were deleted; null when there is no such client.
 */
export async function disableClient(
  kv: Deno.Kv,
  clientId: string,
  now: number,
): Promise<{ record: ClientRecord; already: boolean; revoked: number } | null> {
  let record: ClientRecord | undefined;
  let already = false;
  for (let attempt = 0; attempt < 10 && !record; attempt++) {
    const entry = await getClient(kv, clientId);
    if (!entry.value) return null;
    if (entry.value.disabled_at !== undefined) {
      record = entry.value;
      already = true;
      break;
    }
    const next = { ...entry.value, disabled_at: now };
    const res = await _retry(() =>
      kv.atomic().check(entry)
        .set(entry.key, next, { expireIn: _ttl(next.expires_at, now) })
        .sum(revocationKey, 1n).commit()
    );
    if (res.ok) record = next;
  }
  if (!record) throw new Error(`${clientId} kept changing while it was being disabled`);
  // Every token the client holds: a scan of the live tokens (they last 15 minutes), done
  // after the record is marked, so a token committed before that is found here.
  let revoked = 0;
  let page: Deno.KvKey[] = [];
  const deletePage = async () => {
    // Each page bumps the marker too: a cache may have read a token again between pages.
    const op = kv.atomic().sum(revocationKey, 1n);
    for (const key of page) op.delete(key);
    await _retry(() => op.commit());
    revoked += page.length;
    page = [];
  };
  for await (const e of kv.list<TokenRecord>({ prefix: ["tokens"] })) {
    if (e.value.client_id !== clientId) continue;
    page.push(e.key);
    if (page.length >= SWEEP_PAGE) await deletePage();
  }
  if (page.length) await deletePage();
  return { record, already, revoked };
}

/**
 * Counts one request in a fixed window and returns the count including it. `sum()` is
 * atomic and commutative, so no increment is ever lost and no write has to be retried,
 * on one instance or many; the count read back includes this request's own increment,
 * so no more than the limit is ever admitted. `sum()` takes no `expireIn`:
 * {@linkcode sweepRateWindows} removes finished windows.
 */
export async function countRequest(kv: Deno.Kv, key: Deno.KvKey): Promise<number> {
  const res = await _retry(() => kv.atomic().sum(key, 1n).commit());
  if (!res.ok) throw new Error("rate counter commit failed");
  const entry = await _retry(() => kv.get<Deno.KvU64>(key));
  return Number(entry.value?.value ?? 1n);
}

/**
 * Deletes the counters of every window before `currentWindow`, however many there are,
 * a page at a time so that no atomic operation passes KV's mutation limit; returns how
 * many were deleted. Each page lists from the start of the range again: the keys of the
 * page before are gone, so nothing is skipped and nothing is read twice.
 */
export async function sweepRateWindows(kv: Deno.Kv, currentWindow: number): Promise<number> {
  let deleted = 0;
  while (true) {
    const page = await _retry(() =>
      Array.fromAsync(
        kv.list({ prefix: ["rate"], end: ["rate", currentWindow] }, { limit: SWEEP_PAGE }),
      )
    );
    if (page.length === 0) return deleted;
    const op = kv.atomic();
    for (const e of page) op.delete(e.key);
    await _retry(() => op.commit());
    deleted += page.length;
  }
}

/** Keys deleted per commit by a sweep: half of KV's 1,000 mutations per atomic operation. */
export const SWEEP_PAGE = 500;

/** A cheap read that proves the store answers, for `GET /healthz`. */
export async function pingStore(kv: Deno.Kv): Promise<void> {
  await _retry(() => kv.get(["health"]));
}

export type SubmissionKind = "lead" | "quote";
export type ReviewStatus = "pending" | "approved" | "rejected";

/** How a submission came in: the home page's forms, the REST API, or an MCP tool. */
export type Channel = "web" | "api" | "mcp";

export interface SubmissionRecord {
  request_id: string;
  kind: SubmissionKind;
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

/** A review notification waiting to be sent (transactional outbox). */
export interface OutboxEntry {
  request_id: string;
  kind: SubmissionKind;
  /** Delivery attempts so far. */
  attempts: number;
  /** ms since the epoch: not before then (a retry's backoff, or another instance's lease). */
  next_attempt_at: number;
  last_error: string | null;
}

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
  return (await _retry(() => _submissionOp(kv, sub).commit())).ok;
}

function _submissionOp(kv: Deno.Kv, sub: NewSubmission): Deno.AtomicOperation {
  const id = sub.record.request_id;
  const op = kv.atomic().check({ key: submissionKey(id), versionstamp: null })
    .set(submissionKey(id), { ...sub.record, idempotent: sub.idempotency !== undefined });
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
  return _retry(() => kv.get<IdempotencyRecord>(idempotencyRecordKey(scope)));
}

export function getSubmission(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntryMaybe<SubmissionRecord>> {
  return _retry(() => kv.get<SubmissionRecord>(submissionKey(id)));
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
  const entries = await _retry(() => kv.getMany<Uint8Array[]>(keys));
  const bytes = new Uint8Array(record.payload.bytes);
  let offset = 0;
  for (const [n, e] of entries.entries()) {
    if (!e.value) throw new Error(`payload chunk ${n} of ${record.request_id} is missing`);
    bytes.set(e.value, offset);
    offset += e.value.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Every submission, oldest first. */
export function listSubmissions(kv: Deno.Kv): Promise<SubmissionRecord[]> {
  return _retry(async () => {
    const out: SubmissionRecord[] = [];
    for await (const e of kv.list<SubmissionRecord>({ prefix: ["submissions"] })) out.push(e.value);
    return out.sort((a, b) =>
      a.created_at.localeCompare(b.created_at) || a.request_id.localeCompare(b.request_id)
    );
  });
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
  return (await _retry(() => kv.atomic().check(entry).set(entry.key, next).commit())).ok;
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
    const record = await getSubmission(kv, id);
    if (!record.value) return null;
    const outbox = await getOutboxEntry(kv, id);
    const idem = await _idempotencyOf(kv, record.value, now);
    const op = kv.atomic().check(record).check(outbox);
    const keys: Deno.KvKey[] = [record.key];
    for (let n = 0; n < record.value.payload.chunks; n++) keys.push(payloadKey(id, n));
    if (outbox.value) keys.push(outbox.key, dueKey(outbox.value));
    if (idem?.value?.request_id === id) {
      op.check(idem);
      keys.push(idem.key);
    }
    if (record.value.idempotent) keys.push(idempotencyPointerKey(id));
    for (const key of keys) op.delete(key);
    if ((await _retry(() => op.commit())).ok) {
      const { kind, created_at } = record.value;
      return { request_id: id, kind, created_at, keys: keys.length };
    }
  }
  throw new Error(`${id} kept changing while it was being erased`);
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
    const pointer = await _retry(() =>
      kv.get<Deno.KvKey>(idempotencyPointerKey(record.request_id))
    );
    const key = pointer.value;
    return key ? await _retry(() => kv.get<IdempotencyRecord>(key)) : null;
  }
  if (now - Date.parse(record.created_at) > LEGACY_SEARCH_MS) return null;
  return await _retry(async () => {
    for await (const e of kv.list<IdempotencyRecord>({ prefix: ["idempotency"] })) {
      if (e.value.request_id === record.request_id) return e;
    }
    return null;
  });
}

/** Idempotency records live 24 h; an hour more covers KV's lazy expiry. */
const LEGACY_SEARCH_MS = 25 * 60 * 60 * 1000;

/** Every review notification waiting to be sent, by request id. */
export function listOutbox(kv: Deno.Kv): Promise<Deno.KvEntry<OutboxEntry>[]> {
  return _retry(() => Array.fromAsync(kv.list<OutboxEntry>({ prefix: ["review_outbox"] })));
}

/**
 * Up to `limit` outbox entries due at `now`, earliest first, read through the due index.
 * An index key whose entry is gone or has moved on (left by an older version of the
 * service, which moved entries without their key) is deleted here, checked against the
 * entry, so it is never read twice; {@linkcode indexOutbox} gives the entry its key again.
 */
export async function listDueOutbox(
  kv: Deno.Kv,
  now: number,
  limit: number,
): Promise<Deno.KvEntry<OutboxEntry>[]> {
  const due = await _retry(() =>
    Array.fromAsync(kv.list({ start: ["review_due"], end: ["review_due", now + 1] }, { limit }))
  );
  const out: Deno.KvEntry<OutboxEntry>[] = [];
  for (const { key } of due) {
    const entry = await getOutboxEntry(kv, String(key[2]));
    if (entry.value && entry.value.next_attempt_at === key[1]) {
      out.push(entry as Deno.KvEntry<OutboxEntry>);
    } else {
      await _retry(() =>
        kv.atomic().check({ key: entry.key, versionstamp: entry.versionstamp }).delete(key).commit()
      );
    }
  }
  return out;
}

/**
 * Gives every outbox entry its due-index key where it has none: entries written by an
 * older version of the service (before the index, or by an instance of it still running
 * beside this one during a rolling deploy). Two range reads and a write per entry that
 * needs one; the notifier runs it at start and then every minute.
 */
export async function indexOutbox(kv: Deno.Kv): Promise<number> {
  const indexed = new Set<string>();
  await _retry(async () => {
    for await (const { key } of kv.list({ prefix: ["review_due"] })) {
      indexed.add(JSON.stringify(key));
    }
  });
  let added = 0;
  for (const entry of await listOutbox(kv)) {
    const key = dueKey(entry.value);
    if (indexed.has(JSON.stringify(key))) continue;
    const res = await _retry(() => kv.atomic().check(entry).set(key, true).commit());
    if (res.ok) added++;
  }
  return added;
}

export function getOutboxEntry(kv: Deno.Kv, id: string): Promise<Deno.KvEntryMaybe<OutboxEntry>> {
  return _retry(() => kv.get<OutboxEntry>(outboxKey(id)));
}

/**
 * Replaces an outbox entry if it has not changed since it was read, moving its due-index
 * key with it; returns the new entry (with its versionstamp), or null when another
 * instance changed it first.
 */
export async function updateOutbox(
  kv: Deno.Kv,
  entry: Deno.KvEntry<OutboxEntry>,
  next: OutboxEntry,
): Promise<Deno.KvEntry<OutboxEntry> | null> {
  const op = kv.atomic().check(entry).set(entry.key, next);
  if (next.next_attempt_at !== entry.value.next_attempt_at) op.delete(dueKey(entry.value));
  const res = await _retry(() => op.set(dueKey(next), true).commit());
  return res.ok ? { key: entry.key, value: next, versionstamp: res.versionstamp } : null;
}

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
  const res = await _retry(() =>
    kv.atomic().check(outbox).check(submission)
      .delete(outbox.key)
      .delete(dueKey(outbox.value))
      .set(submission.key, { ...submission.value, notified_at: notifiedAt })
      .commit()
  );
  return res.ok;
}

/** Drops an outbox entry whose submission no longer exists. */
export async function dropOutbox(kv: Deno.Kv, outbox: Deno.KvEntry<OutboxEntry>): Promise<void> {
  await _retry(() =>
    kv.atomic().check(outbox).delete(outbox.key).delete(dueKey(outbox.value)).commit()
  );
}

/**
 * Opens the store. A SQLite file that another process is writing to can refuse
 * even the open with "database is locked", so that is retried too.
 */
export function openStore(path: string | undefined): Promise<Deno.Kv> {
  return _retry(() => Deno.openKv(path));
}

const _LOCKED = /database is (locked|busy)/i;

/**
 * Runs one KV call, retrying while SQLite reports the file locked by another process
 * (several instances or the review CLI on one KV file): Deno KV's SQLite backend
 * throws at once instead of waiting for the lock. Gives up after a few seconds.
 */
async function _retry<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 60 || !(err instanceof Error) || !_LOCKED.test(err.message)) throw err;
      await new Promise((r) => setTimeout(r, 1 + Math.random() * Math.min(attempt, 10) * 5));
    }
  }
}
