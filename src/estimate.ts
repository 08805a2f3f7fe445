/**
 * @module
 * The non-binding budget estimate of a quote request, computed from the catalog:
 * rate × engineers × max(hours, minimum) × out-of-hours multiplier + call-out fee,
 * given as a range whose top adds a contingency for overruns.
 */

import type { Service } from "./catalog.ts";
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

export function estimateBudget(
  service: Service,
  request: { engineer_count?: number; estimated_hours?: number; out_of_hours?: boolean },
  coverage: Coverage,
): BudgetEstimate {
  const p = service.pricing;
  const engineers = request.engineer_count ?? 1;
  const hours = Math.max(request.estimated_hours ?? p.minimum_hours, p.minimum_hours);
  const outOfHours = request.out_of_hours ?? false;
  const multiplier = outOfHours ? p.out_of_hours_multiplier : 1;
  const labour = p.hourly_rate * engineers * hours * multiplier;
  const notes: string[] = [];
  if (request.estimated_hours === undefined) {
    notes.push(`No estimated_hours given: the ${p.minimum_hours} h minimum was assumed.`);
  }
  if (coverage.match === "ambiguous" || coverage.match === "other_country") {
    notes.push(coverage.summary);
  } else if (!coverage.covered) {
    notes.push(
      "The city is outside published coverage: travel costs may apply and availability is not guaranteed.",
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

function _money(amount: number): number {
  return Math.round(amount * 100) / 100;
}
