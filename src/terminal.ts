/**
 * @module
 * Text from the store made safe for a staff terminal. Submitted text can hold control
 * and format characters: C1 controls such as U+009B (CSI) and U+009D (OSC) drive the
 * terminal, bidi overrides such as U+202E make text read backwards, and U+2028 breaks
 * lines. Every such character is shown as its `\uXXXX` escape, which also keeps JSON
 * output valid JSON.
 */

// Cc: C0 and C1 controls. Cf: format characters (bidi controls, zero-width, tags).
// Zl/Zp: the line and paragraph separators U+2028 and U+2029. Cs: lone surrogates.
// Cn: unassigned code points. Default_Ignorable_Code_Point: everything a terminal draws
// as nothing (variation selectors, Hangul fillers, the combining grapheme joiner), with
// which a key such as `email\u034F` would look like `email`.
const _CLASS = "\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Cn}\\p{Default_Ignorable_Code_Point}";
const _UNSAFE = new RegExp(`[${_CLASS}]`, "gu");
const _UNSAFE_BUT_NEWLINE = new RegExp(`(?!\\n)[${_CLASS}]`, "gu");

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
