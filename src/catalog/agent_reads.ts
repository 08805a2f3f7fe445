/**
 * @module
 * The protected read-only agent resource, `/api/v1/agent/*` (SPEC §4.5).
 * Every read needs a Bearer token with the matching scope; none writes anything.
 */

import type { Context } from "../context.ts";
import { checkCoverage } from "./coverage.ts";
import { boundedQuery } from "../http/query.ts";
import { CACHE_CONTROL, json, jsonText } from "../http/json.ts";
import { verifyBearer } from "../oauth/bearer.ts";
import { COVERAGE_FIELDS, parseCoverageQuery } from "./coverage_query.ts";

export async function agentServices(req: Request, ctx: Context): Promise<Response> {
  await verifyBearer(req, ctx, "services:read");
  return jsonText(ctx.catalog.servicesBody, { headers: _private });
}

export async function agentLocations(req: Request, ctx: Context): Promise<Response> {
  await verifyBearer(req, ctx, "locations:read");
  return jsonText(ctx.catalog.locationsBody, { headers: _private });
}

export async function agentCoverage(req: Request, ctx: Context): Promise<Response> {
  await verifyBearer(req, ctx, "coverage:read");
  const query = parseCoverageQuery(boundedQuery(req, COVERAGE_FIELDS));
  const coverage = checkCoverage(ctx.catalog, query);
  ctx.demand.note(coverage);
  return json({ ok: true, coverage }, { headers: _private });
}

// Answers to authenticated requests must not be stored by shared caches (RFC 9111 §3.5).
const _private = { "Cache-Control": CACHE_CONTROL.private };
