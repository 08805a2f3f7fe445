/**
 * @module
 * `retryLocked`, how every store call is made: retried while a SQLite file is locked by
 * another process; `getEach`, many keys read in one round trip.
 */

import { KV_LIMITS } from "./limits.ts";

const _LOCKED = /database is (locked|busy)/i;

/**
 * Runs one KV call, retrying while SQLite reports the file locked by another process
 * (several instances or the review CLI on one KV file): Deno KV's SQLite backend
 * throws at once instead of waiting for the lock. Gives up after a few seconds. Each
 * attempt is a call of the store handed in, which puts it under its deadline
 * (deadline.ts); a store that did not answer in time is not retried here.
 */
export async function retryLocked<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 60 || !(err instanceof Error) || !_LOCKED.test(err.message)) throw err;
      await new Promise((r) => setTimeout(r, 1 + Math.random() * Math.min(attempt, 10) * 5));
    }
  }
}

/** `getMany` calls made at once by {@linkcode getEach}: 100 keys a round trip. */
const _PARALLEL_READS = 10;

/**
 * Reads `keys`, in order, in `getMany` calls of at most {@linkcode KV_LIMITS}.getMany keys,
 * {@linkcode _PARALLEL_READS} at once, each through {@linkcode retryLocked}: up to 100 keys
 * in one round trip, and no burst of calls however many keys there are.
 */
export async function getEach<T>(
  kv: Deno.Kv,
  keys: readonly Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const out: Deno.KvEntryMaybe<T>[] = [];
  const perTrip = KV_LIMITS.getMany * _PARALLEL_READS;
  for (let trip = 0; trip < keys.length; trip += perTrip) {
    const reads: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
    for (let i = trip; i < Math.min(trip + perTrip, keys.length); i += KV_LIMITS.getMany) {
      const some = keys.slice(i, i + KV_LIMITS.getMany);
      reads.push(retryLocked(() => kv.getMany<T[]>(some)));
    }
    for (const entries of await Promise.all(reads)) out.push(...entries);
  }
  return out;
}
