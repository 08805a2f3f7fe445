/**
 * @module
 * The place resolver: what a site name means, and its published coverage. One reading for
 * every surface that takes a city (the coverage check over REST and MCP, the web page, the
 * estimate and both submissions). A name is read, in this order, as one of the service's
 * location ids (`fra`), an airport code (`LHR`), a US ZIP code (`20147`), a country alone
 * (`Germany`), or a place of the gazetteer (catalog/places.ts: GeoNames' towns of 5,000 people
 * or more, by any of their names, "Londres" or "Muenchen"), optionally followed by its
 * subdivision and country in any order ("Ashburn, VA", "Sydney NSW", "New York, NY, USA").
 * A place within {@linkcode NEARBY_KM} of a covered city is covered by it; any other gets the
 * nearest covered cities. A name several places share is answered with its candidates unless
 * one is {@linkcode DOMINANCE} times as populous as the next ("London" is the English one).
 * A close spelling is only ever a suggestion, never the answer.
 */

import type { Catalog } from "./catalog.ts";
import type { Location } from "./records.ts";
import type { Airport, GazetteerPlace } from "./places.ts";
import { normalizeName } from "./names.ts";
import { clip } from "../http/errors.ts";
import { countryName } from "./regions.ts";
import { editDistance } from "./service_match.ts";

export interface CoverageQuery {
  city: string;
  /** ISO 3166-1 alpha-2; narrows the match when a name exists in several countries. */
  country?: string | undefined;
}

interface NearbyLocation {
  id: string;
  city: string;
  country: string;
  distance_km: number;
  response_time_hours: number;
}

/** How a city name was resolved; see `CoverageOutput` in mcp/output_schemas.ts for each value. */
type CoverageMatch =
  | "covered"
  | "nearby"
  | "known_uncovered"
  | "ambiguous"
  | "other_country"
  | "country"
  | "unknown";

export interface Coverage {
  query: { city: string; country: string | null };
  /** How the name was resolved. */
  match: CoverageMatch;
  /** True when the name resolved to one covered city, or one place near it. */
  covered: boolean;
  /** The answer in one or two sentences, for an agent to relay or act on. */
  summary: string;
  location: {
    id: string;
    city: string;
    country: string;
    region: string;
    timezone: string;
  } | null;
  /**
   * The place the name was read as when it is not a covered city itself (nearby,
   * known_uncovered): a town, an airport or a ZIP code's town. Absent from answers stored
   * before it existed.
   */
  place?: {
    name: string;
    country: string;
    subdivision: string | null;
    timezone: string;
  } | null;
  services: { id: string; name: string }[];
  response_time_hours: number | null;
  /** For a place that is not a covered city: the closest covered cities, nearest first. */
  nearest: NearbyLocation[];
  /**
   * For an ambiguous name, the cities it could mean; for a city not found where it was said
   * to be, where it is; for a country, its covered cities; for an unknown name, close
   * spellings.
   */
  candidates: { city: string; country: string; covered: boolean }[];
}

/** How many nearest covered cities an answer lists. */
const NEAREST = 3;

/**
 * A place this close to a covered city's centre is covered by it: a town of its metro area,
 * an engineer's local drive (Santa Clara is 10 km from San Jose, Slough 32 km from London,
 * Heathrow 23 km). One distance for every location, so the rule is plain to a caller.
 */
export const NEARBY_KM = 40;

/**
 * A city this large more than {@linkcode OWN_METRO_KM} from a covered one is a metro of its
 * own, not a suburb (Cologne, 35 km from Düsseldorf; Yokohama, 28 km from Tokyo).
 */
const OWN_METRO_POPULATION = 500_000;
const OWN_METRO_KM = 20;

/** A name several places share means the largest when it is this many times the next. */
export const DOMINANCE = 10;

/** Most candidates an ambiguous answer lists. */
const MAX_CANDIDATES = 5;

/** Close spellings: names compared at most (from those sharing the first two letters). */
const SPELLING_SCAN = 1_000;
/** Names longer than this get no close spellings (the comparison grows with the square). */
const SPELLING_MAX_LENGTH = 40;
/** Most close spellings suggested. */
const SPELLINGS = 3;

/** Most words read as a subdivision or country after a city ("new south wales"). */
const REGION_WORDS = 4;

/**
 * Resolves a city (and optional country) to its published coverage. "Frankfurt, Germany"
 * and "San Jose, CA" are read as the city and where it is.
 */
