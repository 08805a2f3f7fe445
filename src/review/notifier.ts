/**
 * @module
 * Sends the review notification of each accepted submission. The notice is written to an
 * outbox key in the same atomic commit as the submission. A pass reads the outbox in due
 * order (an index keyed by the next attempt time, so an entry that keeps failing moves
 * back and never starves the others), claims due entries with a versionstamp-checked
 * lease, POSTs them to `REVIEW_WEBHOOK_URL` (or, with no webhook, only logs the submission
 * id), then marks the record notified, and how, and removes the entry in one commit. Failures are
 * retried with backoff, indefinitely: a notification is never dropped. Delivery is at
 * least once. No free text of the submitter ever leaves the store here.
 *
 * Passes run in each process's loop, woken by each submission and asleep until the next
 * notice it knows is due, and on the schedule of ops/background.ts; the lease and clock
 * skew bound is {@linkcode MAX_CLOCK_SKEW_MS}'s (docs/architecture.md, "Background work").
 */

import type { Kv } from "../store/store.ts";
import { createHmac } from "node:crypto";
import type { Config } from "../config.ts";
import { type Logger, reason } from "../http/log.ts";
import {
  dropOutbox,
  getOutboxEntry,
  listDueOutbox,
  listNewOutbox,
  type OutboxEntry,
  updateOutbox,
} from "../store/outbox.ts";
import { completeOutbox, getSubmission } from "../store/submissions.ts";
import type { NotifiedVia, SubmissionRecord } from "../store/submissions.ts";
import { countNotice, inSpan, watchNoticeBacklog } from "../telemetry/metrics.ts";
import { noticeBacklog } from "./backlog.ts";
import { MINUTE_MS } from "../time.ts";

export interface NotifierDeps {
  kv: Kv;
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
/**
 * How long a claimed notice is left to the instance that claimed it, by that instance's
 * clock: another instance takes it over once its own clock passes the claim's time plus
 * this. The claimant is done with it well before (see {@linkcode MAX_CLOCK_SKEW_MS}).
 */
export const LEASE_MS = MINUTE_MS;
/**
 * How far apart two instances' clocks may be with every lease still holding. An instance
 * whose clock runs this far ahead of the claimant's takes a lease over this much early, so
 * the claimant ends its POST within {@linkcode LEASE_MS} − this − {@linkcode COMPLETE_RESERVE_MS}
 * of its claim, and leaves {@linkcode COMPLETE_RESERVE_MS} for the commits that mark it sent.
 */
export const MAX_CLOCK_SKEW_MS = 10_000;
/** Kept, after the POST, for the commits that mark the notice sent (about 2 to 12 round trips). */
const COMPLETE_RESERVE_MS = 10_000;
/** The POST ends this long after the claim at the latest: 40 s, by the claimant's clock. */
const SEND_BY_MS = LEASE_MS - MAX_CLOCK_SKEW_MS - COMPLETE_RESERVE_MS;
const WEBHOOK_TIMEOUT_MS = 10_000;
/**
 * How long an idle loop sleeps when it knows of no notice due sooner: a notice another
 * instance wrote and could not send is the schedule's (ops/background.ts) to find, so this
 * is only the loop's own safety net, under the 15 minutes after which `review notices`
 * and the backlog gauge call a notice stale.
 */
export const IDLE_MS = 10 * MINUTE_MS;
/** The wait after a pass failed (the store did not answer), doubled up to the idle sleep. */
const FAILED_PASS_MS = 1_000;
/** Due entries taken per pass, and how many of them are sent at once. */
const BATCH = 100;
const CONCURRENCY = 8;

interface ReviewNotifier {
  /**
   * Starts a pass now instead of at the planned wake (a submission was just stored);
   * during a pass, another follows it at once.
   */
  wake(): void;
  /**
   * Stops the loop and returns promptly: a webhook POST in flight is aborted and its notice
   * left under its lease, so that the next pass anywhere after the lease sends it again.
   * Nothing is marked sent that was not.
   */
  stop(): Promise<void>;
}

/** Waits `ms`, or less once `signal` aborts; tests inject one that moves a fake clock. */
type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * Runs the notifier loop until stopped. After each pass it sleeps until the earliest due
 * time it saw (a retry's backoff, a lease's end) or `idleMs`, whichever is sooner, and is
 * woken at once by {@linkcode ReviewNotifier.wake}; while a pass finds a full page of work
 * it goes straight on, so a backlog drains as fast as the webhook answers. An idle
 * instance thus reads the store once every `idleMs` (docs/performance.md, "What an idle
 * instance costs the store"); the schedule of ops/background.ts sends what a stopped
 * instance left behind.
 */
export function startReviewNotifier(
  deps: NotifierDeps,
  idleMs = IDLE_MS,
  sleep: Sleep = abortableSleep,
): ReviewNotifier {
  const stopping = new AbortController();
  let woken = false;
  let napping: AbortController | undefined;
  const unwatch = _watchBacklog(deps);
  const loop = (async () => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      woken = false;
      let wakeAt: number;
      try {
        // No span per pass (mostly empty): each notice sent has its own.
        const { next } = await _pass(deps, stopping.signal);
        failures = 0;
        wakeAt = Math.min(next ?? Infinity, deps.now() + idleMs);
      } catch (err) {
        if (stopping.signal.aborted) break;
        deps.log({ level: "warn", msg: "review outbox pass failed", error: reason(err) });
        wakeAt = deps.now() + Math.min(idleMs, FAILED_PASS_MS * 2 ** failures++);
      }
      const wait = wakeAt - deps.now();
      if (woken || stopping.signal.aborted || wait <= 0) continue;
      napping = new AbortController();
      await sleep(wait, napping.signal);
      napping = undefined;
    }
  })();
  const wake = () => {
    woken = true;
    napping?.abort();
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

/** Waits `ms`, or less once `signal` aborts (ops/background.ts rests between pages with it). */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });

