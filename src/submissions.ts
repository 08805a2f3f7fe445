/**
 * @module
 * Lead and quote submissions: validation, idempotency, and the single atomic write
 * that stores the record and queues it for human review. Called by REST and MCP alike.
 * Nothing here creates an order, a quotation acceptance, an invoice or a dispatch.
 */

import { createHash } from "node:crypto";
import type { z } from "zod";
import type { Context } from "./context.ts";
import { checkCoverage } from "./coverage.ts";
import { type BudgetEstimate, estimateBudget, findService } from "./estimate.ts";
import { type FieldIssue, HttpError } from "./http.ts";
import { newRequestId } from "./ids.ts";
import {
  commitSubmission,
  getIdempotency,
  type IdempotencyRecord,
  PAYLOAD_CHUNK_BYTES,
  type SubmissionKind,
  type SubmissionRecord,
} from "./kv.ts";
import { fieldIssues, LeadInput, QuoteInput } from "./schemas.ts";

/** Largest accepted submission body. */
export const SUBMISSION_MAX_BODY = 64 * 1024;
/** How long an `Idempotency-Key` is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface SubmissionResult {
  ok: true;
  request_id: string;
  status: "pending_review";
  requires_human_approval: true;
  billable_order_created: false;
  next_steps: string;
  budget_estimate?: BudgetEstimate;
}

export interface SubmitOutcome {
  result: SubmissionResult;
  /** True when an `Idempotency-Key` matched an earlier, identical request. */
  replayed: boolean;
}

const NEXT_STEPS: Record<SubmissionKind, string> = {
  lead:
    "A member of our team will review your request and reply by email; nothing has been ordered or scheduled.",
  quote:
    "A member of our team will review this request and reply by email with a quotation; the budget estimate is non-binding and nothing has been ordered or scheduled.",
};

/** Validates and stores a lead (SPEC §2.4). */
export async function submitLead(
  ctx: Context,
  raw: unknown,
  idempotencyKey?: string,
): Promise<SubmitOutcome> {
  const input = validate(LeadInput, raw);
  return await _store(ctx, "lead", raw, input, {
    service_id: input.service_type
      ? findService(ctx.catalog, input.service_type)?.id ?? null
      : null,
    covered: input.city ? checkCoverage(ctx.catalog, { city: input.city }).covered : null,
    budget_estimate: undefined,
  }, idempotencyKey);
}

/** Validates and stores a quote request (SPEC §2.5) with its non-binding budget estimate. */
export async function submitQuote(
  ctx: Context,
  raw: unknown,
  idempotencyKey?: string,
): Promise<SubmitOutcome> {
  const parsed = QuoteInput.safeParse(raw);
  const issues = parsed.success ? [] : fieldIssues(parsed.error);
  // The catalog check runs even when other fields failed, so every problem is listed at once.
  const serviceType = (raw as { service_type?: unknown } | null)?.service_type;
  const service = typeof serviceType === "string" && serviceType.trim()
    ? findService(ctx.catalog, serviceType)
    : undefined;
  if (typeof serviceType === "string" && serviceType.trim() && !service) {
    issues.push({
      path: "service_type",
      message: `service_type must name a catalog service; valid ids: ${
        ctx.catalog.services.map((s) => s.id).join(", ")
      }`,
    });
  }
  if (!parsed.success || !service) throw validationFailed(issues);
  const input = parsed.data;
  const coverage = checkCoverage(ctx.catalog, { city: input.city, country: input.country });
  const estimate = estimateBudget(service, input, coverage);
  return await _store(ctx, "quote", raw, input, {
    service_id: service.id,
    covered: coverage.covered,
    budget_estimate: estimate,
  }, idempotencyKey);
}

/** Parses with a zod schema, or throws 400 listing every field problem. */
export function validate<T>(schema: z.ZodType<T>, raw: unknown): T {
  const res = schema.safeParse(raw);
  if (!res.success) throw validationFailed(fieldIssues(res.error));
  return res.data;
}

function validationFailed(issues: FieldIssue[]): HttpError {
  const n = issues.length;
  return new HttpError(
    400,
    "validation_failed",
    `${n} field${n === 1 ? "" : "s"} failed validation: ${issues.map((i) => i.path).join(", ")}`,
    { issues },
  );
}

async function _store(
  ctx: Context,
  kind: SubmissionKind,
  raw: unknown,
  input: Record<string, unknown>,
  facts: { service_id: string | null; covered: boolean | null; budget_estimate?: BudgetEstimate },
  idempotencyKey: string | undefined,
): Promise<SubmitOutcome> {
  const scope = kind;
  const bodyHash = createHash("sha256").update(JSON.stringify(raw)).digest("base64url");
  let staleVersion: string | null = null;
  if (idempotencyKey) {
    const earlier = await _replay(ctx, scope, idempotencyKey, bodyHash);
    if ("outcome" in earlier) return earlier.outcome;
    staleVersion = earlier.staleVersion;
  }

  const now = ctx.now();
  const requestId = newRequestId(kind, now);
  const result: SubmissionResult = {
    ok: true,
    request_id: requestId,
    status: "pending_review",
    requires_human_approval: true,
    billable_order_created: false,
    next_steps: NEXT_STEPS[kind],
    ...(facts.budget_estimate ? { budget_estimate: facts.budget_estimate } : {}),
  };
  const payload = new TextEncoder().encode(JSON.stringify(input));
  const record: SubmissionRecord = {
    request_id: requestId,
    kind,
    status: "pending",
    created_at: new Date(now).toISOString(),
    payload: {
      chunks: Math.ceil(payload.byteLength / PAYLOAD_CHUNK_BYTES),
      bytes: payload.byteLength,
    },
    service_id: facts.service_id,
    covered: facts.covered,
    budget_estimate: facts.budget_estimate ?? null,
    notified_at: null,
    decision: null,
  };
  const idempotency = idempotencyKey
    ? {
      scope,
      key: idempotencyKey,
      value: {
        body_hash: bodyHash,
        request_id: requestId,
        response: JSON.stringify(result),
        expires_at: now + IDEMPOTENCY_TTL_MS,
      } satisfies IdempotencyRecord,
      expireIn: IDEMPOTENCY_TTL_MS,
      versionstamp: staleVersion,
    }
    : undefined;

  if (await commitSubmission(ctx.kv, { record, payload, idempotency })) {
    return { result, replayed: false };
  }
  // Only the idempotency check can fail in practice: a concurrent request with the same key won.
  const earlier = idempotencyKey ? await _replay(ctx, scope, idempotencyKey, bodyHash) : undefined;
  if (earlier && "outcome" in earlier) return earlier.outcome;
  throw new Error("submission commit failed its checks");
}

/**
 * Looks up an idempotency key: the earlier outcome for the same body, 409 for a
 * different body, or the versionstamp to overwrite (null when absent, or the stamp
 * of an expired record that KV still returns).
 */
async function _replay(
  ctx: Context,
  scope: string,
  key: string,
  bodyHash: string,
): Promise<{ outcome: SubmitOutcome } | { staleVersion: string | null }> {
  const entry = await getIdempotency(ctx.kv, scope, key);
  if (!entry.value || entry.value.expires_at <= ctx.now()) {
    return { staleVersion: entry.versionstamp };
  }
  if (entry.value.body_hash !== bodyHash) {
    throw new HttpError(
      409,
      "idempotency_key_reused",
      "this Idempotency-Key was already used with a different request body",
    );
  }
  return { outcome: { result: JSON.parse(entry.value.response), replayed: true } };
}
