/**
 * @module
 * The non-binding budget estimate of a quote request, computed from the catalog:
 * rate × engineers × max(hours, minimum) × out-of-hours multiplier + call-out fee,
 * given as a range whose top adds a contingency for overruns.
 */

import type { Service } from "../catalog/records.ts";
import type { Coverage } from "../catalog/coverage.ts";

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
    out_of_hours: boolean;
    out_of_hours_multiplier: number;
    call_out_fee: number;
    contingency: number;
  };
  /**
   * Every input the price depends on that the caller did not give as such: a default, a
   * value read from another argument name, or one inferred (out_of_hours from the date
   * and time). Empty when every input was given.
   */
  assumptions: Assumption[];
  /** Set when the estimate is less certain, e.g. the city is outside published coverage. */
  note: string | null;
}

/** One input of the estimate the caller did not choose as such, and why it has its value. */
interface Assumption {
  field: "engineer_count" | "estimated_hours" | "out_of_hours" | "currency";
  value: number | boolean | string;
  why: string;
}

/** What the estimate needs to know besides the service and the coverage. */
interface EstimateRequest {
  engineer_count?: number;
  estimated_hours?: number;
  out_of_hours?: boolean;
  requested_date?: string;
  requested_time?: string;
}

/**
 * Business hours at the site: 08:00 to 18:00 local time, Monday to Friday. When a quote
 * leaves out `out_of_hours`, it is inferred from `requested_date` and `requested_time`
 * against these hours; when it is sent, the estimate follows it.
 */
export const BUSINESS_HOURS = { from: "08:00", to: "18:00" } as const;

/**
 * The non-binding estimate of a quote. `renamed` names the inputs that were read from
 * another argument name (`engineers` for `engineer_count`; see intake/lenient.ts), so
 * that `assumptions` can say so.
 */
export function estimateBudget(
  service: Service,
  request: EstimateRequest,
  coverage: Coverage,
  renamed: readonly { from: string; to: string }[] = [],
): BudgetEstimate {
  const p = service.pricing;
  const job = _readJob(service, request, coverage, renamed);
  const multiplier = job.outOfHours ? p.out_of_hours_multiplier : 1;
  const labour = p.hourly_rate * job.engineers * job.hours * multiplier;
  const notes = [
    ..._hoursNotes(service, request, job.outside, job.outOfHours),
    ..._coverageNotes(service, coverage),
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
      out_of_hours: job.outOfHours,
      out_of_hours_multiplier: p.out_of_hours_multiplier,
      call_out_fee: p.call_out_fee,
      contingency: CONTINGENCY,
    },
    assumptions: job.assumptions,
    note: notes.length ? notes.join(" ") : null,
  };
}

/**
 * The job as priced: engineers, hours (at least the service's minimum) and whether it is
 * out of hours, with an assumption for every value the caller did not give as such.
 */
function _readJob(
  service: Service,
  request: EstimateRequest,
  coverage: Coverage,
  renamed: readonly { from: string; to: string }[],
) {
  const p = service.pricing;
  const assumptions: Assumption[] = [];
  const given = (field: Assumption["field"], value: number | boolean) => {
    const from = renamed.find((r) => r.to === field)?.from;
    if (from) assumptions.push({ field, value, why: `read from ${from}` });
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
  const outside = _outsideBusinessHours(request);
  const outOfHours = request.out_of_hours ?? outside !== undefined;
  if (request.out_of_hours === undefined) {
    assumptions.push({
      field: "out_of_hours",
      value: outOfHours,
      why: _outOfHoursWhy(request, outside, coverage),
    });
  } else given("out_of_hours", outOfHours);
  return { engineers, hours, outside, outOfHours, assumptions };
}

/** Why out_of_hours has the value it was inferred to have. */
function _outOfHoursWhy(
  request: EstimateRequest,
  outside: string | undefined,
  coverage: Coverage,
): string {
  const hoursAt = `business hours at the site (${BUSINESS_HOURS.from} to ${BUSINESS_HOURS.to} ` +
    `local time${coverage.location ? ` in ${coverage.location.timezone}` : ""}, Monday to Friday)`;
  if (outside) return `inferred: ${outside.replace(/,$/, "")} is outside ${hoursAt}`;
  if (request.requested_date || request.requested_time) {
    return `inferred: the requested date and time are within ${hoursAt}`;
  }
  return `not given, and no requested_date or requested_time: ${hoursAt} assumed`;
}

/** What the estimate says about the hours billed and the time of the work. */
function _hoursNotes(
  service: Service,
  request: EstimateRequest,
  outside: string | undefined,
  outOfHours: boolean,
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
  const hours = `business hours (${BUSINESS_HOURS.from} to ${BUSINESS_HOURS.to} local time, ` +
    "Monday to Friday)";
  if (outside && request.out_of_hours === undefined) {
    notes.push(
      `${outside} is outside ${hours}: out-of-hours rates apply; send out_of_hours: false ` +
        "if the work can happen in business hours.",
    );
  } else if (outside && !outOfHours) {
    notes.push(
      `${outside} is outside ${hours}: this estimate uses business-hours rates, as ` +
        "out_of_hours: false asks.",
    );
  }
  return notes;
}

/** What the estimate says about where the work is: uncertain, uncovered, or not offered there. */
function _coverageNotes(service: Service, coverage: Coverage): string[] {
  if (coverage.match === "ambiguous" || coverage.match === "other_country") {
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

/** "requested_time 22:00" or "requested_date 2026-11-28, a Saturday", or undefined. */
function _outsideBusinessHours(request: EstimateRequest): string | undefined {
  const time = request.requested_time;
  if (time && (time < BUSINESS_HOURS.from || time >= BUSINESS_HOURS.to)) {
    return `requested_time ${time}`;
  }
  if (request.requested_date) {
    const day = new Date(`${request.requested_date}T12:00:00Z`).getUTCDay();
    if (day === 0 || day === 6) {
      return `requested_date ${request.requested_date}, a ${day === 0 ? "Sunday" : "Saturday"},`;
    }
  }
  return undefined;
}

function _money(amount: number): number {
  return Math.round(amount * 100) / 100;
}
