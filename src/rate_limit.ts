/**
 * @module
 * Fixed-window rate limits per client address, counted in KV so that every
 * instance sharing the store shares the count. Headers follow the IETF httpapi
 * RateLimit draft (draft-ietf-httpapi-ratelimit-headers).
 */

import type { Context } from "./context.ts";
import { HttpError } from "./http.ts";
import { countRequest } from "./kv.ts";

const WINDOW_MS = 60_000;

/**
 * Counts this request against `bucket` and throws 429 once `limit` requests
 * arrived from the same address in the current minute. `limit` 0 switches it off.
 */
export async function enforceRateLimit(ctx: Context, bucket: string, limit: number): Promise<void> {
  if (limit <= 0) return;
  const now = ctx.now();
  const window = Math.floor(now / WINDOW_MS);
  const count = await countRequest(ctx.kv, bucket, ctx.address, window, 2 * WINDOW_MS);
  const reset = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
  const remaining = Math.max(0, limit - count);
  ctx.headers.set("RateLimit-Policy", `"${bucket}";q=${limit};w=${WINDOW_MS / 1000}`);
  ctx.headers.set("RateLimit", `"${bucket}";r=${remaining};t=${reset}`);
  if (count > limit) {
    // RFC 6585 §4: 429 Too Many Requests, with Retry-After (RFC 9110 §10.2.3).
    throw new HttpError(
      429,
      "rate_limited",
      `too many requests: at most ${limit} per minute from one address; retry in ${reset} s`,
      { headers: { "Retry-After": String(reset) } },
    );
  }
}
