/**
 * @module
 * Forgiving input: what agents naturally send, read as they meant it before the strict
 * schemas run. `null` for an optional field means "not given"; `"2"` for a number field
 * is 2; `"true"` for a boolean field is true; a country written as a name ("Germany",
 * "United States") or as "UK" is its ISO 3166-1 alpha-2 code. The schemas, and what they
 * advertise, stay strict; anything still wrong is reported by them.
 */

import { normalizeName } from "../catalog/names.ts";

export interface LenientFields {
  /** Fields that may be left out: `null` is taken as left out. */
  optional: readonly string[];
  numbers?: readonly string[];
  booleans?: readonly string[];
  countries?: readonly string[];
}

const _NUMBER = /^\s*[0-9]+(?:\.[0-9]+)?\s*$/;
const _BOOLEANS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  on: true, // what an HTML checkbox sends
  off: false,
};

/** A copy of `raw` with the forgiving readings applied; anything else is left as it is. */
export function lenientArguments(raw: unknown, fields: LenientFields): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const out: Record<string, unknown> = { ...raw };
  for (const name of fields.optional) if (out[name] === null) delete out[name];
  for (const name of fields.numbers ?? []) {
    const value = out[name];
    if (typeof value === "string" && _NUMBER.test(value)) out[name] = Number(value);
  }
  for (const name of fields.booleans ?? []) {
    const value = out[name];
    if (typeof value === "string") {
      const known = _BOOLEANS[value.trim().toLowerCase()];
      if (known !== undefined) out[name] = known;
    }
  }
  for (const name of fields.countries ?? []) {
    const value = out[name];
    if (typeof value === "string") out[name] = countryCode(value) ?? value;
  }
  return out;
}

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
    const names = new Intl.DisplayNames(["en"], { type: "region" });
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        // Only current codes: DD (East Germany) and UK canonicalise to DE and GB.
        if (Intl.getCanonicalLocales(`und-${code}`)[0] !== `und-${code}`) continue;
        const shown = names.of(code);
        if (shown && shown !== code && shown !== "Unknown Region") {
          _byName.set(normalizeName(shown), code);
        }
      }
    }
  }
  return _ALIASES[name] ?? _byName.get(name);
}
