/**
 * @module
 * Place names compared as people write them: case, accents, punctuation and the letters
 * Unicode does not decompose (ø, ß, ł…) do not matter.
 */

// Letters that Unicode decomposition does not reduce to ASCII.
const _FOLD: Readonly<Record<string, string>> = {
  "ø": "o",
  "æ": "ae",
  "œ": "oe",
  "ß": "ss",
  "ł": "l",
  "đ": "d",
  "ð": "d",
  "þ": "th",
  "ı": "i",
};

/** "Zürich" → "zurich", "Frankfurt/Main" → "frankfurt main", "København" → "kobenhavn". */
export function normalizeName(name: string): string {
  return name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[øæœßłđðþı]/g, (c) => _FOLD[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}
