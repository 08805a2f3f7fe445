/**
 * @module
 * Sends the review notification of each accepted submission. The notice is written
 * to an outbox key in the same atomic commit as the submission; every instance polls
 * the outbox in due order (an index keyed by the next attempt time, so an entry that
 * keeps failing moves back and never starves the others), claims due entries with a
 * versionstamp-checked lease, POSTs them to
 * `REVIEW_WEBHOOK_URL` (or, with no webhook, only logs the submission id), then marks
 * the record notified and removes the entry in one commit. Failures are retried with
 * backoff, indefinitely: a notification is never dropped. Delivery is at least once.
 * No free text of the submitter ever leaves the store here.
 */

import { createHmac } from "node:crypto";
import type { Config } from "../config.ts";
import { type Logger, reason } from "../http/log.ts";
import { indexOutbox } from "../store/migrations.ts";
import {
  dropOutbox,
  listDueOutbox,
  listNewOutbox,
  type OutboxEntry,
  updateOutbox,
} from "../store/outbox.ts";
import { completeOutbox, getSubmission, type SubmissionRecord } from "../store/submissions.ts";
import { countNotice, inSpan, watchNoticeBacklog } from "../telemetry/metrics.ts";
import { noticeBacklog } from "./backlog.ts";
import { MINUTE_MS } from "../time.ts";

export interface NotifierDeps {
  kv: Deno.Kv;
  config: Config;
  now: () => number;
  log: Logger;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/**
 * Header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` when a webhook
 * secret is set. Signing the time with the body lets a receiver refuse a captured
 * delivery replayed later (the scheme Stripe and others use); each attempt is signed anew.
 */
export const SIGNATURE_HEADER = "X-DCFS-Signature";

/** The {@linkcode SIGNATURE_HEADER} value for `body` sent at `unixSeconds`. */
export function signWebhook(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
/** Wait before the next attempt after the n-th failure; the last value repeats forever. */
export const REVIEW_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000];
/** How long a claimed entry is left to the instance that claimed it. */
const LEASE_MS = MINUTE_MS;
const WEBHOOK_TIMEOUT_MS = 10_000;
const POLL_MS = 1_000;
/** Due entries taken per pass, and how many of them are sent at once. */
const BATCH = 100;
const CONCURRENCY = 8;

interface ReviewNotifier {
  /**
   * Starts a pass now instead of at the next poll (a submission was just stored); during
   * a pass, another follows it at once.
   */
  wake(): void;
  /** Stops polling: the notices being sent are finished, no new one is started. */
  stop(): Promise<void>;
}

/**
 * Polls the outbox every second until stopped, and at once when woken; while a pass finds
 * a full batch of work it goes straight on, so a backlog drains as fast as the webhook
 * answers. This loop is what sends notices while the process is awake; the minute
 * schedule of ops/background.ts is what sends them on a host that stops idle processes.
 */
export function startReviewNotifier(deps: NotifierDeps, pollMs = POLL_MS): ReviewNotifier {
  const stopping = new AbortController();
  let woken = false;
  let sleeping: (() => void) | undefined;
  // The notice gauges read the backlog when metrics are exported, never otherwise.
  const unwatch = watchNoticeBacklog(async () => {
    try {
      const backlog = await noticeBacklog(deps.kv, deps.now());
      return {
        waiting: backlog.waiting,
        oldestAgeS: Math.round((backlog.oldestAgeMs ?? 0) / 1000),
      };
    } catch (err) {
      deps.log({ level: "warn", msg: "review notice backlog read failed", error: reason(err) });
      return null;
    }
  });
  const loop = (async () => {
    for (let pass = 0; !stopping.signal.aborted; pass++) {
      let busy = false;
      woken = false;
      try {
        // Entries of a version before the due index get their key, once per store.
        if (pass === 0) await indexOutbox(deps.kv);
        // No span per poll (one a second, mostly empty): each notice sent has its own.
        busy = (await sendNotices(deps, stopping.signal)) >= BATCH / 2;
      } catch (err) {
        deps.log({ level: "warn", msg: "review outbox pass failed", error: reason(err) });
      }
      if (busy || woken || stopping.signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        sleeping = () => (clearTimeout(timer), resolve());
      });
      sleeping = undefined;
    }
  })();
  const wake = () => {
    woken = true;
    sleeping?.();
  };
  return {
    wake,
    async stop() {
      stopping.abort();
      wake();
      await loop;
      unwatch();
    },
  };
}

