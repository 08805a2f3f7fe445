/**
 * @module
 * The non-binding budget estimate of a quote request, computed from the catalog: the job's
 * hours per engineer (at least the minimum), laid out in days of at most 10 h (work_days.ts)
 * and split into hours inside and outside business hours at the site, rate × engineers ×
 * (inside + outside × out-of-hours multiplier) + call-out fee, given as a range whose top
 * adds a contingency for overruns; and whether the start is sooner than the service's notice.
 */

import type { Service } from "../catalog/records.ts";
import type { Coverage } from "../catalog/coverage.ts";
import { noticeHours } from "../catalog/catalog.ts";
import type { HolidayCalendar } from "../catalog/holidays.ts";
import { type Assumption, type JobStart, shortNotice } from "./job_start.ts";
import { BUSINESS_HOURS, describeOutside, type SpanSplit, splitSpan } from "./work_span.ts";
import { describeDays, MAX_DAY_HOURS } from "./work_days.ts";
import { parseClock } from "./site_time.ts";

/** Share added to the labour cost for the top of the range. */
const CONTINGENCY = 0.25;

export interface BudgetEstimate {
  currency: string;
  /**
   * false: the amounts exclude tax, and `tax` says which tax the quotation adds at the site
   * (pricing/terms.ts). Absent on estimates stored before they were stated.
   */
  tax_included?: false;
  tax?: string;
  low: number;
  high: number;
  non_binding: true;
  basis: {
    service_id: string;
    hourly_rate: number;
    engineers: number;
    hours: number;
    hours_assumed: boolean;
    minimum_hours: number;
    /**
     * The days the hours per engineer are laid out on, each of `hours_per_day` (at most 10)
     * from the start's local time (absent from estimates stored before it).
     */
    work_days?: number;
    hours_per_day?: number;
    /** True when any hour is priced out of hours. */
    out_of_hours: boolean;
    /** Hours per engineer priced out of hours (absent from estimates stored before it). */
    hours_out_of_hours?: number;
    out_of_hours_multiplier: number;
    call_out_fee: number;
    contingency: number;
    /** The site's IANA time zone the date and time were read in; null when unknown. */
    time_zone?: string | null;
    /** Hours of notice the service needs at the site. */
    notice_hours?: number;
    /** True when the requested start is sooner than that. */
    short_notice?: boolean;
  };
  /**
   * Every input the price depends on that the caller did not give as such: a default, a
   * value read from another argument name, one inferred (out_of_hours from the date and
   * time), or a reading of the date and time (no zone known, a start time assumed).
   * Empty when every input was given.
   */
  assumptions: Assumption[];
  /** Set when the estimate is less certain, e.g. the city is outside published coverage. */
  note: string | null;
}

/** What the estimate needs to know besides the service and the site. */
interface EstimateRequest {
  engineer_count?: number;
  estimated_hours?: number;
  out_of_hours?: boolean;
  requested_date?: string;
  requested_time?: string;
}

/** Where and when the job is: the city's coverage, the start read there, its holidays. */
interface JobSite {
  coverage: Coverage;
  start: JobStart;
  holidays: HolidayCalendar;
  /** The last year the holiday data covers. */
  holidaysUntil: number;
  now: number;
}

/**
 * The non-binding estimate of a quote. `renamed` names the inputs that were read from
 * another argument name (`engineers` for `engineer_count`; see intake/lenient.ts), or given
 * under one too with the same value (`same`), so that `assumptions` lists each.
 */
