/**
 * @module
 * How the resolver (coverage.ts) reads a site name: the ways to split it into a place and the
 * regions after it ("Ashburn, VA", "ashburn virginia usa", "USA, NY, New York"), every place a
 * name means (covered locations by their names, then the gazetteer's), a country alone, whether
 * a text names a place or a postcode at all, the covered cities nearest a point and the one
 * that covers it, close spellings, found at a bounded cost, and how a place is written back.
 */

import type { Catalog } from "./catalog.ts";
import type { Location } from "./records.ts";
import { type Airport, type GazetteerPlace, haversineKm, NEARBY_KM } from "./places.ts";
import { editDistance } from "./edit_distance.ts";
import { normalizeName } from "./names.ts";

/** Most words read as a subdivision or country after a city ("new south wales"). */
const REGION_WORDS = 4;

/**
 * Compass words, which beside a city say a part of it ("Dallas North", "Central Tokyo",
 * "Frankfurt Nord"): never a region alone after a name (Cameroon's "North"), nor a name
 * before regions.
 */
const COMPASS = new Set(
  "north south east west central centre center downtown midtown uptown nord sud ost noord zuid oost norte sur este oeste centro"
    .split(" "),
);

/** Most words read as regions after a name ("new south wales australia"). */
const TAIL_WORDS = 8;

/** Most parts between commas a name and its regions are read in ("New York, NY, USA"). */
const MAX_PARTS = 6;

/** How many nearest covered cities an answer lists. */
const NEAREST = 3;

/**
 * A city this large more than {@linkcode OWN_METRO_KM} from a covered one is a metro of its
 * own, not a suburb (Cologne, 35 km from Düsseldorf; Yokohama, 28 km from Tokyo).
 */
const OWN_METRO_POPULATION = 500_000;
const OWN_METRO_KM = 20;

/**
 * Close spellings: names of the gazetteer compared at most, those sharing the first two letters
 * around where the name sorts. Measured on 4,000 one-slip typos of the 3,000 largest places
 * (performance.md, "What a misspelt place costs"): 250 around the name find 87 % of them, where
 * the first 1,000 of the two letters found 89 %.
 */
const SPELLING_SCAN = 250;
/** Names longer than this get no close spellings (the comparison grows with the square). */
const SPELLING_MAX_LENGTH = 40;

/** One place a name may mean: a covered location, a place of the gazetteer, or an airport. */
export interface Candidate {
  location?: Location;
  place?: GazetteerPlace;
  airport?: Airport;
  city: string;
  country: string;
  subdivision: string | null;
  population: number;
}

/** A way to read the text: the name of the place, and what each other part says it is in. */
export interface Reading {
  key: string;
  /** For each part read as a region, the countries and subdivisions it may be. */
  qualifiers: string[][];
  /** Those parts as written, for a summary. */
  where: string;
}

/**
 * The ways to read `text`, most literal first: as a whole; as the part before a comma and the
 * regions after it (any part may be the city when the others are regions); as its first words
 * and regions in its last ones ("Ashburn Virginia USA", "Sydney NSW"). Regions of no one
 * country are no reading.
 */
export function readings(catalog: Catalog, text: string): Reading[] {
  return _readings(catalog, text).filter((r) => _oneCountry(r.qualifiers));
}

/**
 * Whether regions can be one place's: each names a region of one same country ("Ota-ku,
 * Tokyo": KU is in Greenland, Kuwait… and Tokyo in Japan, so "ota" is no city there).
 */
function _oneCountry(qualifiers: string[][]): boolean {
  const [first, ...rest] = qualifiers;
  if (!first) return true;
  return first.some((code) =>
    rest.every((codes) => codes.some((other) => other.slice(0, 2) === code.slice(0, 2)))
  );
}

