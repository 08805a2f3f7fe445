/**
 * @module
 * Many entries without a whole-store read: `pagesOf`, a list read a page at a time, so
 * memory follows the page, not the store; `getEach`, many keys read in few round trips.
 */

import type { Kv } from "./store.ts";
import { KV_LIMITS } from "./limits.ts";

/**
 * The entries of `selector`, a page of `pageSize` at a time.
 */
export async function* pagesOf<T>(
  kv: Kv,
  selector: Deno.KvListSelector,
  pageSize: number,
  options: { reverse?: boolean } = {},
): AsyncGenerator<Deno.KvEntry<T>[]> {
  let cursor: string | undefined;
  while (true) {
    const iter = kv.list<T>(selector, { limit: pageSize, cursor, reverse: options.reverse });
    const page = await Array.fromAsync(iter);
    if (page.length) yield page;
    if (page.length < pageSize) return;
    cursor = iter.cursor;
  }
}

/** `getMany` calls made at once by {@linkcode getEach}: 100 keys a round trip. */
const _PARALLEL_READS = 10;

/**
 * Reads `keys`, in order, in `getMany` calls of at most {@linkcode KV_LIMITS}.getMany keys,
 * {@linkcode _PARALLEL_READS} at once: up to 100 keys
 * in one round trip, and no burst of calls however many keys there are.
 */
export async function getEach<T>(
  kv: Kv,
  keys: readonly Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const out: Deno.KvEntryMaybe<T>[] = [];
  const perTrip = KV_LIMITS.getMany * _PARALLEL_READS;
  for (let trip = 0; trip < keys.length; trip += perTrip) {
    const reads: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
    for (let i = trip; i < Math.min(trip + perTrip, keys.length); i += KV_LIMITS.getMany) {
      const some = keys.slice(i, i + KV_LIMITS.getMany);
      reads.push(kv.getMany<T[]>(some));
    }
    for (const entries of await Promise.all(reads)) out.push(...entries);
  }
  return out;
}
