/**
 * @module
 * What every staff CLI command receives, and the refusal that exits 1.
 */

/** The store, the clock and the two output streams of one CLI run. */
export interface ReviewIo {
  kv: Deno.Kv;
  now: () => number;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Which store was opened, in words (a path, or the default file), for `list`. */
  store?: string;
}

/** A refusal that is not a usage error (unknown id, already decided): exit 1. */
export class ReviewError extends Error {}
