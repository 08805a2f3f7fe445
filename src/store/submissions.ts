/**
 * @module
 * Submitted leads and quotes: the record, its payload chunks and its idempotency key,
 * written in one commit with the submission's review notice and index keys; a decision
 * written against the record's versionstamp; and `completeOutbox`, which marks a submission
 * notified and removes its notice in one commit. Erasure is erasure.ts.
 *
 * Keys (keys.ts):
 * - `["submissions", request_id]` → {@linkcode SubmissionRecord}
 * - `["submission_payloads", request_id, n]` → chunk n of the submitted JSON (UTF-8 bytes)
 * - `["idempotency", endpoint, address, key]` → {@linkcode IdempotencyRecord}: the
 *   `Idempotency-Key`'s (`expireIn` 24 h), and the same request's (10 minutes)
 * - `["submission_idempotency", request_id]` → those keys, `expireIn` as the longest: how an
 *   erasure finds them (not in the record, which would keep the address as long as the
 *   submission).
 */

import type { Atomic, Kv } from "./store.ts";
import type { BudgetEstimate } from "../pricing/budget.ts";
import { DAY_MS, MINUTE_MS } from "../time.ts";
import {
  decidedIndexKey,
  dueKey,
  emailIndexKey,
  idempotencyPointerKey,
  idempotencyRecordKey,
  type IdempotencyScope,
  newNoticeKey,
  outboxKey,
  payloadKey,
  submissionKey,
  timeIndexKey,
} from "./keys.ts";
import type { Write } from "./commits.ts";
import type { OutboxEntry } from "./outbox.ts";
import { getEach } from "./pages.ts";
import { rowBytes } from "./row_bytes.ts";
import { REASON_MAX_CHARS } from "../http/log.ts";

/** How long an `Idempotency-Key` replays its first answer. */
export const IDEMPOTENCY_TTL_MS = DAY_MS;
/** How long an identical submission, with any key or none, replays the first answer. */
export const SAME_REQUEST_TTL_MS = 10 * MINUTE_MS;

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
  /** What `review list` shows, so it reads no payload. */
  summary: SubmissionSummary;
  /** The keyed hash of its email (submission_index.ts), to find and erase its index key. */
  email_hash: string | null;
  channel: Channel;
  status: ReviewStatus;
  /** ISO 8601 */
  created_at: string;
  /** The accepted JSON is stored beside the record, split into chunks that fit KV values. */
  payload: { chunks: number; bytes: number };
  /** Catalog facts for the review list; none of it is the submitter's free text. */
  service_id: string | null;
  /** null when the city was ambiguous or not given. */
  covered: boolean | null;
  /** How the city and site_address were read (intake/site.ts); null when no city was sent. */
  site: SiteRecord | null;
  /** How soon the submitter needs it; absent or null when not given. */
  urgency?: "emergency" | "asap" | "scheduled" | null;
  budget_estimate: BudgetEstimate | null;
  /** ISO 8601; set once the review notification went out (webhook or log). */
  notified_at: string | null;
  /** How it went out: set with `notified_at`, absent until then. */
  notified_via?: NotifiedVia;
  decision: {
    status: Exclude<ReviewStatus, "pending">;
    decided_at: string;
    by: string | null;
    note: string | null;
  } | null;
  /**
   * Whether idempotency records replay this submission (their keys are under
   * {@linkcode idempotencyPointerKey}). Set by the commit that stores the record, from
   * whether any is stored with it.
   */
  idempotent?: boolean;
}

/** A webhook answered the notice 2xx, or no webhook was configured and it was only logged. */
export type NotifiedVia = "webhook" | "log";

export interface IdempotencyRecord {
  /** SHA-256 of the request as compared (intake/request_hash.ts), so a changed one is detected. */
  body_hash: string;
  request_id: string;
  /** The first answer, replayed verbatim; absent where `answer_in` names the record keeping it. */
  response?: string;
  /**
   * The same submission's record that keeps the answer: the `Idempotency-Key`'s, for the
   * same request's record of a submission sent with one (the answer is stored once).
   */
  answer_in?: Deno.KvKey;
  /** ms since the epoch; KV may return the key after its `expireIn`. */
  expires_at: number;
}

// The outbox keeps its own copy of the kind (it imports nothing from here); this fails to
// compile if the two ever differ.
const _kindsAgree: [OutboxEntry["kind"], SubmissionKind] extends
  [SubmissionKind, OutboxEntry["kind"]] ? true
  : never = true;
void _kindsAgree;

/** KV values are at most 64 KiB; payload chunks stay well below. */
export const PAYLOAD_CHUNK_BYTES = 32 * 1024;

