/**
 * The one count of spelling slips behind every suggestion (services, places, argument
 * names): a swap of two neighbours is one slip, and the count stops at the caller's bound.
 */

import assert from "node:assert/strict";
import { editDistance } from "../../src/catalog/edit_distance.ts";

/** The whole table, unbounded: what the bounded count must agree with. */
function fullDistance(a: string, b: string): number {
  const d = Array.from(
    { length: a.length + 1 },
    (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i === 0 ? j : j === 0 ? i : 0),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!, up = d[i - 1]!;
      row[j] = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

Deno.test("editDistance counts a letter added, dropped, changed or two neighbours swapped as one slip", async (t) => {
  const rows: [string, string, number, number | undefined][] = [
    ["frankfurt", "frankfurt", 0, 0],
    ["frnakfurt", "frankfurt", 1, 1],
    ["lodnon", "london", 1, 1],
    ["rakcandstack", "rackandstack", 1, 1],
    ["enigneercount", "engineercount", 2, 1],
    ["londom", "london", 1, 1],
    ["londn", "london", 1, 1],
    ["londonn", "london", 1, 1],
    ["remtoehnads", "remotehands", 3, 2],
    // The letters of a swap are not edited again: "ca" → "ac" → "abc" is three slips here.
    ["ca", "abc", 2, undefined],
    ["ca", "abc", 3, 3],
    ["lodnon", "london", 0, undefined],
    ["teleportation", "rackandstack", 4, undefined],
    ["", "abc", 3, 3],
    ["abc", "", 2, undefined],
  ];
  for (const [a, b, max, slips] of rows) {
    await t.step(`${a || '""'} and ${b || '""'} within ${max}: ${slips}`, () => {
      assert.equal(editDistance(a, b, max), slips);
      assert.equal(editDistance(b, a, max), slips, "either way round");
    });
  }
});

Deno.test("editDistance agrees with the whole table wherever it is within the bound", () => {
  let seed = 37;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () =>
    Array.from({ length: Math.floor(random() * 9) }, () => "abcd"[Math.floor(random() * 4)])
      .join("");
  for (let n = 0; n < 5_000; n++) {
    const a = word(), b = word(), max = Math.floor(random() * 5);
    const full = fullDistance(a, b);
    assert.equal(editDistance(a, b, max), full <= max ? full : undefined, `${a} ${b} ${max}`);
  }
});

Deno.test("editDistance costs a long name its length times the bound, not its length squared", () => {
  // 200,000 letters each: the whole table would be 4·10¹⁰ cells; the band is 1.4 million.
  const long = "ab".repeat(100_000);
  const started = performance.now();
  assert.equal(editDistance(long, `ba${long.slice(2, -1)}a`, 3), 2, "a swap and a change");
  assert.equal(editDistance(long, "ba".repeat(100_000), 1), undefined, "two slips");
  assert.equal(editDistance(long, "c".repeat(200_000), 3), undefined, "stops at row 4");
  assert.ok(performance.now() - started < 2_000, `${performance.now() - started} ms`);
});
