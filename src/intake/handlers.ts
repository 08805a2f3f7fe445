/**
 * @module
 * The anonymous lead and quote endpoints (SPEC §4.6), and the home page's forms that post
 * the same submissions. No token; every submission waits for human review.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { CACHE_CONTROL, json } from "../http/json.ts";
import { mediaType, parseForm, parseJson, readBody } from "../http/body.ts";
import type { Channel, SubmissionKind } from "../store/submissions.ts";
import { formResultPage } from "../web/pages.ts";
import { IDEMPOTENCY_KEY_PATTERN } from "./schemas.ts";
import { SUBMISSION_MAX_BODY, submitLead, submitLimited, submitQuote } from "./submissions.ts";
import type { SubmitOutcome } from "./answer.ts";

/** `POST /api/v1/intake`: a lead (SPEC §2.4). */
export function postLead(req: Request, ctx: Context): Promise<Response> {
  return submitLimited(ctx, async () => {
    const { raw, key } = await _readSubmission(req);
    return _accepted(await _submit("lead", ctx, raw, "api", key));
  });
}

/** `POST /api/v1/quotes`: a quote request (SPEC §2.5). */
export function postQuote(req: Request, ctx: Context): Promise<Response> {
  return submitLimited(ctx, async () => {
    const { raw, key } = await _readSubmission(req);
    return _accepted(await _submit("quote", ctx, raw, "api", key));
  });
}

function _submit(
  kind: SubmissionKind,
  ctx: Context,
  raw: unknown,
  channel: Channel,
  key?: string,
): Promise<SubmitOutcome> {
  return kind === "lead" ? submitLead(ctx, raw, channel, key) : submitQuote(ctx, raw, channel, key);
}

/**
 * `POST /forms/lead` and `POST /forms/quote`: the home page's forms, recorded as the
 * web channel. The page's script sends JSON and gets the REST answer; a form posted
 * with script off (`application/x-www-form-urlencoded`) gets a page: the receipt, or
 * what to correct. Same validation, limits and review as the REST endpoints.
 */
export function webForm(kind: SubmissionKind) {
  return async (req: Request, ctx: Context): Promise<Response> => {
    if (mediaType(req) !== "application/x-www-form-urlencoded") {
      return await submitLimited(ctx, async () => {
        const { raw, key } = await _readSubmission(req);
        return _accepted(await _submit(kind, ctx, raw, "web", key));
      });
    }
    try {
      return await submitLimited(ctx, async () => {
        // A form a browser posts has no Idempotency-Key; one sent is read as on every route.
        const key = idempotencyKeyHeader(req);
        const body = await readBody(req, { maxBytes: SUBMISSION_MAX_BODY });
        const fields = formFields(parseForm(body));
        return formResultPage(kind, await _submit(kind, ctx, fields, "web", key));
      });
    } catch (err) {
      if (err instanceof HttpError) return formResultPage(kind, err);
      throw err;
    }
  };
}

/**
 * A posted form as the JSON a submission takes, empty fields left out. Numbers and the
 * checkbox (`on`) stay strings: the submission's forgiving reading (lenient.ts) takes
 * them as agents' strings are taken, and reports what it cannot read.
 */
function formFields(params: URLSearchParams): Record<string, string> {
  return Object.fromEntries([...params].filter(([, value]) => value.trim() !== ""));
}

async function _readSubmission(req: Request): Promise<{ raw: unknown; key: string | undefined }> {
  const key = idempotencyKeyHeader(req);
  if (mediaType(req) !== "application/json") {
    throw new HttpError(415, "unsupported_media_type", "Content-Type must be application/json");
  }
  const body = await readBody(req, { maxBytes: SUBMISSION_MAX_BODY });
  return { raw: parseJson(body), key };
}

/**
 * The `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): a quoted
 * structured-field string or a bare token of 1–255 visible ASCII characters.
 */
function idempotencyKeyHeader(req: Request): string | undefined {
  const raw = req.headers.get("idempotency-key");
  if (raw === null) return undefined;
  const key = raw.trim().replace(/^"(.*)"$/, "$1");
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new HttpError(
      400,
      "invalid_idempotency_key",
      "Idempotency-Key must be 1 to 255 visible ASCII characters",
    );
  }
  return key;
}

function _accepted({ result, replayed }: SubmitOutcome): Response {
  const headers: Record<string, string> = { "Cache-Control": CACHE_CONTROL.noStore };
  if (replayed) headers["Idempotent-Replayed"] = "true";
  // RFC 9110 §15.3.3: 202 Accepted, the request is queued for human review.
  return json(result, { status: 202, headers });
}