/** What a submission's commit writes: see {@linkcode newSubmission}. */
export interface NewSubmission {
  record: SubmissionRecord;
  payload: Uint8Array;
  /** The records that replay its answer, and the answer they replay. */
  replay?: {
    body_hash: string;
    /** The answer's text ({@linkcode answerText}). */
    response: string;
    /** Longest-lived first: the first keeps the answer, the others name it (`answer_in`). */
    records: ReplayRecord[];
  };
}

/** One idempotency record a submission's commit writes. */
export interface ReplayRecord {
  scope: IdempotencyScope;
  /** How long it replays, from the submission's `created_at`. */
  ttl: number;
  /** The versionstamp of an expired record KV still returned, or null for none: checked. */
  versionstamp: string | null;
}

/**
 * The write of a submission, in one atomic commit: the record, its payload chunks, its review
 * notification in the outbox and the idempotency key. Its commit writes nothing when the
 * idempotency key (or the id) changed meanwhile; a re-sent commit fails the id's check, and
 * its proof is the record holding this request id.
 *
 * The outbox is a plain key rather than `kv.enqueue`: KV Connect rejects atomic
 * operations that enqueue, and the outbox works on every backend.
 */
export function newSubmission(sub: NewSubmission): Write {
  const key = submissionKey(sub.record.request_id);
  return {
    write: (op) => _submissionOp(op, sub),
    proof: {
      keys: [key],
      landed: ([e]) => (e?.value as SubmissionRecord | null)?.request_id === sub.record.request_id,
    },
  };
}

function _submissionOp(op: Atomic, sub: NewSubmission): void {
  const id = sub.record.request_id;
  op.check({ key: submissionKey(id), versionstamp: null })
    .check({ key: outboxKey(id), versionstamp: null });
  for (const { scope, versionstamp } of sub.replay?.records ?? []) {
    op.check({ key: idempotencyRecordKey(scope), versionstamp });
  }
  for (const row of _rows(sub)) {
    op.set(row.key, row.value, row.expireIn ? { expireIn: row.expireIn } : undefined);
  }
}

/** One key a submission's commit sets. */
interface Row {
  key: Deno.KvKey;
  value: unknown;
  expireIn?: number;
}

/**
 * Every key a submission's commit sets, with its value. `grown` gives the record and the
 * notice as they may later become without anyone deciding: notified (a time where null
 * was), and the notice after failed deliveries (many attempts, its longest error).
 */
function _rows(sub: NewSubmission, grown = false): Row[] {
  const id = sub.record.request_id;
  const created = Date.parse(sub.record.created_at);
  const record: SubmissionRecord = {
    ...sub.record,
    idempotent: sub.replay !== undefined,
    ...(grown ? { notified_at: sub.record.created_at, notified_via: "webhook" } : {}),
  };
  const outbox: OutboxEntry = {
    request_id: id,
    kind: sub.record.kind,
    attempts: grown ? 1_000_000 : 0,
    next_attempt_at: created,
    last_error: grown ? "\u0100".repeat(REASON_MAX_CHARS) : null,
  };
  const rows: Row[] = [
    { key: submissionKey(id), value: record },
    { key: timeIndexKey(created, id), value: true },
    { key: newNoticeKey(created, id), value: true },
    { key: outboxKey(id), value: outbox },
    { key: dueKey(outbox), value: true },
  ];
  if (sub.record.email_hash) {
    rows.push({ key: emailIndexKey(sub.record.email_hash, id), value: true });
  }
  for (let n = 0; n < sub.record.payload.chunks; n++) {
    const start = n * PAYLOAD_CHUNK_BYTES;
    rows.push({
      key: payloadKey(id, n),
      value: sub.payload.subarray(start, start + PAYLOAD_CHUNK_BYTES),
    });
  }
  if (sub.replay) rows.push(..._replayRows(sub.replay, id, created));
  return rows;
}

/** The idempotency records of a submission, and the pointer that lists them for erasure. */
function _replayRows(replay: Required<NewSubmission>["replay"], id: string, created: number) {
  const keys = replay.records.map((r) => idempotencyRecordKey(r.scope));
  const rows: Row[] = replay.records.map(({ ttl }, n) => {
    const value: IdempotencyRecord = {
      body_hash: replay.body_hash,
      request_id: id,
      ...(n === 0 ? { response: replay.response } : { answer_in: keys[0]! }),
      expires_at: created + ttl,
    };
    return { key: keys[n]!, value, expireIn: ttl };
  });
  const longest = Math.max(...replay.records.map((r) => r.ttl));
  rows.push({ key: idempotencyPointerKey(id), value: keys, expireIn: longest });
  return rows;
}

/**
 * The bytes a submission adds to the store, as KV counts them: every key its commit sets
 * and its value, the record and the notice as large as they may grow by themselves (see
 * {@linkcode _rows}). What a reviewer later writes (a decision) is not counted, nor the rate
 * counter the same commit updates (one per address and minute, expiring).
 */
