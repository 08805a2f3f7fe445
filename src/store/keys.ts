/**
 * @module
 * Every KV key the service reads or writes, and every range it lists, built here and
 * nowhere else: the whole key space reads in one place, the store modules build no key of
 * their own, and `docs/architecture.md`'s key table is checked against this file
 * (tests/layout_test.ts). Keys are snake_case with a plural or descriptive first part.
 *
 * | key                                                | value, owner                                  |
 * | -------------------------------------------------- | --------------------------------------------- |
 * | `["clients", client_id]`                           | the client, credentials.ts                    |
 * | `["tokens", sha256(token)]`                        | the token, credentials.ts                     |
 * | `["revocations"]`                                  | the revocation marker, credentials.ts         |
 * | `["rate_counters", window, bucket, address]`       | a request count, rate_counters.ts             |
 * | `["submissions", request_id]`                      | the record, submissions.ts                    |
 * | `["submission_payloads", request_id, n]`           | chunk n of the request, submissions.ts        |
 * | `["idempotency", endpoint, address, key]`          | the first answer, submissions.ts              |
 * | `["submission_idempotency", request_id]`           | the keys above, for erasure, submissions.ts   |
 * | `["review_outbox", request_id]`                    | a notice not sent yet, outbox.ts              |
 * | `["review_due", next_attempt_at, request_id]`      | the outbox in due order, outbox.ts            |
 * | `["review_new", created_ms, request_id]`           | notices never tried, outbox.ts                |
 * | `["submissions_by_time", created_ms, request_id]`  | index, submission_index.ts                    |
 * | `["submissions_decided", decided_ms, request_id]`  | index, submission_index.ts                    |
 * | `["submissions_by_email", email_hash, request_id]` | index, submission_index.ts                    |
 * | `["email_index_key"]`                              | the email hash's key, submission_index.ts     |
 * | `["pending_retention_cursor"]`                     | how far the pending retention read, submission_index.ts |
 * | `["health"]`                                       | the ping of `/readyz`; on Deploy, once a start |
 * | `["staff_members", member_id]`                     | a staff member, staff.ts                      |
 * | `["staff_passkeys", credential_id]`                | a member's passkey, staff.ts                  |
 * | `["staff_member_passkeys", member_id, credential_id]` | index of a member's passkeys, staff.ts     |
 * | `["staff_sessions", sha256(token)]`                | a console session, staff.ts                   |
 * | `["staff_member_sessions", member_id, sha256(token)]` | index of a member's sessions, staff.ts     |
 * | `["staff_invites", sha256(token)]`                 | an enrolment invite, staff.ts                 |
 * | `["staff_ceremonies", sha256(challenge)]`          | a passkey ceremony's challenge, staff.ts      |
 * | `["staff_codes_spent", sha256(code)]`              | an enrolment code used once, staff.ts         |
 * | `["staff_audit", at_ms, entry_id]`                 | a staff action, staff_audit.ts                |
 * | `["staff_audit_of", target, at_ms, entry_id]`      | the same action, by what it acted on, staff_audit.ts |
 * | `["demand", day, place_key]`                       | a place read as not covered, counted, demand.ts |
 */

// Credentials (credentials.ts)

export const clientKey = (clientId: string): Deno.KvKey => ["clients", clientId];
export const tokenKey = (tokenHash: string): Deno.KvKey => ["tokens", tokenHash];
const _REVOCATIONS: Deno.KvKey = Object.freeze(["revocations"]);
/** The marker every revocation and every disabled client bumps; see cache.ts. */
export const revocationKey = (): Deno.KvKey => _REVOCATIONS;

// Rate-limit counters (rate_counters.ts), `{ n, recent }` written by check-and-set. The global
// buckets count under the address "*".

export const rateCounterKey = (bucket: string, address: string, window: number): Deno.KvKey => [
  "rate_counters",
  window,
  bucket,
  address,
];

// Demand outside coverage (demand.ts): per UTC day (`YYYY-MM-DD`), a place read as not covered.

export const demandKey = (day: string, placeKey: string): Deno.KvKey => ["demand", day, placeKey];
/** The places counted on one UTC day, in key order. */
export const demandOfDay = (day: string): Deno.KvListSelector => ({ prefix: ["demand", day] });

// Submissions (submissions.ts, erasure.ts)

