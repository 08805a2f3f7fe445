/**
 * @module
 * Shared by the load scripts: the percentile of sorted samples.
 */

/** The `p` quantile (0–1) of ascending `sorted` samples, nearest rank; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}
