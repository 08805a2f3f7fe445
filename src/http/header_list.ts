/**
 * @module
 * The first entries of a list header (RFC 9110 §5.6.1: `Accept-Encoding`, `If-None-Match`;
 * `Cookie`'s pairs), read at a bounded cost. Deno takes request headers of about 58 KB,
 * some 10,000 entries: reading each one cost a request about a millisecond of the event
 * loop on every route that looks at the header. Here at most a fixed number of entries,
 * within a fixed number of characters, is read, whatever the header holds; each caller says
 * what an entry past the bound means (nothing: its header's default answer).
 */

/** How much of a list header is read: at most `entries` entries, within its first `chars`. */
export interface ListBound {
  entries: number;
  chars: number;
}

/**
 * The entries of `value` split at `separator`, at most `bound.entries` of them and only those
 * that end within the first `bound.chars` characters: an entry cut at the bound is left out,
 * so `gzip;q=0.5` is never read as `gzip;q=0`. Entries are as written (not trimmed).
 */
export function listEntries(value: string | null, separator: string, bound: ListBound): string[] {
  if (!value) return [];
  let head = value;
  if (value.length > bound.chars) {
    const end = value.lastIndexOf(separator, bound.chars);
    if (end < 0) return [];
    head = value.slice(0, end);
  }
  return head.split(separator, bound.entries);
}