function _readings(catalog: Catalog, text: string): Reading[] {
  const out: Reading[] = [{ key: normalizeName(text), qualifiers: [], where: "" }];
  const parts = text.split(",").map((p) => p.trim()).filter((p) => normalizeName(p) !== "");
  if (parts.length > MAX_PARTS) return out;
  if (parts.length > 1) {
    // Each part looked up once, not once for every other part.
    const regionsOf = parts.map((p) => catalog.places.regions(normalizeName(p)));
    parts.forEach((part, i) => {
      const rest = parts.filter((_, j) => j !== i);
      const qualifiers = regionsOf.filter((_, j) => j !== i);
      // After a comma the city stands even when the rest names nothing we know ("Slough,
      // Berkshire"); before one, only when everything else is a region.
      const read = qualifiers.filter((q) => q.length > 0);
      if (i > 0 && read.length < qualifiers.length) return;
      const where = rest.join(", ");
      out.push({ key: normalizeName(part), qualifiers: read, where });
      // "Ashburn VA, USA": the part's own last words may be regions too.
      for (const own of _regionsAfter(catalog, normalizeName(part).split(" "))) {
        out.push({
          ...own,
          qualifiers: [...own.qualifiers, ...read],
          where: `${own.where}, ${where}`,
        });
      }
    });
    return out;
  }
  return [...out, ..._regionsAfter(catalog, normalizeName(text).split(" "))];
}

/**
 * `words` read as a name and the regions in its last words ("ashburn virginia usa", "sydney
 * nsw"), the longest name first. Only the last {@linkcode TAIL_WORDS} words are tried as
 * regions, so a long text costs no more than a short one.
 */
function _regionsAfter(catalog: Catalog, words: string[]): Reading[] {
  const out: Reading[] = [];
  const from = Math.max(1, words.length - TAIL_WORDS);
  const tails = segments(catalog, words, from);
  for (let start = words.length - 1; start >= from; start--) {
    const qualifiers = tails[start];
    if (!qualifiers || (start === 1 && COMPASS.has(words[0]!))) continue;
    out.push({
      key: words.slice(0, start).join(" "),
      qualifiers,
      where: qualifiers.map((codes) => codes[0]).join(", "),
    });
  }
  return out;
}

/**
 * For each word `i` from `from` on, `words[i..]` read as a run of region names ("virginia usa",
 * "new south wales"), or undefined. Made from the last word back, each start once: linear in
 * the words, however many of them are region names.
 */
function segments(catalog: Catalog, words: string[], from = 0): (string[][] | undefined)[] {
  const out: (string[][] | undefined)[] = [];
  out[words.length] = [];
  for (let i = words.length - 1; i >= from; i--) {
    for (let n = Math.min(REGION_WORDS, words.length - i); n >= 1; n--) {
      const rest = out[i + n];
      if (!rest || (n === 1 && COMPASS.has(words[i]!))) continue;
      const codes = catalog.places.regions(words.slice(i, i + n).join(" "));
      if (codes.length === 0) continue;
      out[i] = [codes, ...rest];
      break;
    }
  }
  return out;
}

/** Whether two candidates are within reach of each other: one place to a caller. */
export function together(a: Candidate, b: Candidate): boolean {
  const at = (c: Candidate) => c.location ?? c.place ?? c.airport;
  const [pa, pb] = [at(a), at(b)];
  return Boolean(pa && pb && haversineKm(pa, pb) <= NEARBY_KM);
}

/** Whether a candidate is in a country ("US") or subdivision ("US-VA"). */
export function inRegion(c: Pick<Candidate, "country" | "subdivision">, region: string): boolean {
  return region.length === 2 ? c.country === region : c.subdivision === region;
}

/** A place this populous is no small town an airport of its name outranks. */
const TOWN_MAX = 10_000;

/** Other names this short are codes ("LON", "NYC"), read only when written in capitals. */
const SHORT_OTHER_NAME = 3;

