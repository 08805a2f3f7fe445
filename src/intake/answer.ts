/**
 * @module
 * The answer to an accepted lead or quote request, REST and MCP alike: its id, that a person
 * reviews it and when, that nothing was ordered, how its service and site were read, and the
 * properties it kept unread (`ignored`), in a list and in words.
 */

import type { BudgetEstimate } from "../pricing/budget.ts";
import type { SubmissionKind } from "../store/submissions.ts";
import type { Ignored } from "./bounds.ts";
import { type ExpectedReview, reviewWords } from "./review_time.ts";
import type { SiteAnswer } from "./site.ts";

/** The answer to an accepted submission (SPEC §2.4/§2.5), as REST and MCP give it. */
export interface SubmissionResult {
  ok: true;
  request_id: string;
  /** The status read's word for the same state (status.ts): one vocabulary. */
  status: "pending";
  requires_human_approval: true;
  billable_order_created: false;
  /** What happens next, the expected review time included, in a sentence to relay. */
  next_step: string;
  expected_review: ExpectedReview;
  /** The catalog service `service_type` was understood as, or null. */
  service_id: string | null;
  /** How the city (and a quote's site_address) was read; null for a lead without a city. */
  site: SiteAnswer | null;
  budget_estimate?: BudgetEstimate;
  /** Every additional property, kept for the reviewer and read as no field; next_step says so. */
  ignored: Ignored[];
  /** True when this is the stored answer to an earlier identical request. */
  replayed: boolean;
}

/** An accepted submission's answer, new or replayed. */
export interface SubmitOutcome {
  result: SubmissionResult;
  /** True when this is an earlier identical request's answer (see idempotency.ts). */
  replayed: boolean;
}

/**
 * What happens next, in words: who reviews it, when, that nothing was ordered, and which
 * properties were kept unread.
 */
function _nextStep(
  kind: SubmissionKind,
  review: ExpectedReview,
  urgency: unknown,
  ignored: readonly Ignored[],
): string {
  const when = reviewWords(review, urgency);
  const steps = kind === "lead"
    ? `A member of our team will review your request and reply by email, ${when}; nothing ` +
      "has been ordered or scheduled."
    : `A member of our team will review this request and reply by email with a quotation, ` +
      `${when}; the budget estimate is non-binding and nothing has been ordered or scheduled.`;
  return ignored.length ? `${steps} ${_ignoredWords(ignored)}` : steps;
}

/** Most ignored properties `next_step` names; `ignored` lists every one. */
const IGNORED_NAMED = 3;

/**
 * "Not read as fields, kept as sent for the reviewer: po_number, tel_no (probably phone)." Past
 * {@linkcode IGNORED_NAMED}, "… and 2 more, listed in ignored."
 */
function _ignoredWords(ignored: readonly Ignored[]): string {
  const each = ignored.slice(0, IGNORED_NAMED).map((i) =>
    i.did_you_mean ? `${i.property} (probably ${i.did_you_mean})` : i.property
  );
  const more = ignored.length - IGNORED_NAMED;
  return `Not read as ${ignored.length === 1 ? "a field" : "fields"}, kept as sent for the ` +
    `reviewer: ${each.join(", ")}${more > 0 ? ` and ${more} more, listed in ignored` : ""}.`;
}

/** What an answer says besides its id: read from the request and the catalog. */
interface AnswerFacts {
  review: ExpectedReview;
  urgency: unknown;
  service_id: string | null;
  site: SiteAnswer | null;
  budget_estimate?: BudgetEstimate;
  ignored: Ignored[];
}

/** The answer to a new submission. */
export function submissionAnswer(
  kind: SubmissionKind,
  requestId: string,
  facts: AnswerFacts,
): SubmissionResult {
  return {
    ok: true,
    request_id: requestId,
    status: "pending",
    requires_human_approval: true,
    billable_order_created: false,
    next_step: _nextStep(kind, facts.review, facts.urgency, facts.ignored),
    expected_review: facts.review,
    service_id: facts.service_id,
    site: facts.site,
    ...(facts.budget_estimate ? { budget_estimate: facts.budget_estimate } : {}),
    ignored: facts.ignored,
    replayed: false,
  };
}
