/**
 * @module
 * The non-binding budget estimate of a quote request, computed from the catalog:
 * rate × engineers × max(hours, minimum) × out-of-hours multiplier + call-out fee,
 * given as a range whose top adds a contingency for overruns.
 */

import type { Service } from "./records.ts";
import type { Coverage } from "./coverage.ts";

/** Share added to the labour cost for the top of the range. */
export const CONTINGENCY = 0.25;

export interface BudgetEstimate {
  currency: string;
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
  /** Set when the estimate is less certain, e.g. the city is outside published coverage. */
  note: string | null;
}

/** What the estimate needs to know besides the service and the coverage. */
export interface EstimateRequest {
  engineer_count?: number;
  estimated_hours?: number;
  out_of_hours?: boolean;
  requested_date?: string;
  requested_time?: string;
}

/**
 * Business hours at the site, for the out-of-hours hint: 08:00 to 18:00 local time,
 * Monday to Friday. The estimate itself follows `out_of_hours` as sent.
 */
export const BUSINESS_HOURS = { from: "08:00", to: "18:00" } as const;

/**
 * The non-binding estimate of a quote. `ignored` names the arguments that look like one
 * of the estimate's inputs misnamed (`engineers` for `engineer_count`): the note says
 * they were not used, so an agent does not take a wrong price for a right one.
 */
export function estimateBudget(
  service: Service,
  request: EstimateRequest,
  coverage: Coverage,
  ignored: readonly { name: string; meant: string }[] = [],
): BudgetEstimate {
  const p = service.pricing;
  const engineers = request.engineer_count ?? 1;
  const hours = Math.max(request.estimated_hours ?? p.minimum_hours, p.minimum_hours);
  const outOfHours = request.out_of_hours ?? false;
  const multiplier = outOfHours ? p.out_of_hours_multiplier : 1;
  const labour = p.hourly_rate * engineers * hours * multiplier;
  const notes: string[] = [];
  if (ignored.length) {
    notes.push(
      `Not used for the estimate: ${
        ignored.map((i) => `${i.name} (did you mean ${i.meant}?)`).join(", ")
      }.`,
    );
  }
  if (request.estimated_hours === undefined) {
    notes.push(`No estimated_hours given: the ${p.minimum_hours} h minimum was assumed.`);
  } else if (request.estimated_hours < p.minimum_hours) {
    notes.push(
      `estimated_hours ${request.estimated_hours} is below the ${p.minimum_hours} h minimum ` +
        `of ${service.name}: ${p.minimum_hours} h per engineer is billed.`,
    );
  }
  const outside = _outsideBusinessHours(request);
  if (!outOfHours && outside) {
    notes.push(
      `${outside} is outside business hours (${BUSINESS_HOURS.from} to ${BUSINESS_HOURS.to} ` +
        "local time, Monday to Friday): this estimate uses business-hours rates; send " +
        "out_of_hours: true if the work must happen then.",
    );
  }
  if (coverage.match === "ambiguous" || coverage.match === "other_country") {
    notes.push(
      `${coverage.summary.replace(/ Ask again[^.]*\.$/, "")} The request is stored and a person ` +
        "will confirm the city with you; there is no need to send it again.",
    );
  } else if (!coverage.covered) {
    notes.push(
      "The city is outside published coverage: travel costs may apply and availability is not guaranteed.",
    );
  } else if (coverage.location && !coverage.services.some((s) => s.id === service.id)) {
    notes.push(
      `${service.name} is not listed at ${coverage.location.city}, ` +
        `${coverage.location.country}: a person will confirm whether it can be done there.`,
    );
  }
  return {
    currency: p.currency,
    low: _money(labour + p.call_out_fee),
    high: _money(labour * (1 + CONTINGENCY) + p.call_out_fee),
    non_binding: true,
    basis: {
      service_id: service.id,
      hourly_rate: p.hourly_rate,
      engineers,
      hours,
      hours_assumed: request.estimated_hours === undefined,
      minimum_hours: p.minimum_hours,
      out_of_hours: outOfHours,
      out_of_hours_multiplier: p.out_of_hours_multiplier,
      call_out_fee: p.call_out_fee,
      contingency: CONTINGENCY,
    },
    note: notes.length ? notes.join(" ") : null,
  };
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