/**
 * Every place `key` names: the covered locations of that name, and the gazetteer's places
 * other than those the locations stand for (one of that name within their reach), largest
 * first. `capitals`: the name was written in capitals, so a short other name counts as a code.
 */
export function named(catalog: Catalog, key: string, capitals = false): Candidate[] {
  const locations = [...catalog.coverage.locations.get(key) ?? []];
  const places: GazetteerPlace[] = [];
  const matches = catalog.places.named(key);
  // An other name counts where it is larger than any place bearing it as its own: "Londres"
  // is London, but "Manchester" is not Paterson, NJ (one of GeoNames' other names for it).
  const own = matches.find((m) => !m.other)?.id ?? Infinity;
  // A short other name is a code (LON, NYC, and airport codes such as THE for Teresina):
  // read only when written in capitals, so the word "the" is no city.
  const code = key.length <= SHORT_OTHER_NAME;
  for (const { id } of matches.filter((m) => !m.other || (m.id < own && (capitals || !code)))) {
    // A covered city's own row, by another of its names ("Londres", "Tokio"): that city.
    const twin = catalog.coverage.twinOf.get(id);
    if (twin && !locations.includes(twin)) locations.push(twin);
    if (!twin) places.push(catalog.places.place(id));
  }
  const out: Candidate[] = locations.map((l) => {
    const twin = catalog.coverage.twins.get(l.id);
    return {
      location: l,
      city: l.city,
      country: l.country,
      subdivision: locationSubdivision(catalog, l),
      population: twin?.population ?? Infinity,
    };
  });
  for (const place of places) {
    if (locations.some((l) => haversineKm(place, l) <= NEARBY_KM)) continue;
    out.push({
      place,
      city: place.name,
      country: place.country,
      subdivision: place.subdivision,
      population: place.population,
    });
  }
  // An airport by its name ("Heathrow", "Orly", "Kastrup") ranks by the people it serves, so
  // it outranks a small town of the name (Heathrow, FL, 5,896 people); against a town of
  // TOWN_MAX people or more (Douglas, Isle of Man; Wilson, NC) it ranks as that town, and the
  // answer names both.
  const largest = Math.max(0, ...out.map((c) => c.population));
  for (const airport of catalog.places.airportsNamed(key)) {
    // The gazetteer gives an airport no subdivision: that of the covered city beside it, so
    // "Dulles, VA" and "Heathrow, England" are the airport.
    const beside = coveringLocation(catalog, { ...airport, population: 0 });
    out.push({
      airport,
      city: `${airport.name} (${airport.code})`,
      country: airport.country,
      subdivision: beside ? locationSubdivision(catalog, beside) : null,
      population: largest >= TOWN_MAX ? Math.min(airport.served, largest) : airport.served,
    });
  }
  out.sort((a, b) => b.population - a.population || (a.location ? -1 : 1));
  // Two places an answer would write alike ("Hayes, GB-ENG" twice, both near London) are one
  // to a caller, who could not choose between them: the larger stands for both.
  const labels = new Set<string>();
  return out.filter((c) => {
    const label = candidateLabel(c);
    return !labels.has(label) && Boolean(labels.add(label));
  });
}

/**
 * The regions a name alone stands for ("Germany", "Virginia", "NY", "Georgia": GE and US-GA),
 * unless it names a place in one of them (Singapore, New York, Berlin; Tokio is Tokyo): the
 * countries, and the subdivisions of the countries the service covers. Given a country, only
 * its regions, and none when a place of that name is there ("Virginia" in ZA is a town).
 * With them, the places of that name elsewhere (`named`), which the answer offers too.
 */
export function regionAlone(
  catalog: Catalog,
  key: string,
  country: string | undefined,
): { codes: string[]; places: Candidate[] } | undefined {
  const codes = catalog.places.regions(key).filter((code) =>
    (code.length === 2 || catalog.coverage.countries.has(code.slice(0, 2))) &&
    (!country || code.slice(0, 2) === country)
  );
  if (codes.length === 0) return undefined;
  const places = named(catalog, key);
  const inside = (c: Candidate) => c.country === country || codes.some((code) => inRegion(c, code));
  return places.some(inside) ? undefined : { codes, places };
}

