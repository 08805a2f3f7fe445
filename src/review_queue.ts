/**
 * @module
 * The consumer of review notifications. Each accepted submission enqueues one
 * notice in the same atomic write as its record; this delivers it to
 * `REVIEW_WEBHOOK_URL` (retried by KV with backoff, `keysIfUndelivered` when KV
 * gives up) or, with no webhook, only logs the request id. Either way the record
 * is marked as notified. No free text of the submitter ever leaves the store here.
 */

import { createHmac } from "node:crypto";
import type { Config } from "./config.ts";
import type { Logger } from "./context.ts";
import { getSubmission, type ReviewNotice, type SubmissionRecord, updateSubmission } from "./kv.ts";

export interface NotifierDeps {
  kv: Deno.Kv;
  config: Config;
  now: () => number;
  log: Logger;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** Header carrying `sha256=<hex HMAC-SHA256 of the body>` when a webhook secret is set. */
export const SIGNATURE_HEADER = "X-DCFS-Signature-256";
const WEBHOOK_TIMEOUT_MS = 10_000;

/** Listens on the KV queue until the store is closed. */
export function startReviewNotifier(deps: NotifierDeps): Promise<void> {
  return deps.kv.listenQueue((msg) => deliverReviewNotice(deps, msg));
}

/** Handles one queue message; throwing makes KV retry it on its backoff schedule. */
export async function deliverReviewNotice(deps: NotifierDeps, msg: unknown): Promise<void> {
  if (!_isReviewNotice(msg)) {
    deps.log({ level: "warn", msg: "unknown queue message ignored" });
    return;
  }
  const { request_id } = msg;
  const entry = await getSubmission(deps.kv, request_id);
  if (!entry.value) {
    deps.log({
      level: "warn",
      msg: "review notice for a missing submission",
      submission_id: request_id,
    });
    return;
  }
  // Delivery is at least once: a notice already handled is not sent again.
  if (entry.value.notified_at) return;

  let via = "log";
  if (deps.config.reviewWebhookUrl) {
    try {
      await _postWebhook(deps, entry.value);
    } catch (err) {
      deps.log({
        level: "warn",
        msg: "review webhook failed; KV will retry",
        submission_id: request_id,
        error: err instanceof Error ? err.message : "unknown",
      });
      throw err;
    }
    via = "webhook";
  }
  await _markNotified(deps, request_id);
  deps.log({ level: "info", msg: "submission queued for review", submission_id: request_id, via });
}

/** The webhook body: identifiers and catalog facts only, never the submitter's text. */
export function webhookBody(record: SubmissionRecord): Record<string, unknown> {
  return {
    type: "submission.pending_review",
    request_id: record.request_id,
    kind: record.kind,
    created_at: record.created_at,
    service_id: record.service_id,
    covered: record.covered,
    review_command: `deno task review show ${record.request_id}`,
  };
}

async function _postWebhook(deps: NotifierDeps, record: SubmissionRecord): Promise<void> {
  const body = JSON.stringify(webhookBody(record));
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "dcfs-review-notifier/1",
  };
  if (deps.config.reviewWebhookSecret) {
    const mac = createHmac("sha256", deps.config.reviewWebhookSecret).update(body).digest("hex");
    headers[SIGNATURE_HEADER] = `sha256=${mac}`;
  }
  const res = await (deps.fetch ?? fetch)(deps.config.reviewWebhookUrl!, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`webhook answered ${res.status}`);
}

async function _markNotified(deps: NotifierDeps, requestId: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await getSubmission(deps.kv, requestId);
    if (!entry.value || entry.value.notified_at) return;
    const next = { ...entry.value, notified_at: new Date(deps.now()).toISOString() };
    if (await updateSubmission(deps.kv, entry as Deno.KvEntry<SubmissionRecord>, next)) return;
  }
  throw new Error("could not mark the submission as notified");
}

function _isReviewNotice(msg: unknown): msg is ReviewNotice {
  const m = msg as Partial<ReviewNotice> | null;
  return m?.type === "review_notice" && typeof m.request_id === "string";
}