export function submissionBytes(sub: NewSubmission): number {
  return _rows(sub, true).reduce((sum, row) => sum + rowBytes(row.key, row.value), 0);
}

/**
 * The text an idempotency record keeps of an answer: its JSON with every character beyond
 * Latin-1 escaped (`\u6771`), which `JSON.parse` reads back as it was. KV stores a string
 * one byte a character while it is all Latin-1, and two bytes a character once one
 * character is not, so one echoed character would otherwise double the whole answer.
 */
export function answerText(answer: unknown): string {
  return JSON.stringify(answer).replace(
    /[\u0100-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The idempotency records of some scopes, in one read. Eventual consistency is enough for a
 * first look: the commit that follows checks their versionstamps, and a stale read only fails
 * that check.
 */
export function getIdempotency(
  kv: Kv,
  scopes: readonly IdempotencyScope[],
  consistency: Deno.KvConsistencyLevel = "strong",
): Promise<Deno.KvEntryMaybe<IdempotencyRecord>[]> {
  return kv.getMany<IdempotencyRecord[]>(scopes.map(idempotencyRecordKey), { consistency });
}

/** The record an idempotency record's `answer_in` names (the one keeping its answer). */
export function getAnswerRecord(
  kv: Kv,
  key: Deno.KvKey,
): Promise<Deno.KvEntryMaybe<IdempotencyRecord>> {
  return kv.get<IdempotencyRecord>(key);
}

export function getSubmission(
  kv: Kv,
  id: string,
): Promise<Deno.KvEntryMaybe<SubmissionRecord>> {
  return kv.get<SubmissionRecord>(submissionKey(id));
}

/** Reassembles the submitted JSON text of a submission (at most a few chunks: one getMany). */
export async function getSubmissionPayload(
  kv: Kv,
  record: SubmissionRecord,
): Promise<string> {
  const keys = Array.from(
    { length: record.payload.chunks },
    (_, n) => payloadKey(record.request_id, n),
  );
  const entries = await kv.getMany<Uint8Array[]>(keys);
  const bytes = new Uint8Array(record.payload.bytes);
  let offset = 0;
  for (const [n, e] of entries.entries()) {
    if (!e.value) throw new Error(`payload chunk ${n} of ${record.request_id} is missing`);
    bytes.set(e.value, offset);
    offset += e.value.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The records of `ids`, in that order, in one round trip; those erased meanwhile are left out. */
export async function getSubmissions(
  kv: Kv,
  ids: readonly string[],
): Promise<SubmissionRecord[]> {
  const entries = await getEach<SubmissionRecord>(kv, ids.map(submissionKey));
  return entries.flatMap((e) => e.value ? [e.value] : []);
}

/**
 * Replaces a submission only if it has not changed since `entry` was read
 * (versionstamp check). Returns false when someone else changed it first. `extra` joins
 * the commit (a staff action's audit entry), so both land or neither.
 */
export async function updateSubmission(
  kv: Kv,
  entry: Deno.KvEntry<SubmissionRecord>,
  next: SubmissionRecord,
  extra?: (op: Atomic) => void,
): Promise<boolean> {
  const op = kv.atomic().check(entry).set(entry.key, next);
  extra?.(op);
  // The decision index moves with the decision.
  const was = entry.value.decision?.decided_at;
  const now = next.decision?.decided_at;
  if (was !== now) {
    if (was) op.delete(decidedIndexKey(Date.parse(was), next.request_id));
    if (now) op.set(decidedIndexKey(Date.parse(now), next.request_id), true);
  }
  return (await op.commit()).ok;
}

/**
 * Marks a submission notified (when, and how) and removes its outbox entry in one commit,
 * both checked; false when either changed meanwhile.
 */
export async function completeOutbox(
  kv: Kv,
  outbox: Deno.KvEntry<OutboxEntry>,
  submission: Deno.KvEntry<SubmissionRecord>,
  notifiedAt: string,
  via: NotifiedVia,
): Promise<boolean> {
  const notified = { ...submission.value, notified_at: notifiedAt, notified_via: via };
  const res = await kv.atomic().check(outbox).check(submission)
    .delete(outbox.key)
    .delete(dueKey(outbox.value))
    .set(submission.key, notified)
    .commit();
  return res.ok;
}

/** How a submission's site was read (intake/site.ts): the place, in words and by location. */
export interface SiteRecord {
  /** How the city was resolved (catalog/coverage_types.ts). */
  match: string;
  read_as: string | null;
  covered: boolean;
  location_id: string | null;
  facility: string | null;
  site_address: { read_as: string | null; agrees: boolean | null } | null;
}