/** The notice gauges read the backlog when metrics are exported, never otherwise. */
function _watchBacklog(deps: NotifierDeps): () => void {
  return watchNoticeBacklog(async () => {
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
}

/**
 * One pass: delivers the notices never tried yet, newest first (a new submission's notice
 * is not queued behind a backlog), then those due, earliest first, a few at a time.
 * Returns how many were delivered. After `signal` aborts, no further notice is started and
 * the POSTs in flight are aborted, their notices left under their lease.
 */
export async function sendNotices(deps: NotifierDeps, signal?: AbortSignal): Promise<number> {
  return (await _pass(deps, signal)).delivered;
}

/** What a pass did, and when the loop may next find work (null: nothing it knows of). */
interface PassResult {
  delivered: number;
  next: number | null;
}

async function _pass(deps: NotifierDeps, signal?: AbortSignal): Promise<PassResult> {
  const now = deps.now();
  const [fresh, page] = await Promise.all([
    listNewOutbox(deps.kv, BATCH),
    listDueOutbox(deps.kv, now, BATCH),
  ]);
  const seen = new Set(fresh.map((e) => e.value.request_id));
  const due = [...fresh, ...page.due.filter((e) => !seen.has(e.value.request_id))];
  let next = page.later ?? Infinity;
  let [delivered, taken, failed] = [0, 0, 0];
  const worker = async () => {
    // A stop takes no new notice, and aborts those in flight.
    while (taken < due.length && !signal?.aborted) {
      const entry = due[taken++]!;
      try {
        const outcome = await _deliver(deps, entry, signal);
        if (outcome === "sent") delivered++;
        else if (outcome !== null) next = Math.min(next, outcome);
      } catch (err) {
        // The lease runs out and the entry is tried again; the others go on meanwhile.
        failed++;
        next = Math.min(next, deps.now() + LEASE_MS);
        const msg = "review notice failed";
        deps.log({ level: "warn", msg, submission_id: entry.value.request_id, error: reason(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  // A full page: more may be due already, and the next pass starts at once (unless every
  // notice taken failed, which a store that does not answer would repeat at once).
  if ((page.full || fresh.length === BATCH) && !(failed && failed === taken)) next = now;
  return { delivered, next: Number.isFinite(next) ? next : null };
}

/**
 * Claims one notice and sends it. Returns "sent" once it is marked sent, the time it is
 * due again when it is left for later (a retry's backoff, or its lease), or null when it
 * is no longer this instance's to send (claimed elsewhere, erased, its submission gone).
 */
async function _deliver(
  deps: NotifierDeps,
  entry: Deno.KvEntry<OutboxEntry>,
  signal?: AbortSignal,
): Promise<"sent" | number | null> {
  const { request_id } = entry.value;
  const claimedAt = deps.now();
  // Claim: push next_attempt_at past a lease, so other instances skip it meanwhile.
  const claimed = await updateOutbox(deps.kv, entry, {
    ...entry.value,
    attempts: entry.value.attempts + 1,
    next_attempt_at: claimedAt + LEASE_MS,
  });
  if (!claimed) return null;
  const submission = await getSubmission(deps.kv, request_id);
  if (!submission.value) {
    await dropOutbox(deps.kv, claimed);
    const msg = "review notice for a missing submission";
    deps.log({ level: "warn", msg, submission_id: request_id });
    return null;
  }
  let via: NotifiedVia = "log";
  if (deps.config.reviewWebhookUrl) {
    const posted = await _sendWebhook(deps, claimed, submission.value, claimedAt, signal);
    if (posted !== "sent") return posted;
    via = "webhook";
  }
  countNotice("sent");
  return await _markSent(deps, claimed, submission, via) ? "sent" : null;
}

/**
 * POSTs the notice, ending by {@linkcode SEND_BY_MS} after the claim. Returns "sent" on a
 * 2xx; otherwise the time the notice is due again: after a failure, its backoff (written
 * here); after a stop, or with too little of the lease left to send it, its lease.
 */
async function _sendWebhook(
  deps: NotifierDeps,
  claimed: Deno.KvEntry<OutboxEntry>,
  record: SubmissionRecord,
  claimedAt: number,
  stop?: AbortSignal,
): Promise<"sent" | number | null> {
  const { request_id, attempts, next_attempt_at: leaseEnd } = claimed.value;
  const left = claimedAt + SEND_BY_MS - deps.now();
  if (left <= 0) {
    // The store took most of the lease: a POST now could outlast it and go out twice.
    deps.log({ level: "warn", msg: "review notice left to its lease", submission_id: request_id });
    return leaseEnd;
  }
  const timeout = AbortSignal.timeout(Math.min(WEBHOOK_TIMEOUT_MS, left));
  const signal = stop ? AbortSignal.any([stop, timeout]) : timeout;
  try {
    const attributes = { "dcfs.kind": record.kind, "dcfs.attempt": attempts };
    await inSpan("dcfs review webhook", attributes, () => _postWebhook(deps, record, signal));
    return "sent";
  } catch (err) {
    if (stop?.aborted) {
      deps.log({ level: "info", msg: "review notice cut by a stop", submission_id: request_id });
      return leaseEnd;
    }
    countNotice("failed");
    const wait = REVIEW_BACKOFF_MS[Math.min(attempts, REVIEW_BACKOFF_MS.length) - 1]!;
    const retryAt = deps.now() + wait;
    const moved = await updateOutbox(deps.kv, claimed, {
      ...claimed.value,
      next_attempt_at: retryAt,
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
    return moved ? retryAt : null;
  }
}

/**
 * Marks the submission notified and removes the notice, in one commit. A reviewer may
 * decide meanwhile: the record is read again until the commit holds. If the notice itself
 * changed (its lease was taken over, or the submission erased), it is no longer ours.
 */
async function _markSent(
  deps: NotifierDeps,
  claimed: Deno.KvEntry<OutboxEntry>,
  submission: Deno.KvEntryMaybe<SubmissionRecord>,
  via: NotifiedVia,
): Promise<boolean> {
  const { request_id } = claimed.value;
  const notifiedAt = new Date(deps.now()).toISOString();
  let record = submission;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!record.value) return false;
    const current = record as Deno.KvEntry<SubmissionRecord>;
    if (await completeOutbox(deps.kv, claimed, current, notifiedAt, via)) {
      const msg = "submission queued for review";
      deps.log({ level: "info", msg, submission_id: request_id, via });
      return true;
    }
    const notice = await getOutboxEntry(deps.kv, request_id);
    if (notice.versionstamp !== claimed.versionstamp) {
      // Past the lease: another instance took it over and sends it again, or it was erased.
      const msg = "review notice outlasted its lease";
      if (notice.value) deps.log({ level: "warn", msg, submission_id: request_id });
      return false;
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

async function _postWebhook(
  deps: NotifierDeps,
  record: SubmissionRecord,
  signal: AbortSignal,
): Promise<void> {
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
    signal,
  });
  // The answer is its status: an abort after it (a stop) no longer makes it a failure.
  await res.body?.cancel().catch(() => {});
  if (res.status < 200 || res.status > 299) throw new Error(`webhook answered ${res.status}`);
}
