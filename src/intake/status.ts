/**
 * @module
 * The loop closed: `get_request_status` and `GET /api/v1/requests/{request_id}` say where a
 * submission stands (kind, status, urgency, when it came in and was decided, when a review
 * is expected while it is pending, what happens next). The unguessable request id is the only key; the answer holds no personal data and
 * no reviewer's note.
 */

import { z } from "zod";
import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { CACHE_CONTROL, json } from "../http/json.ts";
import type { Params } from "../http/router.ts";
import { getSubmission, type SubmissionRecord } from "../store/submissions.ts";
import { isRequestId } from "./ids.ts";
import { expectedReview, reviewWords } from "./review_time.ts";

export const StatusInput = z.strictObject({
  request_id: z.string({ error: "request_id is required and must be a string" }).meta({
    description: "The request_id that submit_lead or request_quote answered, such as " +
      "quote_01KAKX2Q3M8Y6T0V5W9R4B7C1D.",
    examples: ["quote_01KAKX2Q3M8Y6T0V5W9R4B7C1D"],
  }),
}).meta({ description: "The request to look up." });

/** What happens next for a decided request; a pending one's says when ({@linkcode _pending}). */
const _NEXT: Record<"approved" | "rejected", Record<SubmissionRecord["kind"], string>> = {
  approved: {
    lead: "Reviewed: our team is in touch by email. Nothing has been ordered.",
    quote: "Reviewed: the binding quotation comes by email; nothing is ordered until the " +
      "customer accepts it there.",
  },
  rejected: {
    lead: "Reviewed and declined; the reply by email says why. Submit a new request if " +
      "anything changed.",
    quote: "Reviewed and declined; the reply by email says why. Request a new quote if the " +
      "job changed.",
  },
};

/** Where a submission stands; 404 `not_found` for an id that names none. */
export async function requestStatus(ctx: Context, id: string): Promise<Record<string, unknown>> {
  const record = isRequestId(id) ? (await getSubmission(ctx.kv, id)).value : null;
  if (!record) {
    throw new HttpError(
      404,
      "not_found",
      "no request has this id: use the request_id exactly as submit_lead or request_quote " +
        "answered it (lead_… or quote_… and 26 characters); an erased request is gone",
    );
  }
  const { review, next } = record.status === "pending"
    ? _pending(ctx, record)
    : { review: null, next: _NEXT[record.status][record.kind] };
  return {
    ok: true,
    request_id: record.request_id,
    kind: record.kind,
    status: record.status,
    urgency: record.urgency ?? null,
    created_at: record.created_at,
    decided_at: record.decision?.decided_at ?? null,
    expected_review: review,
    next_step: next,
  };
}

/** A pending request's expected review, from when it came in and its urgency, and its next step. */
function _pending(ctx: Context, record: SubmissionRecord) {
  const review = expectedReview(ctx.config, Date.parse(record.created_at), record.urgency);
  const when = reviewWords(review, record.urgency, ctx.now());
  const reply = record.kind === "lead"
    ? "they reply by email. Nothing has been ordered."
    : "they reply by email with a quotation. Nothing has been ordered or scheduled.";
  return { review, next: `Waiting for a person to review it, ${when}; ${reply}` };
}

/** `GET /api/v1/requests/:request_id`. */
export async function getRequestStatus(
  _req: Request,
  ctx: Context,
  params: Params,
): Promise<Response> {
  const body = await requestStatus(ctx, params.request_id ?? "");
  return json(body, { headers: { "Cache-Control": CACHE_CONTROL.noStore } });
}
