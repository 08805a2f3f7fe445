/**
 * @module
 * Names compared as people write them. A place: case, accents, punctuation and the letters
 * Unicode does not decompose (ø, ß, ł…) do not matter. A service: also spaces, `_`, `-`,
 * `&` or "and", and a trailing "service(s)".
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

/**
 * The key a service name is compared by: "Rack & Stack" → "rackstack",
 * "remote_hands" → "remotehands", "Décom." → "decom", "cabling services" → "cabling".
 */
export function serviceKey(text: string): string {
  return _words(text).filter((word) => word !== "and").join("");
}

/**
 * Every key a name may be written as: `serviceKey`'s, and the words run together with
 * their "and" ("RackAndStack" → "rackandstack"), which no separator splits.
 */
export function serviceKeys(text: string): string[] {
  return [...new Set([serviceKey(text), _words(text).join("")])];
}

function _words(text: string): string[] {
  const words = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replaceAll("&", " and ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
  // "Remote hands service", "cabling services": the catalog only has services.
  while (words.length > 1 && /^services?$/.test(words.at(-1)!)) words.pop();
  return words;
}
