/**
 * @module
 * Rate-limit counters: one `Deno.KvU64` per window, bucket and address.
 *
 * Keys:
 * - `["rate", window, bucket, address]` → request count, swept after its window
 */

import { finishedRateWindows, rateKey } from "./keys.ts";
import { retryLocked } from "./retry_locked.ts";

/** Keys deleted per commit by a sweep: half of KV's 1,000 mutations per atomic operation. */
const SWEEP_PAGE = 500;

/**
 * Counts one request in a fixed window and returns the count including it. `sum()` is
 * atomic and commutative, so no increment is ever lost and no write has to be retried,
 * on one instance or many; the count read back includes this request's own increment,
 * so no more than the limit is ever admitted. `sum()` takes no `expireIn`:
 * {@linkcode sweepRateWindows} removes finished windows.
 */
export async function countRequest(
  kv: Deno.Kv,
  bucket: string,
  address: string,
  window: number,
): Promise<number> {
  const key = rateKey(bucket, address, window);
  const res = await retryLocked(() => kv.atomic().sum(key, 1n).commit());
  if (!res.ok) throw new Error("rate counter commit failed");
  const entry = await retryLocked(() => kv.get<Deno.KvU64>(key));
  return Number(entry.value?.value ?? 1n);
}

/**
 * Deletes the counters of every window before `currentWindow`, however many there are,
 * a page at a time so that no atomic operation passes KV's mutation limit; returns how
 * many were deleted. Each page lists from the start of the range again: the keys of the
 * page before are gone, so nothing is skipped and nothing is read twice. It pauses
 * between pages, so requests are served while a large sweep runs (docs/performance.md,
 * "Cost as the store grows").
 */
export async function sweepRateWindows(
  kv: Deno.Kv,
  currentWindow: number,
  pause: () => Promise<void> = () => new Promise((r) => setTimeout(r, 0)),
): Promise<number> {
  let deleted = 0;
  while (true) {
    const page = await retryLocked(() =>
      Array.fromAsync(kv.list(finishedRateWindows(currentWindow), { limit: SWEEP_PAGE }))
    );
    if (page.length === 0) return deleted;
    const op = kv.atomic();
    for (const e of page) op.delete(e.key);
    await retryLocked(() => op.commit());
    deleted += page.length;
    await pause();
  }
}