/**
 * One pass: delivers the notices never tried yet, newest first (a new submission's notice
 * is not queued behind a backlog), then those due, earliest first, a few at a time.
 * Returns how many were delivered. After `signal` aborts, no further notice is started.
 */
export async function sendNotices(deps: NotifierDeps, signal?: AbortSignal): Promise<number> {
  const fresh = await listNewOutbox(deps.kv, BATCH);
  const seen = new Set(fresh.map((e) => e.value.request_id));
  const due = [
    ...fresh,
    ...(await listDueOutbox(deps.kv, deps.now(), BATCH)).due.filter((e) =>
      !seen.has(e.value.request_id)
    ),
  ];
  let delivered = 0;
  let next = 0;
  const worker = async () => {
    // A stop lets the notices being sent finish and takes no new one.
    while (next < due.length && !signal?.aborted) {
      const entry = due[next++]!;
      try {
        if (await _deliver(deps, entry)) delivered++;
      } catch (err) {
        // The lease runs out and the entry is tried again; the others go on meanwhile.
        deps.log({
          level: "warn",
          msg: "review notice failed",
          submission_id: entry.value.request_id,
          error: reason(err),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  return delivered;
}

async function _deliver(deps: NotifierDeps, entry: Deno.KvEntry<OutboxEntry>): Promise<boolean> {
  const { request_id } = entry.value;
  // Claim: push next_attempt_at past a lease, so other instances skip it meanwhile.
  const claimed = await updateOutbox(deps.kv, entry, {
    ...entry.value,
    attempts: entry.value.attempts + 1,
    next_attempt_at: deps.now() + LEASE_MS,
  });
  if (!claimed) return false;
  const submission = await getSubmission(deps.kv, request_id);
  if (!submission.value) {
    await dropOutbox(deps.kv, claimed);
    deps.log({
      level: "warn",
      msg: "review notice for a missing submission",
      submission_id: request_id,
    });
    return false;
  }

  let via = "log";
  if (deps.config.reviewWebhookUrl) {
    try {
      const attributes = {
        "dcfs.kind": submission.value.kind,
        "dcfs.attempt": claimed.value.attempts,
      };
      await inSpan("dcfs review webhook", attributes, () => _postWebhook(deps, submission.value!));
    } catch (err) {
      countNotice("failed");
      const attempts = claimed.value.attempts;
      const wait = REVIEW_BACKOFF_MS[Math.min(attempts, REVIEW_BACKOFF_MS.length) - 1]!;
      await updateOutbox(deps.kv, claimed, {
        ...claimed.value,
        next_attempt_at: deps.now() + wait,
        last_error: reason(err),
      });
      deps.log({
        level: "warn",
        msg: "review webhook failed; will retry",
        submission_id: request_id,
        attempts,
        retry_in_s: wait / 1000,
        error: reason(err),
      });
      return false;
    }
    via = "webhook";
  }
  countNotice("sent");

  const notifiedAt = new Date(deps.now()).toISOString();
  // A reviewer may decide meanwhile; re-read the record until the commit holds. If the
  // submission was erased meanwhile, its erasure removed the outbox entry too.
  let record: Deno.KvEntryMaybe<SubmissionRecord> = submission;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!record.value) return false;
    const current = record as Deno.KvEntry<SubmissionRecord>;
    if (await completeOutbox(deps.kv, claimed, current, notifiedAt)) {
      deps.log({
        level: "info",
        msg: "submission queued for review",
        submission_id: request_id,
        via,
      });
      return true;
    }
    record = await getSubmission(deps.kv, request_id);
  }
  throw new Error(`could not mark ${request_id} notified`);
}

/** The webhook body: identifiers and catalog facts only, never the submitter's text. */
export function webhookBody(record: SubmissionRecord): Record<string, unknown> {
  return {
    type: "submission.pending_review",
    request_id: record.request_id,
    kind: record.kind,
    urgency: record.urgency ?? null,
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
    const t = Math.floor(deps.now() / 1000);
    headers[SIGNATURE_HEADER] = signWebhook(deps.config.reviewWebhookSecret, t, body);
  }
  const res = await (deps.fetch ?? fetch)(deps.config.reviewWebhookUrl!, {
    method: "POST",
    headers,
    body,
    // A signed body is never re-sent to wherever a redirect points.
    redirect: "manual",
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (res.status < 200 || res.status > 299) throw new Error(`webhook answered ${res.status}`);
}
