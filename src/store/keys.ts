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
 * | `["health"]` (read only, never written)       | open.ts           |
 *
 * (1) Built there; submissions.ts also writes and deletes them in the commits that touch
 * a submission too.
 */

export { clientKey, revocationKey, tokenKey } from "./credentials.ts";
export { rateKey } from "./rate_counters.ts";
export {
  idempotencyPointerKey,
  idempotencyRecordKey,
  payloadKey,
  submissionKey,
} from "./submissions.ts";
export { dueKey, outboxKey } from "./outbox.ts";
