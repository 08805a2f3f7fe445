/**
 * @module
 * How every store call is made: retried while a SQLite file is locked by another process,
 * and paged under KV's limit of 1,000 mutations per atomic operation; lists read a page
 * at a time.
 */

/** Keys deleted per commit by a sweep: half of KV's 1,000 mutations per atomic operation. */
export const SWEEP_PAGE = 500;

const _LOCKED = /database is (locked|busy)/i;

/**
 * Runs one KV call, retrying while SQLite reports the file locked by another process
 * (several instances or the review CLI on one KV file): Deno KV's SQLite backend
 * throws at once instead of waiting for the lock. Gives up after a few seconds.
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

/**
 * The entries of `selector`, a page of `pageSize` at a time: memory follows the page, not
 * the store, and each page's read is retried alone while a SQLite file is locked.
 */
export async function* pagesOf<T>(
  kv: Deno.Kv,
  selector: Deno.KvListSelector,
  pageSize: number,
  options: { reverse?: boolean } = {},
): AsyncGenerator<Deno.KvEntry<T>[]> {
  let cursor: string | undefined;
  while (true) {
    const iter = kv.list<T>(selector, { limit: pageSize, cursor, reverse: options.reverse });
    const page = await retryLocked(() => Array.fromAsync(iter));
    if (page.length) yield page;
    if (page.length < pageSize) return;
    cursor = iter.cursor;
  }
}