/** The subdivision of a covered location ("US-VA"), from its record or its gazetteer place. */
export function locationSubdivision(catalog: Catalog, l: Location): string | null {
  return l.subdivision ?? catalog.coverage.twins.get(l.id)?.subdivision ?? null;
}

/**
 * Whether `text` names a place: it has a letter, or it is a postcode (digits, with a space or
 * a dash: "20147", "20147-1234"); "," or " " names none.
 */
export function namesPlace(text: string): boolean {
  return /\p{L}/u.test(text) || POSTCODE.test(text.normalize("NFKC").trim());
}

/** A postcode as written: read as a US ZIP code, any other refused with what to send. */
export const POSTCODE = /^\d[\d -]{2,9}$/;

export interface NearbyLocation {
  id: string;
  city: string;
  country: string;
  distance_km: number;
  response_time_hours: number;
}

/**
 * The covered location a place is in reach of: within {@linkcode NEARBY_KM}, unless the place
 * is a metro of its own.
 */
export function coveringLocation(
  catalog: Catalog,
  place: { latitude: number; longitude: number; population: number },
  first = nearestLocations(catalog, place, 1)[0],
): Location | undefined {
  if (!first || first.distance_km > NEARBY_KM) return undefined;
  if (place.population >= OWN_METRO_POPULATION && first.distance_km > OWN_METRO_KM) {
    return undefined;
  }
  return catalog.locationById.get(first.id);
}

/**
 * Places spelled within a typo or two of `name` (Frankfrut → Frankfurt), covered first:
 * compared with the covered cities' names and at most {@linkcode SPELLING_SCAN} of the
 * gazetteer's that start with the same two letters, those around where `name` sorts, so the
 * cost is bounded for any input.
 */
export function closeSpellings(catalog: Catalog, name: string): Candidate[] {
  if (name.length < 3 || name.length > SPELLING_MAX_LENGTH) return [];
  const budget = Math.max(1, Math.floor(name.length / 4));
  const close = (key: string) => editDistance(key, name, budget) !== undefined;
  const found: Candidate[] = [];
  for (const key of catalog.coverage.locations.keys()) {
    if (close(key)) found.push(...named(catalog, key).filter((c) => c.location));
  }
  for (const key of catalog.places.namesAround(name, SPELLING_SCAN)) {
    if (!close(key)) continue;
    const [top] = named(catalog, key);
    if (top) found.push(top);
  }
  return [...new Map(found.map((c) => [`${c.city}/${c.country}/${c.subdivision}`, c])).values()];
}

/** The covered locations closest to a point, nearest first. */
export function nearestLocations(
  catalog: Catalog,
  point: { latitude: number; longitude: number },
  count = NEAREST,
): NearbyLocation[] {
  return catalog.locations
    .map((l) => ({
      id: l.id,
      city: l.city,
      country: l.country,
      distance_km: Math.round(haversineKm(point, l)),
      response_time_hours: l.response_time_hours,
    }))
    .sort((a, b) => a.distance_km - b.distance_km)
    .slice(0, count);
}

/** How an answer writes a candidate: its place's label, or a city or airport and its country. */
export function candidateLabel(c: Candidate): string {
  return c.place ? placeLabel(c.place) : `${c.city}, ${c.country}`;
}

/**
 * "Santa Clara, US-CA", "Slough, GB-ENG"; "Reykjavík, IS" where the subdivision is known by
 * a number only, or not at all.
 */
export function placeLabel(
  p: { name: string; country: string; subdivision: string | null },
): string {
  return `${p.name}, ${
    p.subdivision && /-[A-Z]+$/.test(p.subdivision) ? p.subdivision : p.country
  }`;
}
