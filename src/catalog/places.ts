/**
 * @module
 * The gazetteer behind the coverage check: `data/places.v2.json`, written by
 * `deno task data:places` (scripts/places.ts) from GeoNames and the other datasets it names.
 * Its tables stay the packed text the file holds: a table is one string, one row a line,
 * found by binary search over the lines' offsets (a `Uint32Array` made once), so some 50,000
 * places cost a few megabytes and no object each. A row becomes an object only when read.
 */

import { z } from "zod";

/** A populated place of the gazetteer. */
export interface GazetteerPlace {
  /** Its row: places are numbered most populous first. */
  id: number;
  name: string;
  country: string;
  /** ISO 3166-2 ("US-VA"), or null where the data gives none. */
  subdivision: string | null;
  latitude: number;
  longitude: number;
  timezone: string;
  population: number;
}

/** A name's match: the place, and whether it was by one of its other names ("Londres"). */
interface NameMatch {
  id: number;
  other: boolean;
}

/** An airport by its IATA code. */
export interface Airport {
  code: string;
  name: string;
  country: string;
  latitude: number;
  longitude: number;
  timezone: string;
  /**
   * The population it serves: the most populous place within 50 km (LHR: London's), by which
   * an airport of a name ranks against the towns of that name (Heathrow, FL has 5,896 people).
   */
  served: number;
}

/** The places file: packed text tables, one row a line (scripts/places.ts writes it). */
export const PlacesFile = z.strictObject({
  version: z.literal(2),
  /** Where each table comes from, with its licence. */
  sources: z.array(z.string().min(1)).min(1),
  /** Away from the covered cities, a place has this many people or more. */
  population_min: z.number().int().positive(),
  /** Within this many km of a covered city, every populated place is kept, whatever its size. */
  reach_km: z.number().int().positive(),
  /** IANA time zones; a place names its zone by index. */
  zones: z.array(z.string().min(1)).min(1),
  /** One place a line, most populous first: `CC\tsubdivision\tlat\tlon\tzone\tpopulation`. */
  places: z.string().min(1),
  /** Their names, a line each in the same order (apart: they are the only text not ASCII). */
  place_names: z.string().min(1),
  /** `key\tids`, sorted by key; ids in base 36, comma-separated, `~` before an other name's. */
  names: z.string().min(1),
  /** `key\tcodes`, sorted: a country (DE) or a subdivision (US-VA) a name or code stands for. */
  regions: z.string().min(1),
  /** `IATA\tname\tCC\tlat\tlon\tzone\tserved`, sorted by code. */
  airports: z.string().min(1),
  /** `key\tIATA,…`, sorted by key: airports by their names ("heathrow", "orly airport"). */
  airport_names: z.string().min(1),
  /**
   * Nine characters a code: the ZIP code, then the id of its place in base 36 (four). Checked
   * by length only: a pattern over 370 KB costs megabytes at start.
   */
  zips: z.string().refine((s) => s.length % 9 === 0, "9 characters a ZIP code"),
});
export type PlacesFile = z.infer<typeof PlacesFile>;

/** One packed table: its text and where each line starts (one past the end last). */
interface Table {
  text: string;
  starts: Uint32Array;
}

/** The gazetteer, read from the packed tables. */
export class Gazetteer {
  readonly #zones: readonly string[];
  readonly #places: Table;
  readonly #placeNames: Table;
  readonly #names: Table;
  readonly #regions: Table;
  readonly #airports: Table;
  readonly #airportNames: Table;
  readonly #zips: string;

  constructor(file: PlacesFile) {
    this.#zones = file.zones;
    this.#places = _table(file.places);
    this.#placeNames = _table(file.place_names);
    this.#names = _table(file.names);
    this.#regions = _table(file.regions);
    this.#airports = _table(file.airports);
    this.#airportNames = _table(file.airport_names);
    this.#zips = file.zips;
  }

  /** How many places it holds: their ids are 0 to `size - 1`. */
  get size(): number {
    return this.#places.starts.length - 1;
  }