export function estimateBudget(
  service: Service,
  request: EstimateRequest,
  site: JobSite,
  renamed: readonly { from: string; to: string; same?: true }[],
): BudgetEstimate {
  const p = service.pricing;
  const job = _readJob(service, request, site, renamed);
  const labour = p.hourly_rate * job.engineers *
    (job.hours - job.outside + job.outside * p.out_of_hours_multiplier);
  const notice = _notice(service, site);
  const notes = [
    ..._hoursNotes(service, request, job, site.start.zone),
    ...(notice.note ? [notice.note] : []),
    ..._coverageNotes(service, site.coverage),
  ];
  return {
    currency: p.currency,
    low: _money(labour + p.call_out_fee),
    high: _money(labour * (1 + CONTINGENCY) + p.call_out_fee),
    non_binding: true,
    basis: {
      service_id: service.id,
      hourly_rate: p.hourly_rate,
      engineers: job.engineers,
      hours: job.hours,
      hours_assumed: request.estimated_hours === undefined,
      minimum_hours: p.minimum_hours,
      work_days: job.span.days.shifts.length,
      hours_per_day: job.span.days.hoursPerDay,
      out_of_hours: job.outside > 0,
      hours_out_of_hours: job.outside,
      out_of_hours_multiplier: p.out_of_hours_multiplier,
      call_out_fee: p.call_out_fee,
      contingency: CONTINGENCY,
      time_zone: site.start.zone,
      notice_hours: notice.hours,
      short_notice: notice.note !== undefined,
    },
    assumptions: job.assumptions,
    note: notes.length ? notes.join(" ") : null,
  };
}

/**
 * The job as priced: engineers, hours (at least the service's minimum) and how many of
 * them are out of hours, with an assumption for every value the caller did not give as such.
 */
function _readJob(
  service: Service,
  request: EstimateRequest,
  site: JobSite,
  renamed: readonly { from: string; to: string; same?: true }[],
) {
  const p = service.pricing;
  const assumptions: Assumption[] = [];
  // Every synonym read as a field (intake/lenient.ts) is stated, as the value it gave.
  const given = (field: Assumption["field"], value: Assumption["value"]) => {
    for (const r of renamed.filter((r) => r.to === field)) {
      const why = r.same ? `also given as ${r.from}, with the same value` : `read from ${r.from}`;
      assumptions.push({ field, value, why });
    }
  };
  const engineers = request.engineer_count ?? 1;
  if (request.engineer_count === undefined) {
    assumptions.push({ field: "engineer_count", value: 1, why: "not given: one engineer" });
  } else given("engineer_count", engineers);
  const hours = Math.max(request.estimated_hours ?? p.minimum_hours, p.minimum_hours);
  if (request.estimated_hours === undefined) {
    assumptions.push({
      field: "estimated_hours",
      value: hours,
      why: `not given: the ${p.minimum_hours} h minimum of ${service.name} per engineer`,
    });
  } else given("estimated_hours", request.estimated_hours);
  given("requested_date", request.requested_date ?? null);
  given("requested_time", request.requested_time ?? null);
  assumptions.push(...site.start.assumptions);
  const { zone, date, minutes } = site.start;
  // With no date or time, days from 08:00: every hour within business hours.
  const from = minutes ?? parseClock(BUSINESS_HOURS.from);
  const span = splitSpan(zone ?? "UTC", { date, minutes: from }, hours, site.holidays);
  const days = describeDays(zone ?? "UTC", span.days, {
    dated: date !== null,
    timed: minutes !== null,
  });
  assumptions.push({
    field: "work_days",
    value: span.days.shifts.length,
    why: `hours per engineer, in days of at most ${MAX_DAY_HOURS} h: ${days}`,
  });
  const outside = request.out_of_hours === undefined
    ? span.outside
    : request.out_of_hours
    ? hours
    : 0;
  if (request.out_of_hours === undefined) {
    assumptions.push({
      field: "out_of_hours",
      value: outside > 0,
      why: _outOfHoursWhy(span, site),
    });
  } else given("out_of_hours", request.out_of_hours);
  return { engineers, hours, outside, span, days, assumptions };
}

