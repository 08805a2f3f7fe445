/**
 * @module
 * Lead and quote submissions: validation, idempotency, and the single atomic write
 * that stores the record and queues it for human review. Called by REST and MCP alike.
 * Nothing here creates an order, a quotation acceptance, an invoice or a dispatch.
 */

import { countSubmission } from "../telemetry/metrics.ts";
import type { Context } from "../context.ts";
import { type Coverage, siteCoverage } from "../catalog/coverage.ts";
import { type BudgetEstimate, noOnePlace } from "../pricing/budget.ts";
import { findService } from "../catalog/service_match.ts";
import { HttpError } from "../http/errors.ts";
import { newRequestId } from "./ids.ts";
import { expectedReview } from "./review_time.ts";
import { submissionAnswer, type SubmissionResult, type SubmitOutcome } from "./answer.ts";
import { storeUnavailable } from "../store/deadline.ts";
import {
  answerText,
  type Channel,
  type NewSubmission,
  newSubmission,
  PAYLOAD_CHUNK_BYTES,
  type SubmissionKind,
  type SubmissionRecord,
} from "../store/submissions.ts";
import {
  type Earlier,
  findEarlier,
  oneIdempotencyKey,
  type ReplayScope,
  replayScope,
} from "./idempotency.ts";
import { summaryOf } from "../review/summary.ts";
import {
  commitCounted,
  globalRefused,
  rateLimited,
  readCounts,
  reserveGlobal,
  withdrawGlobal,
} from "../http/rate_limit.ts";
import {
  checkNesting,
  checkPropertyCount,
  extraPropertyIssues,
  type Ignored,
  ignoredProperties,
  misnamedFieldIssues,
} from "./bounds.ts";
import { lenientArguments } from "./lenient.ts";
import { fitStoredBound } from "./stored_bound.ts";
import { cityTypo, priceJob, sentPlace } from "../pricing/price_job.ts";
import { type SiteAnswer, siteAnswer, siteRecord } from "./site.ts";
import { EstimateInput } from "../pricing/estimate.ts";
import {
  fieldIssues,
  LEAD_LENIENCY,
  LeadInput,
  QUOTE_LENIENCY,
  quoteInput,
  validationFailed,
} from "./schemas.ts";

/** Largest accepted submission: the request body, and the JSON stored for it. */
export const SUBMISSION_MAX_BODY = 64 * 1024;
/**
 * The most one accepted submission adds to the store: its JSON (at most
 * {@linkcode SUBMISSION_MAX_BODY}) plus its record, review notice, index keys and
 * idempotency record with its pointer, as KV counts them. Checked on every commit before it
 * is written (stored_bound.ts: echoed text trimmed, else 413); tests/intake/stored_bound_test.ts
 * generates worst cases against it; docs/operations.md ("Worst-case figures at the default
 * limits") gives what that means per minute.
 */
export const MAX_STORED_PER_SUBMISSION = SUBMISSION_MAX_BODY + 9 * 1024;

/** What a lead's review depends on: a property that probably means it is refused, not kept. */
const LEAD_REVIEW_FIELDS = ["urgency"];

/**
 * Runs a submission request's work counted against `RATE_LIMIT_SUBMIT` per address. REST
 * and MCP wrap everything in it, so invalid requests spend their sender's budget: counted
 * in the submission's own commit, or alone at the end (http/rate_limit.ts).
 * (`RATE_LIMIT_SUBMIT_GLOBAL` is counted later, in `_commitOrReplay`, only for a
 * submission about to be stored.)
 */
export function submitLimited<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  return rateLimited(ctx, "submit", ctx.config.rateLimits.submit, work);
}

