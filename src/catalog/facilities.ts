/**
 * @module
 * The datacenters customers name instead of a town ("Equinix DC11", "Interxion AMS8", "FR5"),
 * found among a site text's normalised words (names.ts). Built once per catalog from
 * data/facilities.v1.json, as maps keyed by a phrase's first word: operators' names, each
 * operator's codes (one word "dc11" or split "dc 11"), the codes that stand alone (letters and
 * digits: "fr5", never "3" or "north"), and facilities' names and aliases. `find` looks each
 * word up once in each map and compares the few phrases it leads to, so its cost is linear in
 * the words: a 200-character text has at most 100 of them, and no first word leads to more
 * than a handful of phrases (tests/catalog/facilities_test.ts bounds it). Which facility, or
 * which town, the text means is the site reader's decision; this only says what is mentioned.
 */

import { normalizeName } from "./names.ts";
import type { Facility, FacilityOperator } from "./records.ts";

/** A facility a text mentions: words `[start, end)` named it, and how. */
export interface FacilityMention {
  facility: Facility;
  start: number;
  end: number;
  how: "operator and code" | "code" | "name";
}

/** A phrase's words and the facility it names. */
interface Phrase {
  words: readonly string[];
  facility: Facility;
}

/** One name of an operator, and that operator's codes by their first word. */
interface OperatorName {
  words: readonly string[];
  codes: ReadonlyMap<string, readonly Phrase[]>;
}

const FILE = "facilities.v1.json";

/** The facilities' names, codes and operators, indexed for `find`. */
export class FacilityIndex {
  readonly #operators = new Map<string, OperatorName[]>();
  readonly #codes = new Map<string, Facility[]>();
  readonly #names = new Map<string, Phrase[]>();

