/**
 * @module
 * Per-city coverage lookup: names match ignoring case, diacritics, punctuation and
 * aliases; an uncovered city known to the reference places gets the nearest
 * covered cities by great-circle distance.
 */

import type { Catalog, Location, Place } from "./catalog.ts";

export interface CoverageQuery {
  city: string;
  /** ISO 3166-1 alpha-2; narrows the match when a name exists in several countries. */
  country?: string | undefined;
}

export interface NearbyLocation {
  id: string;
  city: string;
  country: string;
  distance_km: number;
  response_time_hours: number;
}

export interface Coverage {
  query: { city: string; country: string | null };
  /** How the name was resolved. */
  match: "covered" | "reference_place" | "ambiguous" | "unknown";
  covered: boolean;
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
  /** For an ambiguous name: every city it could mean; repeat the query with `country`. */
  candidates: { city: string; country: string; covered: boolean }[];
}

export interface CoverageIndex {
  readonly locations: ReadonlyMap<string, readonly Location[]>;
  readonly places: ReadonlyMap<string, readonly Place[]>;
}

const NEAREST = 3;

// Letters that Unicode decomposition does not reduce to ASCII.
const _FOLD: Readonly<Record<string, string>> = {
  "ø": "o",
  "æ": "ae",
  "œ": "oe",
  "ß": "ss",
  "ł": "l",
  "đ": "d",
  "ð": "d",
  "þ": "th",
  "ı": "i",
};

/** "Zürich" → "zurich", "Frankfurt/Main" → "frankfurt main", "København" → "kobenhavn". */
export function normalizeName(name: string): string {
  return name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[øæœßłđðþı]/g, (c) => _FOLD[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** Indexes every name and alias once, at catalog load. */
export function indexCoverage(
  locations: readonly Location[],
  places: readonly Place[],
): CoverageIndex {
  return { locations: _index(locations), places: _index(places) };
}

function _index<T extends { city: string; aliases: string[] }>(items: readonly T[]) {
  const map = new Map<string, T[]>();
  for (const item of items) {
    for (const name of new Set([item.city, ...item.aliases].map(normalizeName))) {
      map.set(name, [...(map.get(name) ?? []), item]);
    }
  }
  return map;
}

/** Resolves a city (and optional country) to its published coverage. */
export function checkCoverage(catalog: Catalog, query: CoverageQuery): Coverage {
  const name = normalizeName(query.city);
  const country = query.country?.toUpperCase();
  const inCountry = <T extends { country: string }>(xs: readonly T[] = []) =>
    country ? xs.filter((x) => x.country === country) : [...xs];
  const covered = inCountry(catalog.coverage.locations.get(name));
  const places = inCountry(catalog.coverage.places.get(name));
  const base = {
    query: { city: query.city, country: country ?? null },
    covered: false,
    location: null,
    services: [],
    response_time_hours: null,
    nearest: [],
    candidates: [],
  };

  if (covered.length + places.length > 1) {
    const candidates = [
      ...covered.map((l) => ({ city: l.city, country: l.country, covered: true })),
      ...places.map((p) => ({ city: p.city, country: p.country, covered: false })),
    ];
    return { ...base, match: "ambiguous", candidates };
  }
  const loc = covered[0];
  if (loc) {
    return {
      ...base,
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
    };
  }
  const place = places[0];
  if (place) {
    return { ...base, match: "reference_place", nearest: nearestLocations(catalog, place) };
  }
  return { ...base, match: "unknown" };
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
