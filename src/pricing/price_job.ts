/**
 * @module
 * Pricing a job: the quote's job fields read (argument synonyms, forgiving values), the
 * service and the city resolved, and the non-binding estimate computed. One function for
 * `request_quote`, which stores the result, and `estimate_quote`, which stores nothing, so
 * an estimate equals what a quote for the same job stores.
 */

import type { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import type { Context } from "../context.ts";
import { type Coverage, siteCoverage } from "../catalog/coverage.ts";
import type { SiteCoverage } from "../catalog/coverage_types.ts";
import { holidayCalendar } from "../catalog/holidays.ts";
import { type BudgetEstimate, estimateBudget } from "./budget.ts";
import { withTerms } from "./terms.ts";
import { readSentStart } from "./start_issues.ts";
import { formatClock, instantToLocal } from "./site_time.ts";
import { expectedReview } from "../intake/review_time.ts";
import type { Service } from "../catalog/records.ts";
import { closestService, findService } from "../catalog/service_match.ts";
import type { FieldIssue } from "../http/errors.ts";
import { lenientArguments, type LenientFields, readSynonyms } from "../intake/lenient.ts";
import { argumentNames, fieldIssues, validationFailed } from "../intake/schemas.ts";

/** The job fields a price depends on, as the quote schema validates them. */
interface Job {
  city: string;
  country?: string | undefined;
  service_type: string;
  engineer_count?: number | undefined;
  estimated_hours?: number | undefined;
  out_of_hours?: boolean | undefined;
  requested_date?: string | undefined;
  requested_time?: string | undefined;
  urgency?: string | undefined;
  currency?: string | undefined;
}

interface PricedJob<T extends Job> {
  /** The arguments as read (synonyms and forgiving values applied), before validation. */
  raw: unknown;
  input: T;
  service: Service;
  coverage: Coverage;
  /** The site as read: its coverage, time zone and point. */
  site: SiteCoverage;
  budget_estimate: BudgetEstimate;
}

/**
 * Reads, validates and prices a job. Every problem is listed in one 400: the schema's,
 * `extra` ones found on the read arguments (additional properties of a quote), an unknown
 * service, a date in the past (found even when the time is malformed), and a city that is
 * a likely typo of a covered one.
 */
export function priceJob<T extends Job>(
  ctx: Pick<Context, "catalog" | "config" | "now">,
  sent: unknown,
  schema: z.ZodType<T>,
  leniency: LenientFields,
  extra: (raw: unknown) => FieldIssue[] = () => [],
): PricedJob<T> {
  const { catalog } = ctx;
  const now = ctx.now();
  const synonyms = readSynonyms(sent);
  const raw = lenientArguments(synonyms.value, leniency);
  const parsed = schema.safeParse(raw);
  const issues = [
    ...synonyms.issues,
    ...(parsed.success ? [] : fieldIssues(parsed.error, argumentNames(schema))),
    ...extra(raw),
  ];
  // The catalog checks run even when other fields failed, so every problem is listed at once.
  const service = _service(catalog, raw, issues);
  // The city is checked even when another field failed, for the same reason.
  const { city, country } = sentPlace(raw, parsed.data);
  const site = city ? siteCoverage(catalog, { city, country }) : undefined;
  const coverage = site?.coverage;
  // The date and time are the site's local time: "in the past" is judged there.
  const start = readSentStart(raw, issues, {
    zone: site?.timeZone ?? null,
    place: coverage?.place?.name ?? coverage?.location?.city ?? null,
  }, now);
  const typo = coverage && cityTypo(coverage, country);
  if (typo) issues.push(typo);
  if (!parsed.success || !service || !site || !coverage || issues.length) {
    throw validationFailed(issues);
  }
  const input = parsed.data;
  const priced = withTerms(
    estimateBudget(service, input, {
      coverage,
      start,
      holidays: holidayCalendar(catalog.holidays, coverage.location?.id),
      holidaysUntil: catalog.holidays.to,
      now,
    }, synonyms.renamed),
    catalog,
    coverage,
    input.currency,
  );
  const budget_estimate = input.urgency !== "emergency" ? priced : {
    ...priced,
    note: [priced.note, _emergencyReview(ctx, now, start.zone)].filter(Boolean).join(" "),
  };
  return { raw, input, service, coverage, site, budget_estimate };
}

/**
 * What an emergency's estimate says of its review: when a person reviews it, and that no
 * one is dispatched before. The same on an estimate, which is no request, as on the quote.
 */
function _emergencyReview(
  ctx: Pick<Context, "config">,
  now: number,
  zone: string | null,
): string {
  const review = expectedReview(ctx.config, now, "emergency");
  const by = Date.parse(review.by);
  const local = zone ? `, ${formatClock(instantToLocal(zone, by).minutes)} at the site` : "";
  return `A person reviews an emergency within ${review.within_hours} h (by ` +
    `${review.by.slice(0, 16).replace("T", " ")} UTC${local}, if sent now); no one is ` +
    "dispatched before that review.";
}

/**
 * The city and country of a submission or an estimate, as validated, or as sent when
 * validation failed (another field's problem must not hide the city's): `city` empty when
 * there is none to look up.
 */
export function sentPlace(
  raw: unknown,
  valid: { city?: string | undefined; country?: string | undefined } | undefined,
): { city: string; country: string | undefined } {
  const read = raw as { city?: unknown; country?: unknown } | null;
  const city = valid?.city ??
    (typeof read?.city === "string" && read.city.length <= 200 ? read.city.trim() : "");
  const country = valid?.country ??
    (typeof read?.country === "string" && /^[A-Za-z]{2}$/.test(read.country)
      ? read.country.toUpperCase()
      : undefined);
  return { city, country };
}

/**
 * A city that is no place we know but a likely typo of a covered one ("Londn"): refused
 * with the suggestion, since storing it would say "outside coverage" for a covered city.
 * Given with a country other than the suggestion's, the name is taken as meant.
 */
export function cityTypo(coverage: Coverage, country: string | undefined): FieldIssue | undefined {
  if (coverage.match !== "unknown") return undefined;
  const close = coverage.candidates.find((c) => c.covered && (!country || c.country === country));
  if (!close) return undefined;
  return {
    path: "city",
    message: `"${coverage.query.city.slice(0, 60)}" is not a city we know; did you mean ` +
      `${close.city} (country ${close.country}, covered)? Send the city as spelled there, or ` +
      "give country if you mean another place of this name.",
  };
}

function _service(catalog: Catalog, raw: unknown, issues: FieldIssue[]) {
  const serviceType = (raw as { service_type?: unknown } | null)?.service_type;
  // Over the schema's 200 characters it is refused as such, without a search for the
  // closest service.
  if (typeof serviceType !== "string" || !serviceType.trim() || serviceType.length > 200) {
    return undefined;
  }
  const service = findService(catalog, serviceType);
  if (!service) {
    const close = closestService(catalog, serviceType);
    issues.push({
      path: "service_type",
      message: `service_type "${serviceType.trim().slice(0, 60)}" is not a catalog service` +
        (close ? `; did you mean ${close.id}?` : ".") +
        ` Valid ids: ${catalog.services.map((s) => s.id).join(", ")}` +
        " (list_services gives their names and aliases). For anything else, submit_lead " +
        "takes the request in your own words.",
    });
  }
  return service;
}
