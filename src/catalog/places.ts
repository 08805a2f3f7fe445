/**
 * @module
 * The gazetteer behind the coverage check: `data/places.v3.bin`, written by
 * `deno task data:places` (scripts/places.ts) from GeoNames and the other datasets it names:
 * a JSON header line, then packed text tables, one row a line. The service reads the file as
 * bytes and keeps them as they are: a key is found by binary search over a table's line
 * offsets (a `Uint32Array` made once), comparing bytes, and only the row found is decoded
 * into a string and an object. No JSON parse of the tables, no string of them in the heap:
 * against the JSON module it was (data/places.v2.json, 4.9 MB), idle memory fell by about
 * 9 MB and the heap live after a full collection by about 6 MB (docs/performance.md,
 * "Memory").
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

/** The tables of the places file, as scripts/places.ts builds them: text, one row a line. */
interface PlacesTables {
  version: 3;
  /** Where each table comes from, with its licence. */
  sources: string[];
  /** Away from the covered cities, a place has this many people or more. */
  population_min: number;
  /** Within this many km of a covered city, every populated place is kept, whatever its size. */
  reach_km: number;
  /** IANA time zones; a place names its zone by index. */
  zones: string[];
  /** One place a line, most populous first: `CC\tsubdivision\tlat\tlon\tzone\tpopulation`. */
  places: string;
  /** Their names, a line each in the same order (the only text not ASCII). */
  place_names: string;
  /** `key\tids`, sorted by key; ids in base 36, comma-separated, `~` before an other name's. */
  names: string;
  /** `key\tcodes`, sorted: a country (DE) or a subdivision (US-VA) a name or code stands for. */
  regions: string;
  /** `IATA\tname\tCC\tlat\tlon\tzone\tserved`, sorted by code. */
  airports: string;
  /** `key\tIATA,…`, sorted by key: airports by their names ("heathrow", "orly airport"). */
  airport_names: string;
  /** Nine characters a code: the ZIP code, then the id of its place in base 36 (four). */
  zips: string;
}

const TABLES = [
  "places",
  "place_names",
  "names",
  "regions",
  "airports",
  "airport_names",
  "zips",
] as const;

/** The file's first line: everything but the tables, and where each table's bytes are. */
const PlacesHeader = z.strictObject({
  version: z.literal(3),
  sources: z.array(z.string().min(1)).min(1),
  population_min: z.number().int().positive(),
  reach_km: z.number().int().positive(),
  zones: z.array(z.string().min(1)).min(1),
  /** Each table's first byte and its end, after the header line. */
  tables: z.strictObject(
    Object.fromEntries(TABLES.map((t) => [t, z.tuple([z.number().int(), z.number().int()])])),
  ),
});

/**
 * `data/places.v3.bin`: a JSON header line, then the tables' UTF-8 bytes one after the other.
 * The service reads it as bytes and never parses it whole (see the module documentation).
 */
export function encodePlaces(file: PlacesTables): Uint8Array {
  const encoder = new TextEncoder();
  const bodies = TABLES.map((t) => encoder.encode(file[t]));
  let at = 0;
  const tables = Object.fromEntries(TABLES.map((t, i) => {
    const range = [at, at + bodies[i]!.byteLength];
    at += bodies[i]!.byteLength;
    return [t, range];
  }));
  const { version, sources, population_min, reach_km, zones } = file;
  const header = encoder.encode(
    `${JSON.stringify({ version, sources, population_min, reach_km, zones, tables })}\n`,
  );
  const out = new Uint8Array(header.byteLength + at);
  out.set(header);
  let offset = header.byteLength;
  for (const body of bodies) {
    out.set(body, offset);
    offset += body.byteLength;
  }
  return out;
}

/** One packed table: its bytes and where each line starts (one past the end last). */
interface Table {
  bytes: Uint8Array;
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
  readonly #zips: Uint8Array;

