/**
 * @module
 * The log sink: one JSON line per record on stdout, written in batches, and the short
 * form of an error that a log line carries.
 */

/** A structured log sink; receives one JSON-serialisable record per call. */
export type Logger = (record: Record<string, unknown>) => void;

/** The longest {@linkcode reason}, in UTF-16 code units (a review notice stores one). */
export const REASON_MAX_CHARS = 200;

/** An error as one short log field: the first line of its message, at most 200 characters. */
export function reason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n", 1)[0]!
    .slice(0, REASON_MAX_CHARS);
}

const _utf8 = new TextEncoder();

/**
 * One JSON line per record on `out` (stdout), written in batches: the lines of one
 * event-loop turn go out in one write. `console.log`, or a write per request, cost
 * more than serving a catalog read. Warnings and errors are written at once; on a
 * crash only the info lines of the current turn can be lost.
 */
export function createJsonLineLogger(
  out: { writeSync(p: Uint8Array): number } = Deno.stdout,
): Logger {
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!pending) return;
    const bytes = _utf8.encode(pending);
    pending = "";
    for (let n = 0; n < bytes.length;) n += out.writeSync(bytes.subarray(n));
  };
  return (record) => {
    pending += JSON.stringify(record) + "\n";
    if (record.level !== "info" || pending.length >= 64 * 1024) flush();
    else timer ??= setTimeout(flush, 0);
  };
}
