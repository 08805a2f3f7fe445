/**
 * @module
 * Text from the store made safe for a staff terminal. Submitted text can hold control
 * and format characters: C1 controls such as U+009B (CSI) and U+009D (OSC) drive the
 * terminal, bidi overrides such as U+202E make text read backwards, and U+2028 breaks
 * lines. Every such character is shown as its `\uXXXX` escape, which also keeps JSON
 * output valid JSON. Tables are printed with fixed column widths ({@linkcode tableRow}).
 */

// Cc: C0 and C1 controls. Cf: format characters (bidi controls, zero-width, tags).
// Zl/Zp/Zs: line, paragraph and space separators (all but the plain space, so U+00A0
// and U+3000 cannot pass for it). Cs: lone surrogates. Cn: unassigned. Co: private use.
// Default_Ignorable_Code_Point and U+2800 (braille blank): what a terminal draws as
// nothing, with which a key such as `email\u034F` would look like `email`.
const _UNSAFE =
  /[[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Cs}\p{Cn}\p{Co}\p{Default_Ignorable_Code_Point}\u2800]--[ ]]/gv;
const _UNSAFE_BUT_NEWLINE =
  /[[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Cs}\p{Cn}\p{Co}\p{Default_Ignorable_Code_Point}\u2800]--[ \n]]/gv;

function _escape(char: string): string {
  let out = "";
  for (let i = 0; i < char.length; i++) {
    out += `\\u${char.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return out;
}

/**
 * Escapes every control and format character except the line feed, for a block of
 * output whose line breaks are the program's own (a table, pretty-printed JSON, in
 * which `JSON.stringify` has already escaped every line feed of the data).
 */
export function terminalSafe(text: string): string {
  return text.replace(_UNSAFE_BUT_NEWLINE, _escape);
}

/** Escapes every control and format character, line feeds included: one value, one line. */
export function oneLine(text: string): string {
  return text.replace(_UNSAFE, _escape);
}

/**
 * One row of a table printed as it is read: each cell on one line ({@linkcode oneLine}),
 * cut to its column's width with `…` and padded to it, columns two spaces apart.
 */
export function tableRow(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, c) => {
    const width = widths[c]!;
    const chars = [...oneLine(cell)];
    const text = chars.length > width ? chars.slice(0, width - 1).join("") + "…" : chars.join("");
    return text.padEnd(width);
  }).join("  ").trimEnd();
}
