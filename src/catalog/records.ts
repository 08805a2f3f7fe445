/**
 * @module
 * The records of the catalog's data files (`data/*.v1.json`) as zod schemas, and their
 * types: a service, the commercial terms, a coverage location, a datacenter it serves, and each
 * file's envelope (the places file's is in places.ts).
 */

import { z } from "zod";
import { normalizeName } from "./names.ts";

const Id = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/);
const Country = z.string().regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2, upper case");
const Name = z.string().min(1).max(100);
const TimeZone = z.string().refine(_isTimeZone, "an IANA time zone, such as Europe/Berlin");

export const Service = z.strictObject({
  id: Id,
  name: Name,
  /** Other names agents use for it ("cabling", "RMA"); see service_match.ts. */
  aliases: z.array(Name),
  description: z.string().min(1).max(1000),
  category: z.string().min(1).max(40),
  /** Hours between a request and the earliest start that needs no confirmation. */
  minimum_notice_hours: z.number().min(0),
  pricing: z.strictObject({
    currency: z.string().regex(/^[A-Z]{3}$/),
    hourly_rate: z.number().positive(),
    minimum_hours: z.number().positive(),
    out_of_hours_multiplier: z.number().min(1),
    call_out_fee: z.number().min(0),
  }),
});

/**
 * The commercial terms of every price: one currency, tax excluded, and the tax each country
 * adds (its name, never a rate: the quotation states the rate in force).
 */
export const Terms = z.strictObject({
  currency: z.string().regex(/^[A-Z]{3}$/),
  /** Prices exclude tax: the estimate's wording (pricing/terms.ts) says so. */
  tax_included: z.literal(false),
  statement: z.string().min(1).max(1000),
  tax: z.array(z.strictObject({ tax: Name, countries: z.array(Country).min(1) })).min(1),
});

export const Location = z.strictObject({
  id: Id,
  city: Name,
  country: Country,
  /** ISO 3166-2, where the site's public holidays differ by region (DE-HE, US-VA). */
  subdivision: z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/, "ISO 3166-2, such as DE-HE")
    .optional(),
  region: Name,
  aliases: z.array(Name),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  timezone: TimeZone,
  response_time_hours: z.number().int().positive(),
  services: z.array(Id).min(1),
});

/** A name the facility index matches by its words: it must keep a letter or digit. */
const Words = z.string().min(1).max(100).refine(
  (s) => normalizeName(s) !== "",
  "a letter or digit",
);

/**
 * A datacenter campus or building a location serves (data/facilities.v1.json), named as its
 * operator writes it; facilities.ts finds it in a site's text.
 */
export const Facility = z.strictObject({
  id: Id,
  /** The location that serves it: within NEARBY_KM (places.ts) of its coordinates. */
  location: Id,
  /** One of the file's `operators`, by its `name`. */
  operator: Name,
  /** The operator's codes, as the operator writes them: "DC11", "FRA13", "Frankfurt 1". */
  codes: z.array(Words),
  name: Words,
  /** Other names customers use: a former operator's ("Interxion AMS8"), a building's. */
  aliases: z.array(Words).optional(),
  address: z.string().min(1).max(200),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
});

/** An operator and its other names ("Interxion" for Digital Realty in Europe). */
export const FacilityOperator = z.strictObject({ name: Words, aliases: z.array(Words) });

const Version = { version: z.literal(1), updated: z.iso.date() };
export const ServicesFile = z.strictObject({
  ...Version,
  services: z.array(Service).min(1),
  terms: Terms,
});
export const LocationsFile = z.strictObject({ ...Version, locations: z.array(Location).min(1) });
export const FacilitiesFile = z.strictObject({
  ...Version,
  operators: z.array(FacilityOperator).min(1),
  facilities: z.array(Facility).min(1),
});

/**
 * `data/holidays.v1.json`, written by `deno task data:holidays`: each location's public
 * holidays (date → English name) for the years `from` to `to`, from the holiday region
 * (country, ISO 3166-2 subdivision, finer region) named.
 */
export const HolidaysFile = z.strictObject({
  version: z.literal(1),
  source: z.string().min(1),
  years: z.strictObject({ from: z.number().int(), to: z.number().int() }),
  locations: z.record(
    Id,
    z.strictObject({ region: z.string().min(2), holidays: z.record(z.iso.date(), Name) }),
  ),
});

export type Service = z.infer<typeof Service>;
export type Terms = z.infer<typeof Terms>;
export type Location = z.infer<typeof Location>;
export type HolidaysFile = z.infer<typeof HolidaysFile>;
export type Facility = z.infer<typeof Facility>;
export type FacilityOperator = z.infer<typeof FacilityOperator>;

/** Whether `zone` is an IANA time zone this runtime knows (Intl refuses any other). */
function _isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
