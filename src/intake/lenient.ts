/**
 * @module
 * Forgiving input: what agents naturally send, read as they meant it before the strict
 * schemas run. `null` for an optional field means "not given"; `"2"` for a number field
 * is 2, as is any number JSON or a query string writes (`"-1"`, `".5"`, `"1e-7"`, `"1E1"`:
 * the schema then judges the value); `"true"` for a boolean field is true; a country written as a name ("Germany",
 * "United States") or as "UK" is its ISO 3166-1 alpha-2 code. The schemas, and what they
 * advertise, stay strict; anything still wrong is reported by them.
 */

import { countryCode } from "../catalog/regions.ts";
import type { FieldIssue } from "../http/errors.ts";

export interface LenientFields {
  /** Fields that may be left out: `null` is taken as left out. */
  optional: readonly string[];
  numbers?: readonly string[];
  booleans?: readonly string[];
  countries?: readonly string[];
}

/** A decimal number: sign, digits with or without a fraction (`5.`, `.5`), exponent. */
const _NUMBER = /^\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*$/;
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
      const word = value.trim().toLowerCase();
      // Own properties only: "constructor" is not a boolean.
      if (Object.hasOwn(_BOOLEANS, word)) out[name] = _BOOLEANS[word];
    }
  }
  for (const name of fields.countries ?? []) {
    const value = out[name];
    if (typeof value === "string") out[name] = countryCode(value) ?? value;
  }
  return out;
}

/**
 * Names agents give the estimate's inputs, read as the field they mean: `engineers: 2` is
 * `engineer_count: 2`, never a silent default of one. Names that often mean something
 * else (`people`, `day`) are not in it. Also matched: any of these names, or the field's
 * own, once case, spaces, `_` and `-` are dropped (`engineerCount`).
 * Documented in docs/api.md.
 */
const ESTIMATE_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  engineer_count: ["engineers", "technicians", "techs", "number_of_engineers"],
  estimated_hours: ["hours", "hours_per_engineer", "estimated_time", "duration_hours"],
  out_of_hours: ["after_hours", "outside_hours", "out_of_business_hours"],
  requested_date: ["date", "start_date", "preferred_date"],
  requested_time: ["time", "start_time", "preferred_time"],
};

/** Longest argument name read as a synonym (as long as an additional property's name). */
const SYNONYM_MAX = 64;

/** An argument read as the field it means. */
interface Renamed {
  from: string;
  to: string;
  /** True when the field was given too, with the same value: the name is dropped. */
  same?: true;
}

/** A name as it is compared: case, spaces, `_` and `-` dropped (`Engineer-Count` → `engineercount`). */
const _squash = (s: string) => s.toLowerCase().replace(/[\s_-]/g, "");

/** Every name of {@linkcode ESTIMATE_SYNONYMS}, squashed, to the field it means. */
const _BY_NAME: ReadonlyMap<string, string> = new Map(
  Object.entries(ESTIMATE_SYNONYMS).flatMap(([field, others]) =>
    [field, ...others].map((name): [string, string] => [_squash(name), field])
  ),
);

/**
 * A copy of `raw` in which an argument named as {@linkcode ESTIMATE_SYNONYMS} lists is read
 * as its field, the other name dropped. When the field is given too, or two names of it
 * are, with different values, nothing is guessed: an issue names both. Returns the copy,
 * what was read under another name (with the same value as the field's, too: `same`), and
 * those issues. Each argument's name is squashed once and looked up once, so the cost grows
 * with the arguments, not with arguments × names.
 */
export function readSynonyms(
  raw: unknown,
): { value: unknown; renamed: Renamed[]; issues: FieldIssue[] } {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { value: raw, renamed: [], issues: [] };
  }
  const out: Record<string, unknown> = { ...raw };
  const renamed: Renamed[] = [];
  const issues: FieldIssue[] = [];
  for (const name of Object.keys(raw)) {
    // A longer name stays an additional property, refused as one (it would be echoed).
    if (name.length > SYNONYM_MAX) continue;
    const field = _BY_NAME.get(_squash(name));
    if (field === undefined || name === field) continue;
    const value = out[name];
    delete out[name];
    // `null` is "not given" (see lenientArguments).
    if (!Object.hasOwn(out, field) || out[field] === undefined || out[field] === null) {
      out[field] = value;
      renamed.push({ from: name, to: field });
    } else if (JSON.stringify(out[field]) !== JSON.stringify(value)) {
      const message = `${name} is read as ${field}, which is also given with another value; ` +
        `send ${field} only`;
      issues.push({ path: name, message });
    } else {
      renamed.push({ from: name, to: field, same: true });
    }
  }
  return { value: out, renamed, issues };
}