export function checkCoverage(catalog: Catalog, query: CoverageQuery): Coverage {
  return siteCoverage(catalog, query).coverage;
}

/**
 * The coverage of a site, and its IANA time zone: the covered location's, or the place's
 * the name resolved to; null when the name resolves to no one place.
 */
export function siteCoverage(
  catalog: Catalog,
  query: CoverageQuery,
): { coverage: Coverage; timeZone: string | null } {
  const country = query.country?.toUpperCase();
  const text = query.city.trim();
  const key = normalizeName(text);
  const base: _Base = {
    query: { city: query.city, country: country ?? null },
    // Echoed in summaries, which estimates store: at most 60 characters of it.
    asked: clip(text, 60),
  };
  const unzoned = (coverage: Coverage) => ({ coverage, timeZone: null });

  const byId = catalog.locations.find((l) => l.id === key);
  if (byId && (!country || byId.country === country)) {
    return { coverage: _covered(catalog, base, byId), timeZone: byId.timezone };
  }
  if (POSTCODE.test(text)) return _postcode(catalog, base, text, country);
  const airport = /^[A-Za-z]{3}$/.test(text) ? catalog.places.airport(text) : undefined;
  if (airport && text === text.toUpperCase()) return _atAirport(catalog, base, airport);

  const whole = _countryAlone(catalog, key);
  if (whole) return unzoned(_country(catalog, base, whole));

  let misplaced: { reading: _Reading; all: _Candidate[] } | undefined;
  for (const reading of _readings(catalog, text)) {
    const all = _named(catalog, reading.key);
    if (all.length === 0) continue;
    const qualifiers = country ? [...reading.qualifiers, [country]] : reading.qualifiers;
    const fit = all.filter((c) => qualifiers.every((codes) => codes.some((r) => _in(c, r))));
    if (fit.length === 0) {
      misplaced ??= { reading, all };
      continue;
    }
    const read = reading.qualifiers.length ? { ...base.query, country: fit[0]!.country } : null;
    return _decide(catalog, read ? { ...base, query: read } : base, fit);
  }
  if (airport) return _atAirport(catalog, base, airport);
  if (misplaced) {
    const where = country ?? misplaced.reading.where;
    return unzoned(_otherCountry(catalog, base, where, misplaced.all));
  }
  // "EC1A 1BB", "1012 AB": a postcode of another country.
  if (/\d/.test(text) && /^[\p{L}\d][\p{L}\d -]{2,9}$/u.test(text)) {
    return _postcode(catalog, base, text, country);
  }
  const spelled = _readings(catalog, text).at(-1)?.key ?? key;
  return unzoned(_unknown(catalog, base, spelled, country));
}

/** What every answer starts from: the query as read, and the name as echoed back. */
interface _Base {
  query: Coverage["query"];
  asked: string;
}

/** One place a name may mean: a covered location, or a place of the gazetteer. */
interface _Candidate {
  location?: Location;
  place?: GazetteerPlace;
  city: string;
  country: string;
  subdivision: string | null;
  population: number;
}

/** A way to read the text: the name of the place, and what each other part says it is in. */
interface _Reading {
  key: string;
  /** For each part read as a region, the countries and subdivisions it may be. */
  qualifiers: string[][];
  /** Those parts as written, for a summary. */
  where: string;
}

/**
 * The ways to read `text`, most literal first: as a whole; as the part before a comma and the
 * regions after it (any part may be the city when the others are regions); as its first words
 * and regions in its last ones ("Ashburn Virginia USA", "Sydney NSW").
 */
function _readings(catalog: Catalog, text: string): _Reading[] {
  const out: _Reading[] = [{ key: normalizeName(text), qualifiers: [], where: "" }];
  const parts = text.split(",").map((p) => p.trim()).filter((p) => normalizeName(p) !== "");
  if (parts.length > 1) {
    parts.forEach((part, i) => {
      const rest = parts.filter((_, j) => j !== i);
      const qualifiers = rest.map((r) => catalog.places.regions(normalizeName(r)));
      // After a comma the city stands even when the rest names nothing we know ("Slough,
      // Berkshire"); before one, only when everything else is a region.
      const read = qualifiers.filter((q) => q.length > 0);
      if (i > 0 && read.length < qualifiers.length) return;
      out.push({ key: normalizeName(part), qualifiers: read, where: rest.join(", ") });
    });
    return out;
  }
  const words = normalizeName(text).split(" ");
  const tails = _segments(catalog, words);
  for (let start = words.length - 1; start >= 1; start--) {
    const qualifiers = tails[start];
    if (!qualifiers) continue;
    out.push({
      key: words.slice(0, start).join(" "),
      qualifiers,
      where: qualifiers.map((codes) => codes[0]).join(", "),
    });
  }
  return out;
}