/** Validates and stores a lead (SPEC §2.4). */
export async function submitLead(
  ctx: Context,
  sent: unknown,
  channel: Channel,
  headerKey?: string,
): Promise<SubmitOutcome> {
  checkPropertyCount(sent);
  checkNesting(sent);
  const raw = lenientArguments(sent, LEAD_LENIENCY);
  const parsed = LeadInput.safeParse(raw);
  const issues = [
    ...(parsed.success ? [] : fieldIssues(parsed.error)),
    ...extraPropertyIssues(raw, LeadInput.shape),
    ...misnamedFieldIssues(raw, LeadInput.shape, LEAD_REVIEW_FIELDS),
  ];
  // The city is read even when another field failed: every problem is listed at once.
  const place = sentPlace(raw, parsed.data);
  const site = place.city ? siteCoverage(ctx.catalog, place) : null;
  const coverage = site?.coverage ?? null;
  const typo = coverage && cityTypo(coverage, place.country);
  if (typo) issues.push(typo);
  if (!parsed.success || issues.length) throw validationFailed(issues);
  // Counted once accepted, as a quote's is after it is priced: a refused lead counts nothing.
  if (coverage) ctx.demand.note(coverage);
  const { idempotency_key: argumentKey, ...input } = parsed.data;
  return await _store(ctx, {
    kind: "lead",
    channel,
    raw,
    input,
    facts: {
      service_id: input.service_type
        ? findService(ctx.catalog, input.service_type)?.id ?? null
        : null,
      covered: coverage ? coveredFact(coverage) : null,
      site: site && coverage ? siteAnswer(ctx.catalog, site) : null,
      match: coverage?.match ?? null,
      ignored: ignoredProperties(raw, LeadInput.shape),
    },
    idempotencyKey: oneIdempotencyKey(headerKey, argumentKey),
  });
}

/**
 * What a quote's price and review depend on: estimate_quote's arguments, urgency among them. A
 * quote refuses an additional property that probably means one of them, as estimate_quote
 * refuses it, rather than price or review a default.
 */
const QUOTE_PRICE_AND_REVIEW_FIELDS = Object.keys(EstimateInput.shape);

/** Validates and stores a quote request (SPEC §2.5) with its non-binding budget estimate. */
export async function submitQuote(
  ctx: Context,
  sent: unknown,
  channel: Channel,
  headerKey?: string,
): Promise<SubmitOutcome> {
  checkPropertyCount(sent);
  checkNesting(sent);
  const schema = quoteInput(ctx.catalog);
  const job = priceJob(
    ctx,
    sent,
    schema,
    QUOTE_LENIENCY,
    (raw) => [
      ...extraPropertyIssues(raw, schema.shape),
      ...misnamedFieldIssues(raw, schema.shape, QUOTE_PRICE_AND_REVIEW_FIELDS),
    ],
  );
  ctx.demand.note(job.coverage);
  const { idempotency_key: argumentKey, ...input } = job.input;
  return await _store(ctx, {
    kind: "quote",
    channel,
    raw: job.raw,
    input,
    facts: {
      service_id: job.service.id,
      covered: coveredFact(job.coverage),
      budget_estimate: job.budget_estimate,
      site: siteAnswer(ctx.catalog, job.site, {
        text: String(input.site_address ?? ""),
        country: input.country,
      }),
      match: job.coverage.match,
      ignored: ignoredProperties(job.raw, schema.shape),
    },
    idempotencyKey: oneIdempotencyKey(headerKey, argumentKey),
  });
}

/** What a submission record says about coverage: unknown (null) for no one place. */
function coveredFact(coverage: Coverage): boolean | null {
  return noOnePlace(coverage) ? null : coverage.covered;
}

/** A submission that passed validation, ready to be stored. */
interface Validated {
  kind: SubmissionKind;
  channel: Channel;
  /** The arguments as read, before validation: what the idempotency hash covers. */
  raw: unknown;
  /** The accepted fields, the idempotency key left out: what is stored. */
  input: Record<string, unknown>;
  /** Catalog facts for the record, the answer and the review list; the properties kept unread. */
  facts: {
    service_id: string | null;
    covered: boolean | null;
    budget_estimate?: BudgetEstimate;
    site: SiteAnswer | null;
    match: Coverage["match"] | null;
    ignored: Ignored[];
  };
  idempotencyKey: string | undefined;
}

/**
 * Stores a validated submission with its review notice and idempotency records in one
 * commit, or replays the first answer to the same request. Two sequential store round
 * trips: the idempotency records (the key's and the same request's), the rate counters
 * (those this instance does not know) and, the first time, the email index's key, read
 * together; then the one commit, which also counts the request (http/rate_limit.ts).
 */