  /** The place of row `id`. */
  place(id: number): GazetteerPlace {
    const [country, sub, lat, lon, zone, population] = _line(this.#places, id).split("\t");
    return {
      id,
      name: _line(this.#placeNames, id),
      country: country!,
      subdivision: sub ? `${country}-${sub}` : null,
      latitude: Number(lat),
      longitude: Number(lon),
      timezone: this.#zones[Number(zone)] ?? "UTC",
      population: Number(population),
    };
  }

  /** The places a normalised name means, most populous first. */
  named(key: string): NameMatch[] {
    const value = _lookup(this.#names, key);
    if (value === undefined) return [];
    return value.split(",").map((id) =>
      id.startsWith("~")
        ? { id: parseInt(id.slice(1), 36), other: true }
        : { id: parseInt(id, 36), other: false }
    ).sort((a, b) => a.id - b.id);
  }

  /** The countries ("DE") and subdivisions ("US-VA") a normalised name or code stands for. */
  regions(key: string): string[] {
    return _lookup(this.#regions, key)?.split(",") ?? [];
  }

  /**
   * Up to `limit` normalised names starting with `prefix`, in order: those around where `name`
   * sorts, so a name whose slip comes after its first letters finds its neighbours even in a
   * block of thousands ("san…"). Found by two binary searches; `limit` lines read.
   */
  namesAround(name: string, prefix: string, limit: number): string[] {
    const first = _lowerBound(this.#names, prefix);
    const end = _lowerBound(this.#names, `${prefix}\uffff`);
    const from = Math.max(
      first,
      Math.min(_lowerBound(this.#names, name) - (limit >> 1), end - limit),
    );
    const out: string[] = [];
    const { text, starts } = this.#names;
    for (let i = from; i < Math.min(end, from + limit); i++) {
      out.push(text.slice(starts[i]!, text.indexOf("\t", starts[i]!)));
    }
    return out;
  }

  /** The airport of an IATA code ("LHR"), or undefined. */
  airport(code: string): Airport | undefined {
    const value = _lookup(this.#airports, code.toUpperCase());
    if (value === undefined) return undefined;
    const [name, country, lat, lon, zone, served] = value.split("\t");
    return {
      code: code.toUpperCase(),
      name: name!,
      country: country!,
      latitude: Number(lat),
      longitude: Number(lon),
      timezone: this.#zones[Number(zone)] ?? "UTC",
      served: Number(served),
    };
  }

  /**
   * The airports a normalised name means ("heathrow", "orly", "schiphol airport"), the one
   * serving most people first. A city's name is never an airport's ("frankfurt"), and a name
   * places bear is one only where the airport serves ten times the people of the largest of
   * them (LHR serves London's 9 million; Heathrow, FL has 5,896): scripts/place_airports.ts.
   */
  airportsNamed(key: string): Airport[] {
    const codes = _lookup(this.#airportNames, key)?.split(",") ?? [];
    return codes.map((code) => this.airport(code)!)
      .sort((a, b) => b.served - a.served || (a.code < b.code ? -1 : 1));
  }

  /** The place a US ZIP code ("20147") is in, or undefined. */
  zip(code: string): GazetteerPlace | undefined {
    const count = this.#zips.length / _ZIP_WIDTH;
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.#zips.slice(mid * _ZIP_WIDTH, mid * _ZIP_WIDTH + 5);
      if (at === code) {
        return this.place(
          parseInt(this.#zips.slice(mid * _ZIP_WIDTH + 5, (mid + 1) * _ZIP_WIDTH), 36),
        );
      }
      if (at < code) lo = mid + 1;
      else hi = mid;
    }
    return undefined;
  }
}

/** Characters of one ZIP record: the code, then its place's row in base 36. */
const _ZIP_WIDTH = 9;

function _table(text: string): Table {
  let count = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  const starts = new Uint32Array(count + 1);
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts[line++] = i + 1;
  starts[count] = text.length + 1;
  return { text, starts };
}

function _line({ text, starts }: Table, i: number): string {
  return text.slice(starts[i]!, starts[i + 1]! - 1);
}

/** The first line whose key is not below `key`. */
function _lowerBound(table: Table, key: string): number {
  const { text, starts } = table;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = text.slice(starts[mid]!, text.indexOf("\t", starts[mid]!));
    if (at < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rest of the line whose key is `key`, or undefined. */
function _lookup(table: Table, key: string): string | undefined {
  const i = _lowerBound(table, key);
  if (i >= table.starts.length - 1) return undefined;
  const line = _line(table, i);
  const tab = line.indexOf("\t");
  return line.slice(0, tab) === key ? line.slice(tab + 1) : undefined;
}

/**
 * A place this close to a covered city's centre is covered by it: a town of its metro area,
 * an engineer's local drive (Santa Clara is 10 km from San Jose, Slough 32 km from London,
 * Heathrow 23 km). One distance for every location, so the rule is plain to a caller.
 */
export const NEARBY_KM = 40;

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