  /** From the bytes of `data/places.v3.bin` (`encodePlaces`); throws on any other. */
  constructor(file: Uint8Array) {
    const newline = file.indexOf(0x0a);
    const read = PlacesHeader.safeParse(JSON.parse(_decoder.decode(file.subarray(0, newline))));
    if (!read.success) {
      throw new Error(read.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
    }
    const header = read.data;
    const body = file.subarray(newline + 1);
    const bytes = (t: (typeof TABLES)[number]) => body.subarray(...header.tables[t]!);
    this.#zones = header.zones;
    this.#places = _table(bytes("places"));
    this.#placeNames = _table(bytes("place_names"));
    this.#names = _table(bytes("names"));
    this.#regions = _table(bytes("regions"));
    this.#airports = _table(bytes("airports"));
    this.#airportNames = _table(bytes("airport_names"));
    this.#zips = bytes("zips");
    if (this.#zips.byteLength % _ZIP_WIDTH) throw new Error("places: 9 bytes a ZIP code");
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
   * Up to `limit` normalised names sharing `name`'s first two letters, in order: those around
   * where `name` sorts, so a name whose slip comes after its first letters finds its neighbours
   * even in a block of thousands ("san…"). Found by three binary searches; `limit` lines read.
   */
  namesAround(name: string, limit: number): string[] {
    const table = this.#names;
    const want = _encoder.encode(name.slice(0, 2));
    const first = _lowerBound(table, want);
    const end = _lowerBound(table, Uint8Array.of(...want, 0xff));
    const from = Math.max(
      first,
      Math.min(_lowerBound(table, _encoder.encode(name)) - (limit >> 1), end - limit),
    );
    const out: string[] = [];
    for (let i = from; i < Math.min(end, from + limit); i++) {
      out.push(_decoder.decode(_key(table, i)));
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
    const want = _encoder.encode(code);
    if (want.byteLength !== 5) return undefined;
    let lo = 0;
    let hi = this.#zips.byteLength / _ZIP_WIDTH;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.#zips.subarray(mid * _ZIP_WIDTH, mid * _ZIP_WIDTH + 5);
      const order = _compare(at, want);
      if (order === 0) {
        const id = this.#zips.subarray(mid * _ZIP_WIDTH + 5, (mid + 1) * _ZIP_WIDTH);
        return this.place(parseInt(_decoder.decode(id), 36));
      }
      if (order < 0) lo = mid + 1;
      else hi = mid;
    }
    return undefined;
  }
}

/** Bytes of one ZIP record: the code, then its place's row in base 36. */
const _ZIP_WIDTH = 9;

const _encoder = new TextEncoder();
const _decoder = new TextDecoder();

function _table(bytes: Uint8Array): Table {
  let count = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) count++;
  const starts = new Uint32Array(count + 1);
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
    starts[line++] = i + 1;
  }
  starts[count] = bytes.byteLength + 1;
  return { bytes, starts };
}

function _line({ bytes, starts }: Table, i: number): string {
  return _decoder.decode(bytes.subarray(starts[i]!, starts[i + 1]! - 1));
}

/** The bytes of line `i`'s key: up to its first tab. */
function _key({ bytes, starts }: Table, i: number): Uint8Array {
  const line = bytes.subarray(starts[i]!, starts[i + 1]! - 1);
  const tab = line.indexOf(0x09);
  return tab === -1 ? line : line.subarray(0, tab);
}

/** Byte order of `a` and `b`, as JavaScript orders the ASCII keys the script sorted. */
function _compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.byteLength - b.byteLength;
}

/** The first line whose key is not below `key`. */
function _lowerBound(table: Table, key: Uint8Array): number {
  let lo = 0;
  let hi = table.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (_compare(_key(table, mid), key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rest of the line whose key is `key`, or undefined. */
function _lookup(table: Table, key: string): string | undefined {
  const want = _encoder.encode(key);
  const i = _lowerBound(table, want);
  if (i >= table.starts.length - 1 || _compare(_key(table, i), want) !== 0) return undefined;
  const line = _line(table, i);
  return line.slice(line.indexOf("\t") + 1);
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
