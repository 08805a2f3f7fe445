/**
 * @module
 * What the place resolver (coverage.ts) answers: the query it takes and the shape of its
 * answer, which REST, MCP, the estimate and submissions (stored in budget estimates) share.
 */

import type { ServiceAt } from "./catalog.ts";
import type { NearbyLocation } from "./place_reading.ts";

export interface CoverageQuery {
  city: string;
  /** ISO 3166-1 alpha-2; narrows the match when a name exists in several countries. */
  country?: string | undefined;
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
  /** Offered at the covered location, each with the hours of notice it needs there. */
  services: ServiceAt[];
  response_time_hours: number | null;
  /** For a place that is not a covered city: the closest covered cities, nearest first. */
  nearest: NearbyLocation[];
  /**
   * For an ambiguous name, the cities it could mean; for a city not found where it was said
   * to be, where it is; for a country, its covered cities; for an unknown name, close
   * spellings.
   */
  candidates: { city: string; country: string; covered: boolean }[];
  /**
   * How a site written as more than a place name was read: the part read as the place, the
   * facility it names, and the parts read as no place (a street, a building). Null when the
   * text was read as a place name whole.
   */
  site: SiteReading | null;
}

/** See {@linkcode Coverage.site}. */
interface SiteReading {
  read_from: string | null;
  facility: {
    id: string;
    operator: string;
    name: string;
    address: string;
    location: string;
  } | null;
  ignored: string[];
}

/** A site's coverage, its IANA time zone and where it is; both null for no one place. */
export interface SiteCoverage {
  coverage: Coverage;
  timeZone: string | null;
  point: { latitude: number; longitude: number } | null;
}