async function _store(ctx: Context, sub: Validated): Promise<SubmitOutcome> {
  const payload = new TextEncoder().encode(JSON.stringify(sub.input));
  // Re-serialising can grow a body (1e21 → 1e+21), so the stored size is checked too.
  if (payload.byteLength > SUBMISSION_MAX_BODY) {
    throw new HttpError(
      413,
      "payload_too_large",
      `the submission is larger than ${SUBMISSION_MAX_BODY} bytes as stored JSON`,
    );
  }
  const now = ctx.now();
  const requestId = newRequestId(sub.kind, now);
  const scope = replayScope(ctx, sub);
  const global = [{ bucket: "submit_all", limit: ctx.config.rateLimits.submitGlobal }];
  const [record, earlier] = await Promise.all([
    _record(ctx, sub, requestId, now, payload.byteLength),
    findEarlier(ctx, scope, "eventual"),
    readCounts(ctx, global),
  ]);
  if ("answer" in earlier) return _replayed(earlier.answer);
  // Checked once the first look found no answer to replay: a retry is answered as before.
  const fitted = fitStoredBound(
    {
      record,
      result: submissionAnswer(sub.kind, requestId, {
        ...sub.facts,
        review: expectedReview(ctx.config, now, sub.input.urgency),
        urgency: sub.input.urgency,
      }),
    },
    ({ record, result }) => _write(record, payload, result, scope),
    MAX_STORED_PER_SUBMISSION,
  );
  return await _commitOrReplay(ctx, sub, fitted.write, fitted.draft.result, { scope, earlier });
}

/** What the commit of a new submission writes; its records' checks are set per attempt. */
function _write(
  record: SubmissionRecord,
  payload: Uint8Array,
  result: SubmissionResult,
  { records, bodyHash }: ReplayScope,
): Required<NewSubmission> {
  return {
    record,
    payload,
    replay: {
      body_hash: bodyHash,
      response: answerText(result),
      records: records.map((r) => ({ ...r, versionstamp: null })),
    },
  };
}

/** The record of a new submission: status, times, catalog facts, and what a list row shows. */
async function _record(
  ctx: Context,
  sub: Validated,
  requestId: string,
  now: number,
  bytes: number,
): Promise<SubmissionRecord> {
  const { input, facts } = sub;
  return {
    request_id: requestId,
    kind: sub.kind,
    channel: sub.channel,
    status: "pending",
    created_at: new Date(now).toISOString(),
    payload: { chunks: Math.ceil(bytes / PAYLOAD_CHUNK_BYTES), bytes },
    service_id: facts.service_id,
    covered: facts.covered,
    site: facts.site && facts.match ? siteRecord(facts.site, facts.match) : null,
    urgency: (input.urgency as SubmissionRecord["urgency"]) ?? null,
    summary: summaryOf(input),
    email_hash: typeof input.email === "string"
      ? (await ctx.cache.emailHasher())(input.email)
      : null,
    budget_estimate: facts.budget_estimate ?? null,
    notified_at: null,
    decision: null,
  };
}

/**
 * Commits the submission, or answers with the first answer to the same request. A
 * concurrent request with the same key or body, or KV expiring a stale record between our
 * read and our commit, fails the check; it looks again (strongly) and retries a few times.
 * A replay stores nothing, so only a submission about to be stored takes a place of the
 * global limit, and one the full limit refuses looks strongly for an answer to replay first.
 */
async function _commitOrReplay(
  ctx: Context,
  sub: Validated,
  write: Required<NewSubmission>,
  result: SubmissionResult,
  looked: { scope: ReplayScope; earlier: Earlier },
): Promise<SubmitOutcome> {
  let earlier = looked.earlier;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) earlier = await findEarlier(ctx, looked.scope, "strong");
    if ("answer" in earlier) return _replayed(earlier.answer);
    const { versions } = earlier;
    const records = write.replay.records.map((r, n) => ({
      ...r,
      versionstamp: versions[n] ?? null,
    }));
    let done;
    try {
      if (attempt === 0) reserveGlobal(ctx, "submit_all", ctx.config.rateLimits.submitGlobal);
      done = await commitCounted(
        ctx,
        newSubmission({ ...write, replay: { ...write.replay, records } }),
      );
    } catch (err) {
      // The first look was eventual: a replay it missed is not refused.
      if (!globalRefused(ctx)) throw err;
      const strong = await findEarlier(ctx, looked.scope, "strong");
      if (!("answer" in strong)) throw err;
      withdrawGlobal(ctx);
      return _replayed(strong.answer);
    }
    if (done.ok) {
      countSubmission(sub.kind, sub.channel);
      ctx.submitted();
      return { result, replayed: false };
    }
  }
  // Requests with the same key or body kept racing this one: a retry finds the winner's answer.
  throw storeUnavailable(
    "other requests with this idempotency key or body kept arriving at the same moment; retry",
  );
}

/** The first answer to the same request, given again. */
function _replayed(answer: Record<string, unknown>): SubmitOutcome {
  return { result: { ...answer, replayed: true } as SubmissionResult, replayed: true };
}
