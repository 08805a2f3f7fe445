/**
 * @module
 * Forgiving input: what agents naturally send, read as they meant it before the strict
 * schemas run. `null` for an optional field means "not given"; `"2"` for a number field
 * is 2; `"true"` for a boolean field is true; a country written as a name ("Germany",
 * "United States") or as "UK" is its ISO 3166-1 alpha-2 code. The schemas, and what they
 * advertise, stay strict; anything still wrong is reported by them.
 */

import { countryCode } from "../catalog/regions.ts";

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
