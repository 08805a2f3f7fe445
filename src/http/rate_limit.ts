/**
 * @module
 * Fixed-window rate limits per client address, counted in KV so that every
 * instance sharing the store shares the count. Headers follow the IETF httpapi
 * RateLimit draft (draft-ietf-httpapi-ratelimit-headers).
 */

import { countRefusal } from "../telemetry/metrics.ts";
import { HttpError } from "./errors.ts";
import { countRequest, sweepRateWindows } from "../store/rate_counters.ts";
import { MINUTE_MS } from "../time.ts";

/** Length of one rate-limit window. */
export const WINDOW_MS = MINUTE_MS;

/** Counts requests per key; one per handler, so tests and instances each have their own. */
export interface RateCounter {
  count(bucket: string, address: string, window: number): Promise<number>;
  /**
   * True when this instance already counted `bucket` and `address` past `limit` in
   * `window`: a request then is refused from memory, with no store write and no wait in
   * the group queue. A count only grows within a window, so this never refuses one that
   * counting would admit; another instance learns it at its own first refusal.
   */
  isOver(bucket: string, address: string, window: number, limit: number): boolean;
  /** Notes that a count came back past `limit`. */
  markOver(bucket: string, address: string, window: number, limit: number): void;
}

/** Bucket and address pairs remembered as over their limit, per instance, at most. */
const OVER_LIMIT_ENTRIES = 100_000;

/**
 * Increments of the same counter are queued inside this instance, so each request
 * reads back exactly its own position: a burst from one address admits exactly the
 * limit. Between instances the count read back can include another instance's later
 * increment, so at the boundary a request may be refused early: never more than the
 * limit is admitted, at worst one fewer per other instance racing for the last places.
 */
export function createRateCounter(kv: Deno.Kv): RateCounter {
  const queues = new Map<string, Promise<unknown>>();
  // "window bucket address" → the limit it was counted past, for the current window only.
  let over = new Map<string, number>();
  let overWindow = -1;
  const overKey = (bucket: string, address: string) => `${bucket}\u0000${address}`;
  return {
    isOver(bucket, address, window, limit) {
      if (window !== overWindow) return false;
      const past = over.get(overKey(bucket, address));
      return past !== undefined && past <= limit;
    },
    markOver(bucket, address, window, limit) {
      if (window !== overWindow) {
        over = new Map();
        overWindow = window;
      }
      // Bounded: past the cap, callers are counted in the store as before.
      if (over.size < OVER_LIMIT_ENTRIES) over.set(overKey(bucket, address), limit);
    },
    count(bucket, address, window) {
      const id = JSON.stringify([window, bucket, address]);
      const run = (queues.get(id) ?? Promise.resolve()).then(() =>
        countRequest(kv, bucket, address, window)
      );
      const settled = run.catch(() => {});
      queues.set(id, settled);
      settled.then(() => queues.get(id) === settled && queues.delete(id));
      return run;
    },
  };
}

/**
 * Removes the counters of finished windows (ops/background.ts runs this every minute),
 * pausing between pages with `pause`, which may reject to stop.
 */
export function sweepRateLimits(
  kv: Deno.Kv,
  now: number,
  pause?: () => Promise<void>,
): Promise<number> {
  return sweepRateWindows(kv, Math.floor(now / WINDOW_MS), pause);
}

/** What a rate limit needs of a request (a part of the request `Context`). */
interface RateContext {
  readonly now: () => number;
  /** The caller's address, the per-address key. */
  readonly address: string;
  readonly rateCounter: RateCounter;
  /** Headers added to the final response (the RateLimit fields). */
  readonly headers: Map<string, string>;
}

/**
 * Counts this request against `bucket` and throws 429 once `limit` requests
 * arrived from the same address (or, with `global`, from anyone) in the current
 * minute. `limit` 0 switches it off.
 */
export async function enforceRateLimit(
  ctx: RateContext,
  bucket: string,
  limit: number,
  options: { global?: boolean } = {},
): Promise<void> {
  if (limit <= 0) return;
  const now = ctx.now();
  const window = Math.floor(now / WINDOW_MS);
  const address = options.global ? "*" : ctx.address;
  const reset = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
  // Already over in this window: refused from memory, at no store cost.
  const known = ctx.rateCounter.isOver(bucket, address, window, limit);
  const count = known ? limit + 1 : await ctx.rateCounter.count(bucket, address, window);
  if (!known && count > limit) ctx.rateCounter.markOver(bucket, address, window, limit);
  // The headers describe the caller's own budget; a global limit shows only when it is
  // what refused the request, replacing the per-address figures that still had room.
  if (!options.global || count > limit) {
    const remaining = Math.max(0, limit - count);
    ctx.headers.set("RateLimit-Policy", `"${bucket}";q=${limit};w=${WINDOW_MS / 1000}`);
    ctx.headers.set("RateLimit", `"${bucket}";r=${remaining};t=${reset}`);
  }
  if (count > limit) {
    // RFC 6585 §4: 429 Too Many Requests, with Retry-After (RFC 9110 §10.2.3).
    countRefusal("rate_limited", bucket);
    const who = options.global ? "from all callers together" : "from one address";
    throw new HttpError(
      429,
      "rate_limited",
      `too many requests: at most ${limit} per minute ${who}; retry in ${reset} s`,
      { headers: { "Retry-After": String(reset) } },
    );
  }
}
