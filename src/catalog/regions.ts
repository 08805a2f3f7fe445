/**
 * @module
 * What the part of a place name after the city means: a country (ISO 3166-1 alpha-2 code
 * or English name, "Germany", "UK") or a US state (code or name, "VA", "Virginia"). One
 * reading for every surface that takes a city: the coverage check, the estimate and both
 * submissions resolve "Ashburn VA", "San Jose, CA" and "Frankfurt Germany" through it.
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
let _codes: Set<string> | undefined;

/** True for a current ISO 3166-1 alpha-2 code ("DE"), false for any other two letters. */
function isCountryCode(code: string): boolean {
  if (!_byName) countryCode("");
  _codes ??= new Set(_byName!.values());
  return _codes.has(code.toUpperCase());
}

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

/** The 50 US states and DC: code → name. */
const _US_STATES: Readonly<Record<string, string>> = {
  AL: "Alabama",
  AK: "Alaska",
  AZ: "Arizona",
  AR: "Arkansas",
  CA: "California",
  CO: "Colorado",
  CT: "Connecticut",
  DE: "Delaware",
  DC: "District of Columbia",
  FL: "Florida",
  GA: "Georgia",
  HI: "Hawaii",
  ID: "Idaho",
  IL: "Illinois",
  IN: "Indiana",
  IA: "Iowa",
  KS: "Kansas",
  KY: "Kentucky",
  LA: "Louisiana",
  ME: "Maine",
  MD: "Maryland",
  MA: "Massachusetts",
  MI: "Michigan",
  MN: "Minnesota",
  MS: "Mississippi",
  MO: "Missouri",
  MT: "Montana",
  NE: "Nebraska",
  NV: "Nevada",
  NH: "New Hampshire",
  NJ: "New Jersey",
  NM: "New Mexico",
  NY: "New York",
  NC: "North Carolina",
  ND: "North Dakota",
  OH: "Ohio",
  OK: "Oklahoma",
  OR: "Oregon",
  PA: "Pennsylvania",
  RI: "Rhode Island",
  SC: "South Carolina",
  SD: "South Dakota",
  TN: "Tennessee",
  TX: "Texas",
  UT: "Utah",
  VT: "Vermont",
  VA: "Virginia",
  WA: "Washington",
  WV: "West Virginia",
  WI: "Wisconsin",
  WY: "Wyoming",
};

const _STATES = new Map<string, string>();
for (const [code, name] of Object.entries(_US_STATES)) {
  _STATES.set(code.toLowerCase(), code);
  _STATES.set(normalizeName(name), code);
}

/** The US state `text` names, as its two-letter code ("va", "Virginia" → VA), or undefined. */
function usState(text: string): string | undefined {
  return _STATES.get(normalizeName(text));
}

/**
 * Every country `text` may stand for after a city, in the order to try: a US state means
 * the US, a country name or code its code. "CA" is both California and Canada, and
 * "Georgia" both a state and a country: the caller keeps the one where the city is.
 */
export function regionCountries(text: string): string[] {
  const out: string[] = [];
  if (usState(text)) out.push("US");
  const name = normalizeName(text);
  const code = countryCode(text) ?? (/^[a-z]{2}$/.test(name) ? name.toUpperCase() : undefined);
  // "ON" (Ontario) is two letters but no country.
  if (code && isCountryCode(code) && !out.includes(code)) out.push(code);
  return out;
}
