/**
 * @module
 * `retryLocked`: a call retried while a SQLite file is locked by another process (how
 * `Store` makes every call, store.ts, and how a list is read whole).
 */

const _LOCKED = /database is (locked|busy)/i;

/**
 * Runs one KV call, retrying while SQLite reports the file locked by another process
 * (several instances or the review CLI on one KV file): Deno KV's SQLite backend
 * throws at once instead of waiting for the lock. Gives up after a few seconds. A store
 * that did not answer in time (deadline.ts) is not retried here.
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
