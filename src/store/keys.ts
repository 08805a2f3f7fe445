/**
 * @module
 * The one table of every KV key the service writes. Each key is built by the store module
 * that reads and writes its record; this module re-exports them all, so the whole
 * key space can be read in one place and tests can inspect the store without building
 * keys themselves.
 *
 * | key                                           | module            |
 * | --------------------------------------------- | ----------------- |
 * | `["clients", client_id]`                      | credentials.ts    |
 * | `["tokens", sha256(token)]`                   | credentials.ts    |
 * | `["revocations"]`                             | credentials.ts    |
 * | `["rate", window, bucket, address]`           | rate_counters.ts  |
 * | `["submissions", request_id]`                 | submissions.ts    |
 * | `["submission_payloads", request_id, n]`      | submissions.ts    |
 * | `["idempotency", endpoint, address, key]`     | submissions.ts    |
 * | `["submission_idempotency", request_id]`      | submissions.ts    |
 * | `["review_outbox", request_id]`               | outbox.ts (1)     |
 * | `["review_due", next_attempt_at, request_id]` | outbox.ts (1)     |
 * | `["review_new", created_ms, request_id]`      | outbox.ts (1)     |
 * | `["migrations", "outbox_due_index"]`          | outbox.ts         |
 * | `["submissions_by_time", created_ms, id]`     | submission_index.ts (2) |
 * | `["submissions_decided", decided_ms, id]`     | submission_index.ts (2) |
 * | `["submissions_by_email", email_hash, id]`    | submission_index.ts (2) |
 * | `["email_index_key"]`                         | submission_index.ts |
 * | `["migrations", "submission_indexes"]`        | submission_index.ts |
 * | `["health"]` (read only, never written)       | open.ts           |
 *
 * (1) Built there; submissions.ts also writes and deletes them in the commits that touch
 * a submission too.
 * (2) Written and deleted by submissions.ts, in the same commit as the submission.
 */

export { clientKey, revocationKey, tokenKey } from "./credentials.ts";
export { rateKey } from "./rate_counters.ts";
export {
  idempotencyPointerKey,
  idempotencyRecordKey,
  payloadKey,
  submissionKey,
} from "./submissions.ts";
export { dueKey, newNoticeKey, outboxKey } from "./outbox.ts";
export {
  decidedIndexKey,
  emailIndexKey,
  INDEX_MIGRATION_KEY,
  timeIndexKey,
} from "./submission_index.ts";
