/**
 * @module
 * The service catalog, coverage locations, their public holidays and the datacenters they
 * serve, loaded once from the versioned JSON files in `data/`, checked with zod, cross-checked,
 * and serialised once.
 */

import { z } from "zod";
import servicesFile from "../../data/services.v1.json" with { type: "json" };
import locationsFile from "../../data/locations.v1.json" with { type: "json" };
import holidaysFile from "../../data/holidays.v1.json" with { type: "json" };
import facilitiesFile from "../../data/facilities.v1.json" with { type: "json" };
import { FacilityIndex } from "./facilities.ts";
import { normalizeName, serviceKeys } from "./names.ts";
import { type HolidayIndex, indexHolidays } from "./holidays.ts";
import { Gazetteer, type GazetteerPlace, haversineKm, NEARBY_KM } from "./places.ts";
import {
  FacilitiesFile,
  type Facility,
  HolidaysFile,
  type Location,
  LocationsFile,
  type Service,
  ServicesFile,
  type Terms,
} from "./records.ts";

interface CatalogData {
  services: unknown;
  locations: unknown;
  /** The bytes of data/places.v3.bin. */
  places: Uint8Array;
  holidays: unknown;
  /** data/facilities.v1.json; omitted, the catalog knows no facility. */
  facilities?: unknown;
}

/**
 * A service as the catalog publishes it: with the notice it needs at each location that
 * offers it ({@linkcode noticeHours}), so no reader takes `minimum_notice_hours` alone for
 * the notice at a site.
 */
type PublishedService = Service & {
  /** Location id → hours of notice there. */
  notice_hours_by_location: Record<string, number>;
};

/** A service as a coverage answer lists it at a covered location. */
export interface ServiceAt {
  id: string;
  name: string;
  notice_hours: number;
}

export interface Catalog {
  readonly services: readonly PublishedService[];
  /** Currency and tax of every price (data/services.v1.json `terms`). */
  readonly terms: Terms;
  /** Country code → the tax a quotation adds there ("VAT", "sales tax"). */
  readonly taxByCountry: ReadonlyMap<string, string>;
  readonly locations: readonly Location[];
  readonly locationById: ReadonlyMap<string, Location>;
  /** The gazetteer (data/places.v3.bin): towns, airports, ZIP codes, regions by name. */
  readonly places: Gazetteer;
  readonly serviceById: ReadonlyMap<string, PublishedService>;
  /** Location id → the services offered there, with their notice there. */
  readonly servicesAt: ReadonlyMap<string, readonly ServiceAt[]>;
  /** Every id, name and alias as a match key (`serviceKey`) → its service. */
  readonly serviceByKey: ReadonlyMap<string, Service>;
  /** Normalised city names and aliases → locations, and each location's gazetteer place. */
  readonly coverage: CoverageIndex;
  /** Each location's public holidays, for the years the data covers. */
  readonly holidays: HolidayIndex;
  /** The datacenters the locations serve (data/facilities.v1.json). */
  readonly facilities: readonly Facility[];
  /** Their operators, codes and names, found in a site's words. */
  readonly facilityIndex: FacilityIndex;
  /** Serialised once: `{"ok":true,"services":[…],"terms":{…}}`. */
  readonly servicesBody: string;
  /** Serialised once: `{"ok":true,"locations":[…]}`. */
  readonly locationsBody: string;
}

