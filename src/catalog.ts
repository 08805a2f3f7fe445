/**
 * @module
 * The service catalog and coverage locations, loaded once from the versioned
 * JSON files in `data/`, checked with zod, cross-checked, and serialised once.
 */

import { z } from "zod";
import servicesFile from "../data/services.v1.json" with { type: "json" };
import locationsFile from "../data/locations.v1.json" with { type: "json" };
import placesFile from "../data/places.v1.json" with { type: "json" };
import { type CoverageIndex, indexCoverage } from "./coverage.ts";
import { indexServices } from "./service_match.ts";

const Id = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/);
const Country = z.string().regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2, upper case");
const Name = z.string().min(1).max(100);

const Service = z.strictObject({
  id: Id,
  name: Name,
  /** Other names agents use for it ("cabling", "RMA"); see service_match.ts. */
  aliases: z.array(Name),
  description: z.string().min(1).max(1000),
  category: z.string().min(1).max(40),
  pricing: z.strictObject({
    currency: z.string().regex(/^[A-Z]{3}$/),
    hourly_rate: z.number().positive(),
    minimum_hours: z.number().positive(),
    out_of_hours_multiplier: z.number().min(1),
    call_out_fee: z.number().min(0),
  }),
});

export const Location = z.strictObject({
  id: Id,
  city: Name,
  country: Country,
  region: Name,
  aliases: z.array(Name),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  timezone: z.string().min(1),
  response_time_hours: z.number().int().positive(),
  services: z.array(Id).min(1),
});

const Place = z.strictObject({
  city: Name,
  country: Country,
  aliases: z.array(Name),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
});

const Version = { version: z.literal(1), updated: z.iso.date() };
const ServicesFile = z.strictObject({ ...Version, services: z.array(Service).min(1) });
const LocationsFile = z.strictObject({ ...Version, locations: z.array(Location).min(1) });
const PlacesFile = z.strictObject({ ...Version, source: z.string(), places: z.array(Place) });

export type Service = z.infer<typeof Service>;
export type Location = z.infer<typeof Location>;
export type Place = z.infer<typeof Place>;

export interface CatalogData {
  services: unknown;
  locations: unknown;
  places: unknown;
}

export interface Catalog {
  readonly services: readonly Service[];
  readonly locations: readonly Location[];
  /** Uncovered reference places, used to find the nearest covered city. */
  readonly places: readonly Place[];
  readonly serviceById: ReadonlyMap<string, Service>;
  /** Every id, name and alias as a match key (`serviceKey`) → its service. */
  readonly serviceByKey: ReadonlyMap<string, Service>;
  /** Normalised city names and aliases → locations and places. */
  readonly coverage: CoverageIndex;
  /** Serialised once: `{"ok":true,"services":[…]}`. */
  readonly servicesBody: string;
  /** Serialised once: `{"ok":true,"locations":[…]}`. */
  readonly locationsBody: string;
}

/** Validates catalog data and builds the catalog; throws one readable error per problem. */
export function buildCatalog(data: CatalogData): Catalog {
  const services = _parse("services.v1.json", ServicesFile, data.services).services;
  const locations = _parse("locations.v1.json", LocationsFile, data.locations).locations;
  const places = _parse("places.v1.json", PlacesFile, data.places).places;

  const serviceById = new Map(services.map((s) => [s.id, s]));
  _unique("services.v1.json", services.map((s) => s.id));
  _unique("locations.v1.json", locations.map((l) => l.id));
  for (const loc of locations) {
    const unknown = loc.services.filter((id) => !serviceById.has(id));
    if (unknown.length > 0) {
      throw new Error(
        `locations.v1.json: ${loc.id} offers unknown service(s) ${unknown.join(", ")}`,
      );
    }
  }
  return Object.freeze({
    services,
    locations,
    places,
    serviceById,
    serviceByKey: indexServices(services),
    coverage: indexCoverage(locations, places),
    servicesBody: JSON.stringify({ ok: true, services }),
    locationsBody: JSON.stringify({ ok: true, locations }),
  });
}

/** The catalog shipped in `data/` (imported as JSON modules: no read permission needed). */
export function loadCatalog(): Catalog {
  return buildCatalog({ services: servicesFile, locations: locationsFile, places: placesFile });
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