/**
 * For each word `i`, `words[i..]` read as a run of region names ("virginia usa", "new south
 * wales"), or undefined. Made from the last word back, each start once: linear in the words,
 * however many of them are region names.
 */
function _segments(catalog: Catalog, words: string[]): (string[][] | undefined)[] {
  const out: (string[][] | undefined)[] = [];
  out[words.length] = [];
  for (let i = words.length - 1; i >= 0; i--) {
    for (let n = Math.min(REGION_WORDS, words.length - i); n >= 1; n--) {
      const rest = out[i + n];
      if (!rest) continue;
      const codes = catalog.places.regions(words.slice(i, i + n).join(" "));
      if (codes.length === 0) continue;
      out[i] = [codes, ...rest];
      break;
    }
  }
  return out;
}

/** Whether a candidate is in a country ("US") or subdivision ("US-VA"). */
function _in(c: _Candidate, region: string): boolean {
  return region.length === 2 ? c.country === region : c.subdivision === region;
}

/**
 * Every place `key` names: the covered locations of that name, and the gazetteer's places
 * other than those the locations stand for (one of that name within their reach), largest
 * first.
 */
function _named(catalog: Catalog, key: string): _Candidate[] {
  const locations = [...catalog.coverage.locations.get(key) ?? []];
  const places: GazetteerPlace[] = [];
  for (const { id } of catalog.places.named(key)) {
    // A covered city's own row, by another of its names ("Londres", "Tokio"): that city.
    const twin = catalog.coverage.twinOf.get(id);
    if (twin && !locations.includes(twin)) locations.push(twin);
    if (!twin) places.push(catalog.places.place(id));
  }
  const out: _Candidate[] = locations.map((l) => {
    const twin = catalog.coverage.twins.get(l.id);
    return {
      location: l,
      city: l.city,
      country: l.country,
      subdivision: l.subdivision ?? twin?.subdivision ?? null,
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
  return out.sort((a, b) => b.population - a.population || (a.location ? -1 : 1));
}

/** The country a name alone stands for ("Germany", "Deutschland"), unless a city is so named. */
function _countryAlone(catalog: Catalog, key: string): string | undefined {
  const country = catalog.places.regions(key).find((code) => code.length === 2);
  if (!country) return undefined;
  // Singapore, Luxembourg: the city of that name in that country.
  const city = catalog.coverage.locations.get(key)?.some((l) => l.country === country) ||
    catalog.places.named(key).some((m) =>
      !m.other && catalog.places.place(m.id).country === country
    );
  return city ? undefined : country;
}

/**
 * The covered location a place is in reach of: within {@linkcode NEARBY_KM}, unless the place
 * is a metro of its own.
 */
function _coveringLocation(
  catalog: Catalog,
  place: { latitude: number; longitude: number; population: number },
  first = nearestLocations(catalog, place, 1)[0],
): Location | undefined {
  if (!first || first.distance_km > NEARBY_KM) return undefined;
  if (place.population >= OWN_METRO_POPULATION && first.distance_km > OWN_METRO_KM) {
    return undefined;
  }
  return catalog.locations.find((l) => l.id === first.id);
}

/** One place, or the candidates when no one of them dominates. */
function _decide(catalog: Catalog, base: _Base, fit: _Candidate[]) {
  const [top, next] = fit;
  if (next && top!.population < DOMINANCE * next.population) {
    return { coverage: _ambiguous(catalog, base, fit), timeZone: null };
  }
  if (top!.location) {
    return { coverage: _covered(catalog, base, top!.location), timeZone: top!.location.timezone };
  }
  return _atPlace(catalog, base, top!.place!, _placeLabel(top!.place!));
}

/** The coverage at a point: covered by a location within reach, or the nearest ones. */
function _atPlace(
  catalog: Catalog,
  base: _Base,
  place: Omit<GazetteerPlace, "id">,
  label: string,
) {
  const nearest = nearestLocations(catalog, place);
  const first = nearest[0];
  const at = {
    name: place.name,
    country: place.country,
    subdivision: place.subdivision,
    timezone: place.timezone,
  };
  const location = _coveringLocation(catalog, place, first);
  const coverage = location
    ? {
      ..._covered(catalog, base, location),
      match: "nearby" as const,
      place: at,
      nearest,
      summary: `${label} is not a listed city, but it is ${first!.distance_km} km from ` +
        `${location.city}, ${location.country}, which covers it: ${location.services.length} ` +
        `services, an engineer on site within ${location.response_time_hours} h.`,
    }
    : {
      ..._answer(base),
      match: "known_uncovered" as const,
      place: at,
      nearest,
      summary: `${label} is not covered.` +
        (first
          ? ` The nearest covered city is ${first.city}, ${first.country}, ` +
            `${first.distance_km.toLocaleString("en-US")} km away, where an engineer is on ` +
            `site within ${first.response_time_hours} h of a request; a quote can still be ` +
            "requested."
          : ""),
    };
  return { coverage, timeZone: place.timezone };
}

function _atAirport(catalog: Catalog, base: _Base, airport: Airport) {
  const place = { ...airport, name: `${airport.name} (${airport.code})`, subdivision: null };
  return _atPlace(catalog, base, { ...place, population: 0 }, `${place.name}, ${place.country}`);
}

/** A US ZIP code as its town; any other postcode refused with what to send instead. */
function _postcode(catalog: Catalog, base: _Base, text: string, country: string | undefined) {
  const zip = /^\d{5}(-\d{4})?$/.test(text) && (!country || country === "US")
    ? catalog.places.zip(text.slice(0, 5))
    : undefined;
  if (zip) {
    const label = `ZIP code ${text.slice(0, 5)} (${_placeLabel(zip)})`;
    return _atPlace(catalog, { ...base, query: { ...base.query, country: "US" } }, zip, label);
  }
  return {
    coverage: {
      ..._answer(base),
      match: "unknown" as const,
      summary: `"${base.asked}" is read as a postcode, and only US ZIP codes are known` +
        (/^\d{5}$/.test(text) && (!country || country === "US") ? " (this one is not)" : "") +
        ": send the name of the city or town of the site instead.",
    },
    timeZone: null,
  };
}

/** The fields an answer leaves empty unless its kind fills them. */
function _answer(base: _Base): Omit<Coverage, "match" | "summary"> {
  return {
    query: base.query,
    covered: false,
    location: null,
    place: null,
    services: [],
    response_time_hours: null,
    nearest: [],
    candidates: [],
  };
}

function _ambiguous(catalog: Catalog, base: _Base, fit: _Candidate[]): Coverage {
  const { shown, candidates } = _shown(catalog, fit);
  const listed = shown.map((c, i) => `${_candidateLabel(c)} (${_state(candidates[i]!.covered)})`);
  return {
    ..._answer(base),
    match: "ambiguous",
    candidates,
    summary: `"${base.asked}" names ${fit.length > shown.length ? "more than " : ""}` +
      `${shown.length} places: ${listed.join("; ")}. Ask again with the country (or state) ` +
      "to choose one.",
  };
}

function _covered(catalog: Catalog, base: _Base, loc: Location): Coverage {
  return {
    ..._answer(base),
    match: "covered",
    covered: true,
    location: {
      id: loc.id,
      city: loc.city,
      country: loc.country,
      region: loc.region,
      timezone: loc.timezone,
    },
    services: loc.services.map((id) => ({ id, name: catalog.serviceById.get(id)?.name ?? id })),
    response_time_hours: loc.response_time_hours,
    summary: `${loc.city}, ${loc.country} is covered: ${loc.services.length} services, an ` +
      `engineer on site within ${loc.response_time_hours} h.`,
  };
}

function _country(catalog: Catalog, base: _Base, country: string): Coverage {
  const cities = catalog.locations.filter((l) => l.country === country)
    .sort((a, b) => a.city.localeCompare(b.city));
  const name = countryName(country);
  return {
    ..._answer({ ...base, query: { ...base.query, country } }),
    match: "country",
    candidates: cities.map((l) => ({ city: l.city, country: l.country, covered: true })),
    summary: `${name} is a country: ` +
      (cities.length
        ? `the covered cities there are ${cities.map((l) => l.city).join(", ")}.`
        : "no city there is covered.") +
      " Ask again with the city or town of the site.",
  };
}

function _otherCountry(
  catalog: Catalog,
  base: _Base,
  where: string,
  all: _Candidate[],
): Coverage {
  const { shown, candidates } = _shown(catalog, all);
  const first = shown[0]!;
  return {
    ..._answer(base),
    match: "other_country",
    candidates,
    summary: `No city "${base.asked}" is known in ${clip(where, 40)}, ` +
      `but ${_candidateLabel(first)} is ${_state(candidates[0]!.covered)}: ask again with ` +
      `country ${first.country} if that is the one.`,
  };
}

function _unknown(
  catalog: Catalog,
  base: _Base,
  spelled: string,
  country: string | undefined,
): Coverage {
  const near = _closeSpellings(catalog, spelled);
  const coveredCities = [...new Set(catalog.locations.map((l) => `${l.city} (${l.country})`))]
    .sort().join(", ");
  const guesses = near.map((c) => `${c.city}, ${c.country} (${_state(c.covered)})`);
  return {
    ..._answer(base),
    match: "unknown",
    candidates: near,
    summary: `"${base.asked}"${country ? ` in ${country}` : ""} is not a city we know.` +
      (near.length ? ` Did you mean ${guesses.join(" or ")}?` : " Try the nearest large city.") +
      ` Covered cities: ${coveredCities}.`,
  };
}

/**
 * Places spelled within a typo or two of `name` (Frankfrut → Frankfurt), covered first:
 * compared with the covered cities' names and at most {@linkcode SPELLING_SCAN} of the
 * gazetteer's that start with the same two letters, so the cost is bounded for any input.
 */
function _closeSpellings(catalog: Catalog, name: string) {
  if (name.length < 3 || name.length > SPELLING_MAX_LENGTH) return [];
  const budget = Math.max(1, Math.floor(name.length / 4));
  const close = (key: string) =>
    Math.abs(key.length - name.length) <= budget && editDistance(key, name) <= budget;
  const found: _Candidate[] = [];
  for (const key of catalog.coverage.locations.keys()) {
    if (close(key)) found.push(..._named(catalog, key).filter((c) => c.location));
  }
  for (const key of catalog.places.namesStartingWith(name.slice(0, 2), SPELLING_SCAN)) {
    if (!close(key)) continue;
    const [top] = _named(catalog, key);
    if (top) found.push(top);
  }
  const unique = [...new Map(found.map((c) => [_candidateLabel(c), c])).values()];
  return _shown(catalog, unique).candidates.slice(0, SPELLINGS);
}

/** Up to {@linkcode MAX_CANDIDATES} of `all`, covered ones (or in reach of one) first. */
function _shown(catalog: Catalog, all: readonly _Candidate[]) {
  const listed = all.slice(0, 4 * MAX_CANDIDATES).map((c) => ({
    c,
    covered: Boolean(c.location ?? (c.place && _coveringLocation(catalog, c.place))),
  }));
  const ordered = [...listed.filter((x) => x.covered), ...listed.filter((x) => !x.covered)]
    .slice(0, MAX_CANDIDATES);
  return {
    shown: ordered.map((x) => x.c),
    candidates: ordered.map(({ c, covered }) => ({ city: c.city, country: c.country, covered })),
  };
}

function _candidateLabel(c: _Candidate): string {
  return c.place ? _placeLabel(c.place) : `${c.city}, ${c.country}`;
}

/**
 * "Santa Clara, US-CA", "Slough, GB-ENG"; "Reykjavík, IS" where the subdivision is known by
 * a number only, or not at all.
 */
function _placeLabel(p: { name: string; country: string; subdivision: string | null }): string {
  return `${p.name}, ${
    p.subdivision && /-[A-Z]+$/.test(p.subdivision) ? p.subdivision : p.country
  }`;
}

function _state(covered: boolean): string {
  return covered ? "covered" : "not covered";
}

/** The covered locations closest to a point, nearest first. */
function nearestLocations(
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

/**
 * Whether `text` names a place: it has a letter, or it is a postcode (digits, with a space or
 * a dash: "20147", "20147-1234"); "," or " " names none.
 */
export function namesPlace(text: string): boolean {
  return /\p{L}/u.test(text) || POSTCODE.test(text.trim());
}

/** A postcode as written: read as a US ZIP code, any other refused with what to send. */
const POSTCODE = /^\d[\d -]{2,9}$/;

/** Great-circle distance, in kilometres. */
export function haversineKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}
