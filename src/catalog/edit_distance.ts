/**
 * @module
 * How many slips of spelling apart two names are, counted one way for every suggestion the
 * service makes: a service (`rakc and stack`), a place (`Lodnon`) and an argument's name
 * (`enigneer_count`). A slip is a letter added, dropped or changed, or two neighbours swapped
 * (restricted Damerau–Levenshtein, "optimal string alignment"). Each caller says how many
 * slips it accepts, and the count stops there, so a long or hostile name costs its length
 * times that bound, not its length squared.
 */

/**
 * The slips between `a` and `b` when they are at most `max`, else undefined. Only the cells
 * within `max` of the diagonal are worked out (any other is more than `max` slips), and it
 * stops at the first row where every cell is over `max`: O(length × max).
 */
export function editDistance(a: string, b: string, max: number): number | undefined {
  if (Math.abs(a.length - b.length) > max) return undefined;
  const over = max + 1;
  // Three rows of the table, reused: rows i - 2 and i - 1, and row i being filled. Each row
  // writes its band and one `over` cell either side, which is all the next two rows read.
  let before: number[] = new Array(b.length + 1).fill(over);
  let row: number[] = new Array(b.length + 1).fill(over);
  let next: number[] = new Array(b.length + 1).fill(over);
  for (let j = 0; j <= Math.min(max, b.length); j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(b.length, i + max);
    next[lo - 1] = lo === 1 ? i : over;
    let least = next[lo - 1]!;
    for (let j = lo; j <= hi; j++) {
      let d = Math.min(
        row[j]! + 1,
        next[j - 1]! + 1,
        row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, before[j - 2]! + 1);
      }
      next[j] = d < over ? d : over;
      if (d < least) least = d;
    }
    if (hi < b.length) next[hi + 1] = over;
    if (least > max) return undefined;
    const done = before;
    before = row;
    row = next;
    next = done;
  }
  const d = row[b.length]!;
  return d <= max ? d : undefined;
}
