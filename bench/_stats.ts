/**
 * @module
 * Shared by the load scripts: the percentile of sorted samples, and a process's CPU time.
 */

/** The `p` quantile (0–1) of ascending `sorted` samples, nearest rank; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

/** CPU seconds a process has used so far, all its threads (Linux); NaN elsewhere. */
export async function cpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // After the command's closing parenthesis: field 3 (state) onwards; 14, 15 are utime, stime.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
/** USER_HZ: 100 on every Linux architecture Deno runs on. */
const CLOCK_TICKS = 100;
