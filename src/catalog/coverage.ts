/**
 * @module
 * Per-city coverage lookup: names match ignoring case, diacritics, punctuation and
 * aliases; an uncovered city known to the reference places gets the nearest
 * covered cities by great-circle distance.
 */

import type { Catalog } from "./catalog.ts";
import type { Location, Place } from "./records.ts";
import { normalizeName } from "./names.ts";
import { clip } from "../http/errors.ts";
import { regionCountries } from "./regions.ts";
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
  | "known_uncovered"
  | "ambiguous"
  | "other_country"
  | "unknown";

export interface Coverage {
  query: { city: string; country: string | null };
  /** How the name was resolved. */
  match: CoverageMatch;
  /** True only when the name resolved to one covered city. */
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
  services: { id: string; name: string }[];
  response_time_hours: number | null;
  /** For an uncovered city: the closest covered cities, nearest first. */
  nearest: NearbyLocation[];
  /**
   * For an ambiguous name, every city it could mean; for a city not found in the given
   * country, the countries where it is; for an unknown name, close spellings.
   */
  candidates: { city: string; country: string; covered: boolean }[];
}

const NEAREST = 3;

/**
 * Resolves a city (and optional country) to its published coverage. "Frankfurt, Germany"
 * and "San Jose, CA" are read as the city before the comma; the part after it is taken as
 * the country only when it names one where that city is.
 */
export function checkCoverage(catalog: Catalog, query: CoverageQuery): Coverage {
  return siteCoverage(catalog, query).coverage;
}

/**
 * The coverage of a city, and the site's IANA time zone: the covered location's, or the
 * known place's outside coverage; null when the name resolves to no one city.
 */
export function siteCoverage(
  catalog: Catalog,
  query: CoverageQuery,
): { coverage: Coverage; timeZone: string | null } {
  const { name, country, spellAs } = _resolveName(catalog, query);
  const allCovered = catalog.coverage.locations.get(name) ?? [];
  const allPlaces = catalog.coverage.places.get(name) ?? [];
  const inCountry = <T extends { country: string }>(xs: readonly T[]) =>
    country ? xs.filter((x) => x.country === country) : [...xs];
  const covered = inCountry(allCovered);
  const places = inCountry(allPlaces);
  const base: _Base = {
    query: { city: query.city, country: country ?? null },
    // Echoed in summaries, which estimates store: at most 60 characters of it.
    asked: clip(query.city.trim(), 60),
  };
  const unzoned = (coverage: Coverage) => ({ coverage, timeZone: null });
  if (covered.length + places.length > 1) return unzoned(_ambiguous(base, covered, places));
  const one = covered[0] ?? places[0];
  if (one) {
    const coverage = covered[0]
      ? _covered(catalog, base, covered[0])
      : _knownUncovered(catalog, base, places[0]!);
    return { coverage, timeZone: one.timezone };
  }
  if (country && allCovered.length + allPlaces.length > 0) {
    return unzoned(_otherCountry(base, country, allCovered, allPlaces));
  }
  return unzoned(_unknown(catalog, base, spellAs ?? name, country));
}

/** What every answer starts from: the query as read, and the city as echoed back. */
interface _Base {
  query: Coverage["query"];
  asked: string;
}

/** The fields an answer leaves empty unless its kind fills them. */
function _answer(base: _Base): Omit<Coverage, "match" | "summary"> {
  return {
    query: base.query,
    covered: false,
    location: null,
    services: [],
    response_time_hours: null,
    nearest: [],
    candidates: [],
  };
}

