/**
 * @module
 * The coverage query (`city`, optional `country`), validated with zod. Shared by the
 * protected and the public coverage endpoints and the MCP tool.
 */

import { z } from "zod";
import type { CoverageQuery } from "./coverage.ts";
import { namesPlace } from "./place_reading.ts";
import { HttpError } from "../http/errors.ts";
import { lenientArguments, type LenientFields } from "../intake/lenient.ts";
import { CountryCode, fieldIssues, got } from "../intake/schemas.ts";

/** Longest accepted city name; the longest real ones are well under this. */
const CITY_MAX = 100;

export const CoverageQuerySchema = z.strictObject({
  city: z.string({
    error: (iss) =>
      iss.input === undefined ? "city is required" : `city must be a string; got ${got(iss.input)}`,
  }).trim()
    .min(1, "city must not be empty")
    .max(CITY_MAX, `city must be at most ${CITY_MAX} characters`)
    .refine(namesPlace, "city must name a place or a postcode")
    .meta({
      description: "A city (Zuerich; Ashburn, VA), an airport (FRA, Heathrow), a US ZIP code, " +
        "or the site as written (Equinix DC11).",
      examples: ["Frankfurt", "Santa Clara, CA", "FRA"],
    }),
  country: CountryCode.optional().meta({
    description: "ISO 3166-1 alpha-2 code of the city's country, any case (a name such as " +
      "Germany is understood too). Optional; give it when a name exists in several countries.",
    examples: ["DE", "US"],
  }),
}).meta({ description: "A city, and optionally its country." });

/** The parameters a coverage query reads (any other is ignored). */
export const COVERAGE_FIELDS = ["city", "country"] as const;

const _LocationQuery = CoverageQuerySchema.partial({ city: true });

/** `country: null` is no country; a country name is its code (see intake/lenient.ts). */
export const COVERAGE_LENIENCY: LenientFields = { optional: ["country"], countries: ["country"] };

/** Validates `city` (optional here) and `country` from a query string; 400 lists every problem. */
export function parseLocationQuery(search: URLSearchParams): Partial<CoverageQuery> {
  const input: Record<string, string> = {};
  for (const name of COVERAGE_FIELDS) {
    const values = search.getAll(name);
    if (values.length > 1) {
      throw new HttpError(400, "invalid_query", `${name} must be given once`, {
        issues: [{ path: name, message: `${name} must be given once` }],
      });
    }
    if (values[0] !== undefined) input[name] = values[0];
  }
  const res = _LocationQuery.safeParse(lenientArguments(input, COVERAGE_LENIENCY));
  if (!res.success) {
    const issues = fieldIssues(res.error);
    throw new HttpError(400, "invalid_query", issues.map((i) => i.message).join("; "), { issues });
  }
  return res.data;
}

/** As {@linkcode parseLocationQuery}, with `city` required. */
export function parseCoverageQuery(search: URLSearchParams): CoverageQuery {
  const query = parseLocationQuery(search);
  if (query.city === undefined) {
    throw new HttpError(400, "invalid_query", "city is required", {
      issues: [{ path: "city", message: "city is required" }],
    });
  }
  return { city: query.city, country: query.country };
}