/** Validates catalog data and builds the catalog; throws one readable error per problem. */
export function buildCatalog(data: CatalogData): Catalog {
  const parsed = _parse("services.v1.json", ServicesFile, data.services);
  const terms = parsed.terms;
  const locations = _parse("locations.v1.json", LocationsFile, data.locations).locations;
  const places = _gazetteer(data.places);
  const holidays = _parse("holidays.v1.json", HolidaysFile, data.holidays);
  const { operators, facilities } = data.facilities === undefined
    ? { operators: [], facilities: [] }
    : _parse("facilities.v1.json", FacilitiesFile, data.facilities);

  const known = new Set(parsed.services.map((s) => s.id));
  const locationById = new Map(locations.map((l) => [l.id, l]));
  _unique("services.v1.json", parsed.services.map((s) => s.id));
  _unique("locations.v1.json", locations.map((l) => l.id));
  for (const loc of locations) {
    const unknown = loc.services.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new Error(
        `locations.v1.json: ${loc.id} offers unknown service(s) ${unknown.join(", ")}`,
      );
    }
    if (loc.subdivision && !loc.subdivision.startsWith(`${loc.country}-`)) {
      throw new Error(`locations.v1.json: ${loc.id} is in ${loc.country}, not ${loc.subdivision}`);
    }
  }
  const services = parsed.services.map((s) => _published(s, locations));
  const serviceById = new Map(services.map((s) => [s.id, s]));
  const taxByCountry = _taxByCountry(terms, services, locations);
  _checkFacilities(facilities, locationById);
  return Object.freeze({
    services,
    terms,
    taxByCountry,
    locations,
    locationById,
    places,
    serviceById,
    servicesAt: new Map(locations.map((l) => [
      l.id,
      l.services.map((id) => {
        const service = serviceById.get(id)!;
        return {
          id,
          name: service.name,
          notice_hours: noticeHours(service, l.response_time_hours),
        };
      }),
    ])),
    serviceByKey: indexServices(services),
    coverage: indexCoverage(locationById, places),
    holidays: indexHolidays(holidays, locations),
    facilities,
    facilityIndex: new FacilityIndex(operators, facilities),
    servicesBody: JSON.stringify({ ok: true, services, terms }),
    locationsBody: JSON.stringify({ ok: true, locations }),
  });
}

/** Where the gazetteer's bytes are, beside the JSON files. */
export const PLACES_FILE = new URL("../../data/places.v3.bin", import.meta.url);

/**
 * The catalog shipped in `data/`: the JSON files imported as modules, the gazetteer read as
 * bytes (the one file the service reads, with read permission on `data/`).
 */
export function loadCatalog(): Catalog {
  return buildCatalog({
    services: servicesFile,
    locations: locationsFile,
    places: Deno.readFileSync(PLACES_FILE),
    holidays: holidaysFile,
    facilities: facilitiesFile,
  });
}

/**
 * The hours of notice a service needs at a site: its own `minimum_notice_hours`, and at a
 * covered site at least the location's `response_time_hours` (an engineer's time to reach
 * it). The catalog publishes it for each location; an estimate applies it (pricing/budget.ts).
 */
export function noticeHours(service: Service, responseTimeHours: number | null): number {
  return Math.max(service.minimum_notice_hours, responseTimeHours ?? 0);
}

/** A service with its notice at each location that offers it, keys in the file's order. */
function _published(service: Service, locations: readonly Location[]): PublishedService {
  const { pricing, ...rest } = service;
  const notice = locations.filter((l) => l.services.includes(service.id))
    .map((l) => [l.id, noticeHours(service, l.response_time_hours)]);
  return { ...rest, notice_hours_by_location: Object.fromEntries(notice), pricing };
}

/**
 * Each facility's id is unique, and its location exists and lies within `NEARBY_KM` of it:
 * the distance that location covers. (The index checks operators, codes and names.)
 */
function _checkFacilities(
  facilities: readonly Facility[],
  locationById: ReadonlyMap<string, Location>,
): void {
  _unique("facilities.v1.json", facilities.map((f) => f.id));
  for (const facility of facilities) {
    const location = locationById.get(facility.location);
    if (!location) {
      throw new Error(
        `facilities.v1.json: ${facility.id} is served by unknown location ${facility.location}`,
      );
    }
    const km = haversineKm(facility, location);
    if (km > NEARBY_KM) {
      throw new Error(
        `facilities.v1.json: ${facility.id} lies ${km.toFixed(1)} km from ${location.city} ` +
          `(${location.id}), beyond the ${NEARBY_KM} km a location covers`,
      );
    }
  }
}

