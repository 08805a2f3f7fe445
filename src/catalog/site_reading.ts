/**
 * @module
 * A site as customers write it, taken apart before any place is looked up: its parts
 * (between commas, semicolons, line breaks, slashes or dashes with spaces around them), and in
 * each part the words that are no place and are never looked up as one:
 *
 * - a street: a part ending in a street word ("21715 Filigree Ct", "London Road"), starting
 *   with one ("Rue de la Paix", "Via Roma"), made of a street compound ("Kleyerstraße 90") or
 *   a house number and words ("227 Marsh Wall"), unless the words without the number are a
 *   place ("60326 Frankfurt am Main");
 * - a building, a floor, a suite, a hall or a cage, with its number ("3rd floor", "Suite 200");
 * - a postcode: a US ZIP code at the end of a part, read as its town (places.ts); another
 *   country's postcode, read only as that country ("EC1A 1BB" is GB, "1012 AB" NL), which
 *   the reader (coverage.ts) holds to when a place read is there;
 * - a number.
 *
 * What is left of a part is the text to read as a place, whole first, then word by word:
 * "Frankfurt-Sossenheim" is "frankfurt sossenheim", whose longest place is "frankfurt".
 * Bounded: at most {@linkcode MAX_PARTS} parts and {@linkcode MAX_WORDS} words a part, so a
 * hostile 200-character site costs a few hundred table lookups at most (tests/catalog/
 * sites_test.ts counts them: under 200 measured, bounded at 400).
 */

import { normalizeName } from "./names.ts";

/** Parts of a site read at most; the rest is ignored. */
const MAX_PARTS = 8;

/** Words of a part read at most. */
const MAX_WORDS = 8;

/** One part of a site, as the reader looks at it. */
export interface SitePart {
  /** As written, trimmed. */
  text: string;
  /** Its words, normalized, its postcode out (what a facility's name or code is found in). */
  all: string[];
  /** The part is a street address: no word of it is read as a place. */
  street: boolean;
  /** A US ZIP code at its end ("VA 20147"). */
  zip?: string;
  /** The countries its postcode's format says ("EC1A 1BB": GB). */
  countries: string[];
}

/** Street words that end a street's name ("Filigree Ct", "London Road"). */
const STREET_END = new Set(
  [
    ..."st street rd road ave av avenue blvd boulevard dr drive ln lane ct court way pkwy parkway",
    ..." hwy highway pl place sq square ter terrace cres crescent close cir circle plaza trl trail",
    ..." pike tpke turnpike loop mews quay wharf embankment allee damm gasse platz strasse str weg",
    ..." straat laan gracht plein kade dijk singel vej gade gatan gata vagen veien tie katu",
    ..." chaussee steenweg",
  ].join("").split(" ").filter(Boolean),
);

/** Street words that start a street's name ("Rue de la Paix", "Via Roma", "ul. Prosta"). */
const STREET_START = new Set(
  "rue avenue avenida boulevard bd chemin quai impasse allee via viale piazza corso calle carrer rua praca travessa ulica ul aleja strada calea"
    .split(" "),
);

/** Endings of a street written as one word ("Kleyerstraße", "Hoofdweg", "Mannerheimintie"). */
const STREET_COMPOUND =
  /^\p{L}{3,}(strasse|straat|laan|gracht|gatan|vagen|veien|vej|gade|katu|allee|damm|platz|weg|tie)$/u;

/** Words of a building, a floor, a suite: left out with the number or letter beside them. */
const BUILDING = new Set(
  "floor fl flr level lvl suite ste unit building bldg bld block blk tower wing room rm cage rack hall campus datacenter datacentre colocation colo facility phase module pod mmr basement"
    .split(" "),
);

/** Words of "data center" and the like, left out wherever they stand. */
const FILLER = new Set(["data", "center", "centre", "the"]);

/**
 * A number, a house number ("12a"), an ordinal ("3rd"), a letter or a building's code ("S1",
 * "VA2"): part of an address.
 */
const NUMBERISH = /^(\d+[a-z]?|\d+(st|nd|rd|th)|[a-z]|[a-z]{1,3}\d{1,3}[a-z]?)$/;