  /**
   * Throws, naming the entry, when a facility's operator is not listed, an operator's name is
   * another's, an operator gives one code to two facilities, or a name names two facilities.
   */
  constructor(operators: readonly FacilityOperator[], facilities: readonly Facility[]) {
    const codesOf = new Map<string, Map<string, Phrase[]>>();
    const operatorOf = new Map<string, string>();
    for (const operator of operators) {
      const codes = new Map<string, Phrase[]>();
      codesOf.set(operator.name, codes);
      for (const name of [operator.name, ...operator.aliases]) {
        const words = normalizeName(name).split(" ");
        const other = operatorOf.get(words.join(" "));
        if (other !== undefined && other !== operator.name) {
          throw new Error(`${FILE}: operator name "${name}" is both ${other} and ${operator.name}`);
        }
        operatorOf.set(words.join(" "), operator.name);
        _add(this.#operators, words[0]!, { words, codes });
      }
    }
    const codeOwner = new Map<string, Facility>();
    const nameOwner = new Map<string, Facility>();
    for (const facility of facilities) {
      const codes = codesOf.get(facility.operator);
      if (!codes) {
        throw new Error(
          `${FILE}: ${facility.id}: operator ${facility.operator} is not in operators`,
        );
      }
      const forms: string[][] = [];
      for (const code of facility.codes) {
        const key = `${facility.operator}\t${_joined(code)}`;
        const other = codeOwner.get(key);
        if (other) {
          throw new Error(
            `${FILE}: ${facility.operator} code ${code} is both ${other.id} and ${facility.id}`,
          );
        }
        codeOwner.set(key, facility);
        for (const words of _codeForms(code)) {
          forms.push(words);
          _add(codes, words[0]!, { words, facility });
        }
        if (_looksLikeCode(_joined(code))) _add(this.#codes, _joined(code), facility);
      }
      this.#indexNames(facility, forms, operators, nameOwner);
    }
  }

  /**
   * Every facility the words mention, longest span first: an operator's name followed by one
   * of its codes, a code alone (every facility that has it, whatever the operator), a name or
   * alias. A mention inside a longer one of another facility is left out ("Equinix SV1" is not
   * also CoreSite SV1); each facility is mentioned once, by its longest span.
   */
  find(words: readonly string[]): FacilityMention[] {
    const found: FacilityMention[] = [];
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      for (const operator of this.#operators.get(word) ?? []) {
        if (!_startsAt(words, i, operator.words)) continue;
        const j = i + operator.words.length;
        for (const code of operator.codes.get(words[j] ?? "") ?? []) {
          if (!_startsAt(words, j, code.words)) continue;
          const end = j + code.words.length;
          found.push({ facility: code.facility, start: i, end, how: "operator and code" });
        }
      }
      for (const facility of this.#codes.get(word) ?? []) {
        found.push({ facility, start: i, end: i + 1, how: "code" });
      }
      for (const name of this.#names.get(word) ?? []) {
        if (!_startsAt(words, i, name.words)) continue;
        found.push({ facility: name.facility, start: i, end: i + name.words.length, how: "name" });
      }
    }
    return _longestFirst(found);
  }

  /**
   * How many words an operator's name spans at `words[i]` (0 when none starts there), so a
   * reader can pass over "equinix" or "digital realty" rather than read it as a town.
   */
  operatorAt(words: readonly string[], i: number): number {
    let longest = 0;
    for (const operator of this.#operators.get(words[i] ?? "") ?? []) {
      if (_startsAt(words, i, operator.words)) {
        longest = Math.max(longest, operator.words.length);
      }
    }
    return longest;
  }

  /** The most phrases one first word leads to: what bounds the cost of a word in `find`. */
  get widest(): number {
    let widest = 0;
    for (const operators of this.#operators.values()) {
      widest = Math.max(widest, operators.length);
      for (const { codes } of operators) {
        for (const phrases of codes.values()) widest = Math.max(widest, phrases.length);
      }
    }
    for (const list of [...this.#codes.values(), ...this.#names.values()]) {
      widest = Math.max(widest, list.length);
    }
    return widest;
  }

  /**
   * A facility's name and aliases as phrases, but for those an operator's name and one of the
   * facility's codes already say ("Equinix DC11", "Interxion AMS8").
   */
  #indexNames(
    facility: Facility,
    forms: readonly string[][],
    operators: readonly FacilityOperator[],
    owner: Map<string, Facility>,
  ): void {
    const operator = operators.find((o) => o.name === facility.operator)!;
    const said = new Set(
      [operator.name, ...operator.aliases].flatMap((name) =>
        forms.map((form) => `${normalizeName(name)} ${form.join(" ")}`)
      ),
    );
    for (const name of [facility.name, ...facility.aliases ?? []]) {
      const key = normalizeName(name);
      const other = owner.get(key);
      if (other && other !== facility) {
        throw new Error(`${FILE}: "${name}" names both ${other.id} and ${facility.id}`);
      }
      if (other || said.has(key)) continue;
      owner.set(key, facility);
      const words = key.split(" ");
      _add(this.#names, words[0]!, { words, facility });
    }
  }
}

/** A code's words run together: "IAD-01" → "iad01", "Frankfurt 1" → "frankfurt1". */
function _joined(code: string): string {
  return normalizeName(code).replaceAll(" ", "");
}

/**
 * The ways a code is written, as word lists: "DC11" → dc11, dc 11; "IAD-01" → iad 01, iad01;
 * "Frankfurt 1" → frankfurt 1, frankfurt1.
 */
function _codeForms(code: string): string[][] {
  const joined = _joined(code);
  const forms = [
    normalizeName(code).split(" "),
    [joined],
    joined.split(/(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u),
  ];
  return [...new Map(forms.map((words) => [words.join(" "), words])).values()];
}

/** A code may stand alone when it is one word of letters and digits: "fr5", not "3" or "north". */
function _looksLikeCode(word: string): boolean {
  return /\p{L}/u.test(word) && /\p{N}/u.test(word);
}

function _startsAt(words: readonly string[], i: number, phrase: readonly string[]): boolean {
  return phrase.every((word, k) => words[i + k] === word);
}

function _add<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Longest span first, then leftmost; a facility once; none inside a longer mention. */
function _longestFirst(found: FacilityMention[]): FacilityMention[] {
  found.sort((a, b) => (b.end - b.start) - (a.end - a.start) || a.start - b.start);
  const kept: FacilityMention[] = [];
  for (const m of found) {
    const covered = kept.some((k) =>
      k.facility === m.facility ||
      (k.start <= m.start && m.end <= k.end && k.end - k.start > m.end - m.start)
    );
    if (!covered) kept.push(m);
  }
  return kept;
}
