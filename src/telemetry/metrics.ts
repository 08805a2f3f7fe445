/**
 * @module
 * The service's OpenTelemetry instruments and spans, through `@opentelemetry/api`. With
 * `OTEL_DENO=true` the Deno runtime exports them over OTLP; without it the API hands out
 * no-op instruments and every call here costs a function call (docs/operations.md,
 * "Observability"). A shared layer like `http/` and `store/`: it imports nothing of ours.
 *
 * Every attribute value recorded here comes from a fixed set the service defines (a route
 * pattern, a bucket name, a kind, a status code), never from what a caller typed: no path
 * as asked, no query, no token, secret, email or other personal data. The instruments
 * are the API's own objects, created once per process as the OpenTelemetry API intends;
 * they hold no KV, clock or config.
 */

import { type Attributes, metrics, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

const meter = metrics.getMeter("dcfs");
const tracer = trace.getTracer("dcfs");

const requests = meter.createCounter("dcfs.http.requests", {
  description: "Requests answered, by route pattern, method and status",
  unit: "{request}",
});
const requestDuration = meter.createHistogram("dcfs.http.request.duration", {
  description: "Time from a request's arrival to its answer, by route pattern and method",
  unit: "s",
});
const tokens = meter.createCounter("dcfs.oauth.tokens", {
  description: "Access tokens issued and revoked",
  unit: "{token}",
});
const clients = meter.createCounter("dcfs.oauth.clients.registered", {
  description: "Agent clients registered",
  unit: "{client}",
});
const submissions = meter.createCounter("dcfs.submissions.accepted", {
  description: "Submissions stored for review (not replays), by kind and channel",
  unit: "{submission}",
});
const refusals = meter.createCounter("dcfs.refusals", {
  description: "Requests refused by a limit: 429 by bucket, 503 overloaded, 403 origin",
  unit: "{request}",
});
const commitDuration = meter.createHistogram("dcfs.kv.commit.duration", {
  description: "Duration of a group commit to Deno KV",
  unit: "s",
});
const groupSize = meter.createHistogram("dcfs.kv.commit.group_size", {
  description: "Writes carried by one group commit",
  unit: "{write}",
  advice: { explicitBucketBoundaries: [1, 2, 4, 8, 16, 32, 64, 128] },
});
const storeUnavailable = meter.createCounter("dcfs.kv.unavailable", {
  description:
    "Store calls failed with 503: a deadline missed, or refused at once while the breaker was open",
  unit: "{call}",
});
const cacheLookups = meter.createCounter("dcfs.cache.lookups", {
  description: "Token and client cache lookups, by kind and result (hit or miss)",
  unit: "{lookup}",
});
const passes = meter.createCounter("dcfs.background.runs", {
  description: "Background passes run (notices, retention), by outcome",
  unit: "{run}",
});
const removed = meter.createCounter("dcfs.background.removed", {
  description:
    "What scheduled passes removed or sent: erased submissions, notices sent by the notices job",
  unit: "{item}",
});
const demandDropped = meter.createCounter("dcfs.demand.dropped", {
  description: "Requests read as outside coverage and not counted, by reason: full (the " +
    "pending bound) or failed (a batch the store did not take)",
  unit: "{request}",
});
const noticesSent = meter.createCounter("dcfs.review.notices.sent", {
  description: "Review notice attempts by outcome: sent (webhook or log) or failed (retried later)",
  unit: "{notice}",
});
const noticesWaiting = meter.createObservableGauge("dcfs.review.notices.waiting", {
  description: "Review notices not yet sent (counted up to 10,000)",
  unit: "{notice}",
});
const oldestNotice = meter.createObservableGauge("dcfs.review.notices.oldest_age", {
  description: "Age of the oldest review notice not yet sent; 0 when none waits",
  unit: "s",
});

/** The kinds of refusal counted by {@linkcode countRefusal}. */
type Refusal = "rate_limited" | "overloaded" | "forbidden_origin";

/** A route as the service names it in telemetry: `/api/v1/requests/{request_id}`. */
function routeName(pattern: string): string {
  let name = _routeNames.get(pattern);
  if (name === undefined) {
    name = pattern.replace(/:([A-Za-z_]\w*)/g, "{$1}");
    // The route table's patterns and a few fixed names: a small, closed set.
    if (_routeNames.size < 1_000) _routeNames.set(pattern, name);
  }
  return name;
}
const _routeNames = new Map<string, string>();

/**
 * Names the runtime's span of this request by its route, as OpenTelemetry's HTTP
 * conventions ask (`POST /oauth2/token`), and records the request's metrics. `span` is
 * the span active when the request arrived (none when telemetry is off).
 */
export function endRequest(
  span: Span | undefined,
  request: { method: string; route: string; status: number; seconds: number; requestId: string },
): void {
  const route = routeName(request.route);
  const attributes = {
    "http.route": route,
    "http.request.method": request.method,
    "http.response.status_code": request.status,
  };
  requests.add(1, attributes);
  requestDuration.record(request.seconds, {
    "http.route": route,
    "http.request.method": request.method,
  });
  if (!span) return;
  span.updateName(`${request.method} ${route}`);
  span.setAttributes({ "http.route": route, "dcfs.request_id": request.requestId });
}

/** The span of the request being handled now, if telemetry is on. */
export function activeSpan(): Span | undefined {
  return trace.getActiveSpan();
}

export function countRefusal(reason: Refusal, bucket?: string): void {
  refusals.add(1, bucket ? { reason, bucket } : { reason });
}

export function countToken(event: "issued" | "revoked"): void {
  tokens.add(1, { event });
}

export function countClientRegistered(): void {
  clients.add(1);
}

export function countSubmission(kind: "lead" | "quote", channel: "web" | "api" | "mcp"): void {
  submissions.add(1, { kind, channel });
}

/** One group commit: how long it took, how many writes it carried, and whether it held. */
export function recordCommit(seconds: number, writes: number, ok: boolean): void {
  const outcome = ok ? "ok" : "failed";
  commitDuration.record(seconds, { outcome });
  groupSize.record(writes, { outcome });
}

/** A store call that failed with 503: it missed its deadline, or the breaker was open. */
export function countStoreUnavailable(reason: "deadline" | "breaker"): void {
  storeUnavailable.add(1, { reason });
}

export function countNotice(outcome: "sent" | "failed"): void {
  noticesSent.add(1, { outcome });
}

/** Requests whose place outside coverage was not counted (catalog/demand.ts). */
export function countDemandDropped(reason: "full" | "failed", n = 1): void {
  demandDropped.add(n, { reason });
}

export function countCacheLookup(kind: "token" | "client", hit: boolean): void {
  cacheLookups.add(1, { kind, result: hit ? "hit" : "miss" });
}

/** The review notice backlog as the two notice gauges report it. */
interface Backlog {
  waiting: number;
  oldestAgeS: number;
}

/** How often the backlog is read again for the gauges, at most. */
const BACKLOG_REFRESH_MS = 10_000;

/**
 * Reports the backlog through the two notice gauges until the returned function is
 * called. `read` runs only when metrics are exported (never with telemetry off), at most
 * every {@linkcode BACKLOG_REFRESH_MS} and one at a time; each export reports the last
 * value read, so a figure lags by up to one export interval. `read` handles its own
 * failures (the notifier logs them) and returns null then.
 */
export function watchNoticeBacklog(read: () => Promise<Backlog | null>): () => void {
  let last: Backlog = { waiting: 0, oldestAgeS: 0 };
  let readAt = -Infinity;
  let reading = false;
  const refresh = () => {
    if (reading || performance.now() - readAt < BACKLOG_REFRESH_MS) return;
    reading = true;
    readAt = performance.now();
    read().then((b) => {
      if (b) last = b;
    }).finally(() => reading = false);
  };
  const waiting = (result: { observe(value: number): void }) => {
    refresh();
    result.observe(last.waiting);
  };
  const oldest = (result: { observe(value: number): void }) => result.observe(last.oldestAgeS);
  noticesWaiting.addCallback(waiting);
  oldestNotice.addCallback(oldest);
  return () => {
    noticesWaiting.removeCallback(waiting);
    oldestNotice.removeCallback(oldest);
  };
}

/** The background passes, by the name their spans and metrics carry. */
export type Pass = "review_notices" | "retention";

/**
 * Runs a background pass as a span of its own (`dcfs retention`), counting the run and
 * what it removed or sent; `fn` returns that number. A failure is recorded on the span
 * (its message only: errors here name no caller data) and thrown on.
 */
export async function inPass(pass: Pass, fn: () => Promise<number>): Promise<number> {
  return await tracer.startActiveSpan(`dcfs ${pass}`, async (span) => {
    try {
      const n = await fn();
      span.setAttribute("dcfs.removed", n);
      passes.add(1, { pass, outcome: "ok" });
      if (n) removed.add(n, { pass });
      return n;
    } catch (err) {
      passes.add(1, { pass, outcome: "failed" });
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? "Error" });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn` inside a span named `name`, with `attributes` (fixed values only), so that
 * what it does (a webhook's `fetch`) is a child of it.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return await tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? "Error" });
      throw err;
    } finally {
      span.end();
    }
  });
}
