/**
 * @module
 * A price without a side effect: `estimate_quote` and `GET /api/v1/estimate` take a quote's
 * job fields and answer the budget estimate that `request_quote` would store for the same
 * job, with the city's coverage and every assumption. Nothing is stored, counted against
 * a submission limit or sent to anyone. A request is bounded before any work (the query by
 * http/query.ts, the tool's arguments by the MCP endpoint), then counted against the
 * address's own estimate limit, `RATE_LIMIT_ESTIMATE`.
 */

import { z } from "zod";
import type { Context } from "../context.ts";
import { clip, HttpError } from "../http/errors.ts";
import { CACHE_CONTROL, json } from "../http/json.ts";
import { PATHS } from "../http/paths.ts";
import { boundedQuery } from "../http/query.ts";
import { rateLimited } from "../http/rate_limit.ts";
import type { LenientFields } from "../intake/lenient.ts";
import { priceJob } from "./price_job.ts";
import { siteAnswer } from "../intake/site.ts";
import { JOB_FIELDS, QUOTE_LENIENCY, serviceTypeField } from "../intake/schemas.ts";

/**
 * The quote's job fields, and nothing else: what a price depends on. Validated exactly as
 * request_quote validates them, in its order, so that a refusal lists the same issues in
 * the same order; the fields with a long description in request_quote are described
 * briefly here, since tools/list carries both.
 */
export const EstimateInput = z.strictObject({
  city: JOB_FIELDS.city.meta({
    description: 'City of the site, any common spelling ("Ashburn VA", "Frankfurt, Germany").',
  }),
  service_type: serviceTypeField("A catalog service id, name or alias, as for request_quote."),
  country: JOB_FIELDS.country.meta({ description: "ISO 3166-1 alpha-2 code or English name." }),
  requested_date: JOB_FIELDS.requested_date.meta({ description: "YYYY-MM-DD, at the site." }),
  requested_time: JOB_FIELDS.requested_time.meta({
    description: "HH:MM, 24-hour, local at the site.",
  }),
  engineer_count: JOB_FIELDS.engineer_count,
  estimated_hours: JOB_FIELDS.estimated_hours,
  out_of_hours: JOB_FIELDS.out_of_hours,
  currency: JOB_FIELDS.currency,
  urgency: JOB_FIELDS.urgency.meta({
    description: "emergency with no date or time: priced from now.",
  }),
}).meta({ description: "The fields of request_quote a price depends on." });

const ESTIMATE_LENIENCY: LenientFields = {
  ...QUOTE_LENIENCY,
  optional: QUOTE_LENIENCY.optional.filter((name) => Object.hasOwn(EstimateInput.shape, name)),
};

/** Prices a job; throws the same 400 as `request_quote` for the same fields. */
export function estimateQuote(ctx: Context, sent: unknown): Record<string, unknown> {
  const job = priceJob(ctx, sent, EstimateInput, ESTIMATE_LENIENCY);
  ctx.demand.note(job.coverage);
  return {
    ok: true,
    stored: false,
    service_id: job.service.id,
    budget_estimate: job.budget_estimate,
    site: siteAnswer(ctx.catalog, job.site),
    coverage: job.coverage,
  };
}

/**
 * Runs `work` as one estimate of the caller's address, REST or MCP (inside the MCP
 * request's own charge): counted whatever it answers, `429` past `RATE_LIMIT_ESTIMATE`.
 */
export function estimateLimited<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  return rateLimited(ctx, "estimate", ctx.config.rateLimits.estimate, work);
}

const _FIELDS = Object.keys(EstimateInput.shape);

/** The 405 of another method at the estimate's path (a POST, say): what to send instead. */
export const ESTIMATE_BY_GET = `only GET is served here: an estimate takes the job in the ` +
  `query (GET ${PATHS.estimate}?city=Zurich&service_type=remote-hands), or the MCP tool ` +
  `estimate_quote, and stores nothing. To send a quote request a person reviews, POST ` +
  `${PATHS.quotes} (MCP tool request_quote).`;

/**
 * `GET /api/v1/estimate?city=…&service_type=…[&engineer_count=…]`: as `estimate_quote`, an
 * empty parameter taken as not given.
 */
export function getEstimate(req: Request, ctx: Context): Promise<Response> {
  // Before the limit: a query too big is refused for less than counting it would cost.
  const query = boundedQuery(req, _FIELDS);
  return estimateLimited(ctx, () => {
    const args: Record<string, string> = {};
    const seen = new Set<string>();
    for (const [name, value] of query) {
      if (seen.has(name)) {
        const message = `${clip(name, 64)} must be given once`;
        throw new HttpError(400, "invalid_query", message, { issues: [{ path: name, message }] });
      }
      seen.add(name);
      // An empty parameter (`requested_date=`) is not given, as a form's empty field is.
      if (value.trim() !== "") args[name] = value;
    }
    const headers = { "Cache-Control": CACHE_CONTROL.noStore };
    return Promise.resolve(json(estimateQuote(ctx, args), { headers }));
  });
}
