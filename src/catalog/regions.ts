/**
 * @module
 * Country names and codes for the `country` field and the estimate's wording: the English name
 * of a code ("DE" → "Germany"), and the code of an English name or a common alias ("Germany",
 * "UK", "Deutschland"). What follows a city in a place name (a subdivision or a country in any
 * of 78 languages) is read from the gazetteer instead (places.ts, coverage.ts).
 */

import { normalizeName } from "./names.ts";

/** Names that are not English country names but are common anyway. */
const _ALIASES: Readonly<Record<string, string>> = {
  uk: "GB",
  "great britain": "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  usa: "US",
  "u s a": "US",
  "u s": "US",
  america: "US",
  "united states of america": "US",
  uae: "AE",
  holland: "NL",
  deutschland: "DE",
  schweiz: "CH",
  suisse: "CH",
  osterreich: "AT",
  espana: "ES",
  nederland: "NL",
  sverige: "SE",
  norge: "NO",
  danmark: "DK",
  suomi: "FI",
  polska: "PL",
  italia: "IT",
};

let _byName: Map<string, string> | undefined;

/** English region names, made once: a pure table, not config. */
const _names = new Intl.DisplayNames(["en"], { type: "region" });

/** The English name of an ISO 3166-1 alpha-2 code ("DE" → "Germany"); the code if none. */
export function countryName(code: string): string {
  return _names.of(code) ?? code;
}

/**
 * The ISO 3166-1 alpha-2 code a country name stands for ("Germany", "united states",
 * "UK"); undefined when it names none. A two-letter code other than UK is left to the
 * schema, which upper-cases it.
 */
export function countryCode(text: string): string | undefined {
  const name = normalizeName(text);
  if (name.length === 2 && name !== "uk") return undefined;
  if (!_byName) {
    // Every region name Intl knows in English, built once; a pure table, not config.
    _byName = new Map();
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        // Only current codes: DD (East Germany) and UK canonicalise to DE and GB.
        if (Intl.getCanonicalLocales(`und-${code}`)[0] !== `und-${code}`) continue;
        const shown = _names.of(code);
        if (shown && shown !== code && shown !== "Unknown Region") {
          _byName.set(normalizeName(shown), code);
        }
      }
    }
  }
  return Object.hasOwn(_ALIASES, name) ? _ALIASES[name] : _byName.get(name);
}