function _ambiguous(base: _Base, covered: Location[], places: Place[]): Coverage {
  const candidates = _candidates(covered, places);
  const listed = candidates.map((c) => `${c.city}, ${c.country} (${_state(c.covered)})`);
  return {
    ..._answer(base),
    match: "ambiguous",
    candidates,
    summary: `"${base.asked}" names ${candidates.length} cities: ${listed.join("; ")}. ` +
      "Ask again with country to choose one.",
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

function _knownUncovered(catalog: Catalog, base: _Base, place: Place): Coverage {
  const nearest = nearestLocations(catalog, place);
  const first = nearest[0];
  return {
    ..._answer(base),
    match: "known_uncovered",
    nearest,
    summary: `${place.city}, ${place.country} is not covered.` +
      (first
        ? ` The nearest covered city is ${first.city}, ${first.country}, ` +
          `${first.distance_km} km away, where an engineer is on site within ` +
          `${first.response_time_hours} h of a request; a quote can still be requested.`
        : ""),
  };
}

function _otherCountry(
  base: _Base,
  country: string,
  covered: readonly Location[],
  places: readonly Place[],
): Coverage {
  const candidates = _candidates(covered, places);
  const elsewhere = candidates.find((c) => c.covered) ?? candidates[0]!;
  return {
    ..._answer(base),
    match: "other_country",
    candidates,
    summary: `No city "${base.asked}" is known in ${country}, but ${elsewhere.city}, ` +
      `${elsewhere.country} is ${_state(elsewhere.covered)}: ask again with country ` +
      `${elsewhere.country} if that is the one.`,
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
 * The name to look up, and the country. A name that is not a known city as a whole is
 * tried as a city followed by where it is: after a comma ("San Jose, CA", "Frankfurt,
 * Germany"), or in its last one to three words ("Ashburn VA", "Frankfurt Germany",
 * "Portland New York"). That part is read as a US state or a country (regions.ts), and
 * taken as the country (where the city is, when it may mean several); after a comma the
 * city is taken even when the rest means nothing, without a comma only when it names a
 * region.
 */
function _resolveName(catalog: Catalog, query: CoverageQuery) {
  const country = query.country?.toUpperCase();
  const name = normalizeName(query.city);
  const known = (n: string) => catalog.coverage.locations.has(n) || catalog.coverage.places.has(n);
  if (known(name)) return { name, country };
  const comma = query.city.indexOf(",");
  const splits: { head: string; tail: string; comma: boolean }[] = [];
  if (comma > 0) {
    splits.push({
      head: normalizeName(query.city.slice(0, comma)),
      tail: query.city.slice(comma + 1),
      comma: true,
    });
  } else {
    const words = name.split(" ");
    for (let k = 1; k <= Math.min(3, words.length - 1); k++) {
      splits.push({
        head: words.slice(0, -k).join(" "),
        tail: words.slice(-k).join(" "),
        comma: false,
      });
    }
  }
  // What the caller wrote as the city, for close spellings when nothing matches ("Londn, UK").
  let spellAs: string | undefined;
  for (const { head, tail, comma } of splits) {
    const regions = regionCountries(tail);
    if (comma || regions.length) spellAs ??= head;
    if (!known(head)) continue;
    if (country && comma) return { name: head, country };
    // A tail that names nothing confirms nothing: "London, Ontario" is not London, GB.
    if (regions.length === 0) continue;
    const cities = [
      ...(catalog.coverage.locations.get(head) ?? []),
      ...(catalog.coverage.places.get(head) ?? []),
    ];
    // Named somewhere it is not ("Paris Texas"): that country, so the answer says so.
    const there = regions.find((code) => cities.some((c) => c.country === code)) ?? regions[0];
    return { name: head, country: country ?? there };
  }
  return { name, country, spellAs };
}

/** Known cities spelled within a typo or two of `name` (Frankfrut → Frankfurt). */
function _closeSpellings(catalog: Catalog, name: string) {
  const budget = Math.max(1, Math.floor(name.length / 4));
  const close = <T extends { city: string }>(index: ReadonlyMap<string, readonly T[]>) => {
    const out: T[] = [];
    for (const [key, items] of index) {
      if (Math.abs(key.length - name.length) <= budget && editDistance(key, name) <= budget) {
        out.push(...items);
      }
    }
    return [...new Set(out)];
  };
  return _candidates(close(catalog.coverage.locations), close(catalog.coverage.places)).slice(0, 3);
}

function _candidates(locations: readonly Location[], places: readonly Place[]) {
  return [
    ...locations.map((l) => ({ city: l.city, country: l.country, covered: true })),
    ...places.map((p) => ({ city: p.city, country: p.country, covered: false })),
  ];
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
      distance_km: Math.round(_haversineKm(point, l)),
      response_time_hours: l.response_time_hours,
    }))
    .sort((a, b) => a.distance_km - b.distance_km)
    .slice(0, count);
}

function _haversineKm(
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
