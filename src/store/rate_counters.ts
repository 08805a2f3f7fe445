/**
 * @module
 * The rate-limit counter record (http/rate_limit.ts decides what to count): a plain number
 * per window, bucket and address, read eventually and written only by check-and-set, with
 * `expireIn` so that nothing has to sweep it.
 *
 * Keys (keys.ts):
 * - `["rate_counters", window, bucket, address]` → requests counted, until the end of the
 *   window after its own
 */

import type { Atomic, Kv } from "./store.ts";
import { MINUTE_MS } from "../time.ts";

/** Length of one rate-limit window. */
export const WINDOW_MS = MINUTE_MS;

/**
 * Reads counters in one call. Eventual consistency is enough: every count is committed
 * against the versionstamp read, and a stale read only fails that check.
 */
export function readCounters(
  kv: Kv,
  keys: readonly Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<number>[]> {
  return kv.getMany<number[]>(keys, { consistency: "eventual" });
}

/**
 * Adds one to the counter `key` of `window` in `op`, checked against the state it was seen
 * in. It lives to the end of the window after its own: an instance whose clock is up to a
 * minute behind still finds it, and nothing has to sweep it.
 */
export function countIn(
  op: Atomic,
  key: Deno.KvKey,
  seen: { n: number; versionstamp: string | null },
  window: number,
  now: number,
): void {
  const expireIn = Math.max(WINDOW_MS, (window + 2) * WINDOW_MS - now);
  op.check({ key, versionstamp: seen.versionstamp }).set(key, seen.n + 1, { expireIn });
}