/**
 * Postcode formats that say their country; others (4 or 5 digits) say nothing. A facility's
 * code before a floor ("DC11 1st floor") is no British postcode.
 */
const POSTCODES: readonly [RegExp, string][] = [
  [/\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b(?! ?(FLOOR|FL|FLR|LEVEL|LVL)\b)/, "GB"],
  [/\b\d{4} ?[A-Z]{2}\b/, "NL"],
  [/\b[A-Z]\d[A-Z] ?\d[A-Z]\d\b/, "CA"],
  [/\b\d{3}-\d{4}\b/, "JP"],
  [/\b\d{5}-\d{3}\b/, "BR"],
  [/\b\d{2}-\d{3}\b/, "PL"],
];

/** The parts of `text`, each taken apart (see the module documentation). */
export function siteParts(text: string): SitePart[] {
  return text.split(/[,;\n\r|]+|\s[-–—/]\s/).map((p) => p.trim()).filter((p) => p !== "")
    .slice(0, MAX_PARTS).map(_part);
}

function _part(text: string): SitePart {
  const upper = text.toUpperCase();
  const countries: string[] = [];
  let rest = upper;
  for (const [format, country] of POSTCODES) {
    const found = rest.match(format);
    if (!found) continue;
    countries.push(country);
    rest = rest.replace(found[0], " ");
  }
  const zip = rest.match(/\b(\d{5})(?:-\d{4})?\s*$/)?.[1];
  const all = normalizeName(rest).split(" ").filter(Boolean).slice(0, MAX_WORDS);
  return {
    text,
    all,
    street: _street(all, _trimNumbers(all)),
    ...(zip ? { zip } : {}),
    countries,
  };
}

/** Whether a word names a building, a floor, a suite, a hall, a cage or a rack ("building"). */
export function isBuildingWord(word: string): boolean {
  return BUILDING.has(word);
}

/**
 * The words of a part to read as a place: `whole`, numbers at either end out (a house
 * number, a postcode), and `core`, also without the words of a building, a floor or a suite
 * (the place within them).
 */
export function placeWords(all: readonly string[]): { whole: string[]; core: string[] } {
  const whole = _trimNumbers(all);
  return { whole, core: _withoutBuilding(whole) };
}

/**
 * The words without the numbers that start or end them (a house number, a postcode), and
 * without a Japanese city's last word ("Inzai-shi": Inzai).
 */
function _trimNumbers(words: readonly string[]): string[] {
  let start = 0;
  let end = words.length;
  while (start < end && /^\d/.test(words[start]!)) start++;
  while (end > start && /^\d/.test(words[end - 1]!)) end--;
  if (end - start > 1 && words[end - 1] === "shi") end--;
  return words.slice(start, end);
}

/** Whether a part's words are a street address (see the module documentation). */
function _street(all: string[], words: string[]): boolean {
  if (!words.length) return false;
  if (STREET_END.has(words.at(-1)!) && words.length > 1) return true;
  if (STREET_START.has(words[0]!) && words.length > 1) return true;
  if (words.some((w) => STREET_COMPOUND.test(w))) return true;
  // "227 Marsh Wall": a house number before words. A postcode before a town is not one: the
  // reader tries the words as a place before it takes the part for a street.
  return /^\d{1,4}[a-z]?$/.test(all[0] ?? "") && words.length > 0;
}

/** The words without those of a building, a floor or a suite, and the numbers beside them. */
function _withoutBuilding(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (FILLER.has(word)) continue;
    if (BUILDING.has(word)) {
      // "floor 3", "3rd floor", "building b": the number or letter on either side goes too.
      if (out.length && NUMBERISH.test(out.at(-1)!)) out.pop();
      if (NUMBERISH.test(words[i + 1] ?? "")) i++;
      continue;
    }
    out.push(word);
  }
  return out.filter((w) => !/^\d/.test(w));
}

/**
 * The spans of `words` to look up as a place, longest first, each touching one end of them
 * ("frankfurt sossenheim": "frankfurt", then "sossenheim"): what "City-District" and
 * "District City" are written as. At most 2 × words.length spans.
 */
export function spans(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let length = words.length; length >= 1; length--) {
    out.push(words.slice(0, length).join(" "));
    if (length < words.length) out.push(words.slice(words.length - length).join(" "));
  }
  return out;
}