/**
 * The tax of each country, checked against the catalog: every price is in the terms'
 * currency (an estimate says "EUR only" on that ground), no country has two taxes, and
 * every covered country has one.
 */
function _taxByCountry(
  terms: Terms,
  services: readonly Service[],
  locations: readonly Location[],
): Map<string, string> {
  const other = services.find((s) => s.pricing.currency !== terms.currency);
  if (other) {
    throw new Error(
      `services.v1.json: ${other.id} is priced in ${other.pricing.currency}, not the terms' ` +
        terms.currency,
    );
  }
  const taxes = new Map<string, string>();
  for (const rule of terms.tax) {
    for (const country of rule.countries) {
      if (taxes.has(country)) throw new Error(`services.v1.json: terms tax lists ${country} twice`);
      taxes.set(country, rule.tax);
    }
  }
  const untaxed = [...new Set(locations.map((l) => l.country))].filter((c) => !taxes.has(c));
  if (untaxed.length) {
    throw new Error(`services.v1.json: terms tax does not name ${untaxed.join(", ")}`);
  }
  return taxes;
}

/** The gazetteer from its bytes, or one readable error naming the file. */
function _gazetteer(bytes: Uint8Array): Gazetteer {
  try {
    return new Gazetteer(bytes);
  } catch (err) {
    throw new Error(`places.v3.bin: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function _parse<T>(file: string, schema: z.ZodType<T>, value: unknown): T {
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  const first = res.error.issues[0]!;
  throw new Error(`${file}: ${first.path.join(".") || "(root)"}: ${first.message}`);
}

function _unique(file: string, ids: string[]): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new Error(`${file}: duplicate id ${id}`);
    seen.add(id);
  }
}

interface CoverageIndex {
  readonly locations: ReadonlyMap<string, readonly Location[]>;
  /**
   * Location id → the gazetteer's place of that name within its reach (the most populous):
   * the location's population and subdivision when a name is shared.
   */
  readonly twins: ReadonlyMap<string, GazetteerPlace>;
  /** The other way: a twin's row → its location ("Londres" is London's row: covered). */
  readonly twinOf: ReadonlyMap<number, Location>;
  /** The countries some location is in. */
  readonly countries: ReadonlySet<string>;
}

/** Indexes every name and alias once, at catalog load. */
function indexCoverage(
  byId: ReadonlyMap<string, Location>,
  places: Gazetteer,
): CoverageIndex {
  const byName = new Map<string, Location[]>();
  const twins = new Map<string, GazetteerPlace>();
  for (const loc of byId.values()) {
    for (const name of new Set([loc.city, ...loc.aliases].map(normalizeName))) {
      byName.set(name, [...(byName.get(name) ?? []), loc]);
      for (const { id } of places.named(name)) {
        const place = places.place(id);
        const best = twins.get(loc.id);
        if (haversineKm(place, loc) > NEARBY_KM || (best && best.population >= place.population)) {
          continue;
        }
        twins.set(loc.id, place);
      }
    }
  }
  const twinOf = new Map([...twins].map(([id, place]) => [place.id, byId.get(id)!]));
  const countries = new Set([...byId.values()].map((l) => l.country));
  return { locations: byName, twins, twinOf, countries };
}

/**
 * Every key of every service (id, name, aliases) → the service. Two services sharing a
 * key would make a name mean either, so that is an error at catalog load.
 */
function indexServices(services: readonly Service[]): Map<string, Service> {
  const byKey = new Map<string, Service>();
  for (const service of services) {
    const names = [service.id, service.name, ...service.aliases];
    for (const key of new Set(names.flatMap(serviceKeys))) {
      const other = byKey.get(key);
      if (other && other !== service) {
        throw new Error(
          `services.v1.json: "${key}" names both ${other.id} and ${service.id}`,
        );
      }
      byKey.set(key, service);
    }
  }
  return byKey;
}