/** Who may replay an idempotent answer: the same endpoint, address and key. */
export interface IdempotencyScope {
  endpoint: string;
  address: string;
  key: string;
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

// The review outbox (outbox.ts)

export const outboxKey = (id: string): Deno.KvKey => ["review_outbox", id];
/** Every outbox entry, by request id. */
export const allOutbox = (): Deno.KvListSelector => ({ prefix: ["review_outbox"] });
/** The outbox entries of one kind, whose ids start with it (intake/ids.ts), oldest first. */
export const outboxOfKind = (kind: "lead" | "quote"): Deno.KvListSelector => ({
  start: outboxKey(`${kind}_`),
  end: outboxKey(`${kind}_\uffff`),
});
/** The due index: listing it in key order gives the outbox by next attempt time. */
export const dueKey = (entry: { next_attempt_at: number; request_id: string }): Deno.KvKey => [
  "review_due",
  entry.next_attempt_at,
  entry.request_id,
];
/** Every due key, earliest first: those due now, then the retries and leases to come. */
export const allDue = (): Deno.KvListSelector => ({ prefix: ["review_due"] });
/** The new-notice lane: a notice not tried yet, by its submission's time. */
export const newNoticeKey = (createdMs: number, id: string): Deno.KvKey => [
  "review_new",
  createdMs,
  id,
];
export const allNewNotices = (): Deno.KvListSelector => ({ prefix: ["review_new"] });

// Submission indexes (submission_index.ts)

export const timeIndexKey = (createdMs: number, id: string): Deno.KvKey => [
  "submissions_by_time",
  createdMs,
  id,
];
/** The time index, or the part of it before `before` (a submission's time and id). */
export const submittedBefore = (
  before?: { createdMs: number; id: string },
): Deno.KvListSelector =>
  before
    ? { prefix: ["submissions_by_time"], end: timeIndexKey(before.createdMs, before.id) }
    : { prefix: ["submissions_by_time"] };
export const decidedIndexKey = (decidedMs: number, id: string): Deno.KvKey => [
  "submissions_decided",
  decidedMs,
  id,
];
/** The decision index before `beforeMs`. */
export const decidedBefore = (beforeMs: number): Deno.KvListSelector => ({
  prefix: ["submissions_decided"],
  end: ["submissions_decided", beforeMs],
});
export const emailIndexKey = (emailHash: string, id: string): Deno.KvKey => [
  "submissions_by_email",
  emailHash,
  id,
];
/** The submissions whose email hashes to `emailHash`. */
export const withEmailHash = (emailHash: string): Deno.KvListSelector => ({
  prefix: ["submissions_by_email", emailHash],
});
/** The random key of the email index's keyed hash, made once per store. */
export const emailHashSecretKey = (): Deno.KvKey => ["email_index_key"];
/**
 * The time index before `beforeMs`, from `from` on (a submission's time and id, itself
 * included).
 */
export const submittedFromUntil = (
  beforeMs: number,
  from?: { createdMs: number; id: string },
): Deno.KvListSelector => ({
  start: from ? timeIndexKey(from.createdMs, from.id) : ["submissions_by_time"],
  end: ["submissions_by_time", beforeMs],
});
/** The last time index key the pending retention pass has read up to (review/retention.ts). */
export const pendingRetentionCursorKey = (): Deno.KvKey => ["pending_retention_cursor"];

// Readiness (open.ts)

/** Read, never written: a read of a key that is absent still proves the store answers. */
export const healthKey = (): Deno.KvKey => ["health"];

// The staff console (staff.ts, staff_audit.ts). Secrets (session cookies, invites, enrolment
// codes, challenges) are keyed by their SHA-256 digest, never by themselves.

export const staffMemberKey = (memberId: string): Deno.KvKey => ["staff_members", memberId];
/** Every staff member, by id. */
export const allStaffMembers = (): Deno.KvListSelector => ({ prefix: ["staff_members"] });
export const staffPasskeyKey = (credentialId: string): Deno.KvKey => [
  "staff_passkeys",
  credentialId,
];
export const memberPasskeyKey = (memberId: string, credentialId: string): Deno.KvKey => [
  "staff_member_passkeys",
  memberId,
  credentialId,
];
/** The index of one member's passkeys. */
export const passkeysOf = (memberId: string): Deno.KvListSelector => ({
  prefix: ["staff_member_passkeys", memberId],
});
export const staffSessionKey = (sessionHash: string): Deno.KvKey => ["staff_sessions", sessionHash];
export const memberSessionKey = (memberId: string, sessionHash: string): Deno.KvKey => [
  "staff_member_sessions",
  memberId,
  sessionHash,
];
/** The index of one member's sessions. */
export const sessionsOf = (memberId: string): Deno.KvListSelector => ({
  prefix: ["staff_member_sessions", memberId],
});
export const staffInviteKey = (inviteHash: string): Deno.KvKey => ["staff_invites", inviteHash];
export const ceremonyKey = (challengeHash: string): Deno.KvKey => [
  "staff_ceremonies",
  challengeHash,
];
export const spentCodeKey = (codeHash: string): Deno.KvKey => ["staff_codes_spent", codeHash];
export const auditKey = (atMs: number, entryId: string): Deno.KvKey => [
  "staff_audit",
  atMs,
  entryId,
];
/** The audit trail, or the part of it before `before` (an entry's time and id). */
export const auditBefore = (before?: { atMs: number; id: string }): Deno.KvListSelector =>
  before
    ? { prefix: ["staff_audit"], end: auditKey(before.atMs, before.id) }
    : { prefix: ["staff_audit"] };
/** The entry of an action on `target` (a request, client or member id), in its own index. */
export const auditOfKey = (
  target: string,
  atMs: number,
  entryId: string,
): Deno.KvKey => ["staff_audit_of", target, atMs, entryId];
/** The entries of the actions on `target`, oldest first. */
export const auditOf = (target: string): Deno.KvListSelector => ({
  prefix: ["staff_audit_of", target],
});
