/**
 * @module
 * What a review list row shows of who sent a submission: the company, the contact and the
 * city, taken from the request as it was accepted and stored with the record, so that a
 * list reads no request.
 */

import type { SubmissionSummary } from "../store/submissions.ts";

/** At most 64 characters of each of company, contact (the name, else the email) and city. */
export function summaryOf(request: Record<string, unknown>): SubmissionSummary {
  const text = (v: unknown) =>
    typeof v === "string" && v.trim() ? [...v.trim()].slice(0, 64).join("") : null;
  return {
    company: text(request.company),
    contact: text(request.contact_name) ?? text(request.email),
    city: text(request.city),
  };
}
