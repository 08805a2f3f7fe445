/**
 * @module
 * `pagesOf`: a list read a page at a time, so memory follows the page, not the store.
 */

import { retryLocked } from "./retry_locked.ts";

/**
 * The entries of `selector`, a page of `pageSize` at a time; each page's read is retried
 * alone while a SQLite file is locked.
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
