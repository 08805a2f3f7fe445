/**
 * @module
 * When a person is expected to have reviewed a submission: `REVIEW_HOURS` after it came in,
 * `REVIEW_HOURS_EMERGENCY` for `urgency: emergency`. Each submission's answer states it,
 * in figures and in its `next_step`, and so does the status read while it is pending.
 */

import type { Config } from "../config.ts";
import { HOUR_MS } from "../time.ts";
import { reviewTime } from "../web/words.js";

/** When the review is expected: hours after the submission, and the instant (ISO 8601). */
export interface ExpectedReview {
  within_hours: number;
  by: string;
}

/** The expected review of a submission received at `createdMs` with this urgency. */
export function expectedReview(
  config: Config,
  createdMs: number,
  urgency: unknown,
): ExpectedReview {
  const hours = urgency === "emergency"
    ? config.reviewHours.emergency
    : config.reviewHours.standard;
  return { within_hours: hours, by: new Date(createdMs + hours * HOUR_MS).toISOString() };
}

/**
 * The review time in words: "expected within 24 hours, by 2026-11-23 09:30 UTC", with
 * "as an emergency" for one; "later than expected (due …)" once `now` is past it.
 */
export function reviewWords(review: ExpectedReview, urgency: unknown, now?: number): string {
  const emergency = urgency === "emergency" ? " as an emergency" : "";
  if (now !== undefined && now > Date.parse(review.by)) {
    return `later than expected${emergency} (due ${reviewTime(review)})`;
  }
  return `expected${emergency} ${reviewTime(review)}`;
}