/** Why out_of_hours has the value it was inferred to have. */
function _outOfHoursWhy(span: SpanSplit, site: JobSite): string {
  const zone = site.start.zone;
  const hours = `business hours (${BUSINESS_HOURS.from} to ${BUSINESS_HOURS.to} local time` +
    `${zone ? ` in ${zone}` : ""}, Monday to Friday, public holidays excepted)`;
  if (site.start.minutes === null) {
    return `not given, and no requested_date or requested_time: ${hours} at the site assumed`;
  }
  const holidays = !span.holidaysUnknownFrom
    ? ""
    : site.coverage.location
    ? `; the holiday data ends with ${site.holidaysUntil}: no public holiday assumed after it`
    : "; public holidays are known only at covered sites: none assumed";
  if (span.outside === 0) {
    return `inferred: the ${_number(span.inside)} h from the requested start are within ` +
      `${hours}${holidays}`;
  }
  // The zone is named once, in the hours: not again in the reasons.
  return `inferred: ${_outside(span)} are outside ${hours}: ${describeOutside(span, null)}` +
    holidays;
}

/** What the estimate says about the hours billed and the time of the work. */
function _hoursNotes(
  service: Service,
  request: EstimateRequest,
  { span, days }: { span: SpanSplit; days: string },
  zone: string | null,
): string[] {
  const p = service.pricing;
  const notes: string[] = [];
  if (request.estimated_hours === undefined) {
    notes.push(`No estimated_hours given: the ${p.minimum_hours} h minimum was assumed.`);
  } else if (request.estimated_hours < p.minimum_hours) {
    notes.push(
      `estimated_hours ${request.estimated_hours} is below the ${p.minimum_hours} h minimum ` +
        `of ${service.name}: ${p.minimum_hours} h per engineer is billed.`,
    );
  }
  if (span.days.shifts.length > 1) {
    notes.push(`Priced as ${days} (at most ${MAX_DAY_HOURS} h a day).`);
  }
  if (span.outside === 0 || request.out_of_hours === true) return notes;
  const outside = `${_outside(span)} per engineer are outside business hours ` +
    `(${describeOutside(span, zone)})`;
  notes.push(
    request.out_of_hours === undefined
      ? `${outside}: out-of-hours rates apply to them; send out_of_hours: false if the work ` +
        "can happen in business hours."
      : `${outside}: this estimate uses business-hours rates, as out_of_hours: false asks.`,
  );
  return notes;
}

/** "5.5 of 6 h" */
function _outside(span: SpanSplit): string {
  return `${_number(span.outside)} of ${_number(span.inside + span.outside)} h`;
}

function _number(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** The notice the service needs at the site, and the note when the start is sooner. */
function _notice(service: Service, site: JobSite): { hours: number; note?: string } {
  const travel = site.coverage.response_time_hours ?? 0;
  const hours = noticeHours(service, travel);
  const note = shortNotice(site.start, {
    service: service.name,
    hours,
    travel: travel > service.minimum_notice_hours
      ? `at ${site.coverage.location?.city ?? "the site"} (an engineer's time to reach it)`
      : null,
  }, site.now);
  return note ? { hours, note } : { hours };
}

/**
 * True when the name was read as no one place (several cities, a city in another country
 * than the one given, or a whole country): a person confirms the city, and a submission's
 * record says its coverage is unknown.
 */
export function noOnePlace(coverage: Coverage): boolean {
  return coverage.match === "ambiguous" || coverage.match === "other_country" ||
    coverage.match === "country";
}

/** What the estimate says about where the work is: uncertain, uncovered, or not offered there. */
function _coverageNotes(service: Service, coverage: Coverage): string[] {
  if (noOnePlace(coverage)) {
    return [
      `${coverage.summary.replace(/ Ask again[^.]*\.$/, "")} The request is stored and a person ` +
      "will confirm the city with you; there is no need to send it again.",
    ];
  }
  if (coverage.match === "unknown") {
    return [
      "The city is not one we know: a person will confirm where it is; travel costs may apply.",
    ];
  }
  if (!coverage.covered) {
    return [
      "The city is outside published coverage: travel costs may apply and availability is not guaranteed.",
    ];
  }
  if (coverage.location && !coverage.services.some((s) => s.id === service.id)) {
    return [
      `${service.name} is not listed at ${coverage.location.city}, ` +
      `${coverage.location.country}: a person will confirm whether it can be done there.`,
    ];
  }
  return [];
}

function _money(amount: number): number {
  return Math.round(amount * 100) / 100;
}
