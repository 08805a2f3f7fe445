/**
 * @module
 * The anonymous catalog and coverage reads (SPEC §4.6): `GET /api/v1/services` and
 * `GET /api/v1/locations`. No token; cacheable for 5 minutes.
 */

import type { Context } from "../context.ts";
import { boundedQuery } from "../http/query.ts";
import { CACHE_CONTROL, json, jsonText } from "../http/json.ts";
import { checkCoverage } from "./coverage.ts";
import { COVERAGE_FIELDS, parseLocationQuery } from "./coverage_query.ts";

const _publicCache = { "Cache-Control": CACHE_CONTROL.public };

/** `GET /api/v1/services`: the catalog, serialised once at load. */
export function publicServices(_req: Request, ctx: Context): Response {
  return jsonText(ctx.catalog.servicesBody, { headers: _publicCache });
}

/**
 * `GET /api/v1/locations?city=…[&country=…]`: coverage for a city, or with no `city`
 * the published locations (only those in `country` when it is given).
 */
export function publicLocations(req: Request, ctx: Context): Response {
  const { city, country } = parseLocationQuery(boundedQuery(req, COVERAGE_FIELDS));
  if (city !== undefined) {
    const coverage = checkCoverage(ctx.catalog, { city, country });
    ctx.demand.note(coverage);
    return json({ ok: true, coverage }, { headers: _publicCache });
  }
  if (country === undefined) return jsonText(ctx.catalog.locationsBody, { headers: _publicCache });
  const locations = ctx.catalog.locations.filter((l) => l.country === country);
  return json({ ok: true, locations }, { headers: _publicCache });
}
