/**
 * @module
 * The bound on what one accepted submission adds to the store, checked on the rows its
 * commit would write before anything is written. Over the bound, what the stored record
 * and answer echo of the caller's text is trimmed, step by step; still over, the
 * submission is refused with a 413 that states the bound and the size.
 */

import type { BudgetEstimate } from "../pricing/budget.ts";
import { HttpError } from "../http/errors.ts";
import {
  type NewSubmission,
  submissionBytes,
  type SubmissionRecord,
} from "../store/submissions.ts";

/** A submission as it would be stored: its record, and the answer its idempotency record keeps. */
interface Draft<R extends _Echoing> {
  record: SubmissionRecord;
  result: R;
}

/**
 * What an answer echoes of the caller's text: the estimate's texts, the site's sentences,
 * the names of the properties it kept unread, in a list and in `next_step`.
 */
interface _Echoing {
  budget_estimate?: BudgetEstimate;
  site?: { summary: string; site_address: { summary: string } | null } | null;
  ignored?: { property: string; did_you_mean: string | null }[];
  next_step?: string;
}

/** Characters a review list row keeps of each of company, contact and city once trimmed. */
const SHORT_SUMMARY = 16;

/**
 * The trims, in the order they apply, each on top of the ones before: the review list's
 * summary first (the request itself keeps the whole text), then the estimate's and the site's
 * texts that may quote the caller (a city, an argument's name): characters beyond Latin-1 become
 * `?`, since one such character makes KV store the whole text at two bytes a character
 * (and the record keeps the estimate's texts, the idempotency answer them again); then the
 * same for the names of the properties kept unread, where the answer lists them and in its
 * `next_step` (the request itself keeps them as sent).
 */
const TRIMS = [_shortSummary, _latin1Estimate, _latin1Ignored] as const;

/**
 * The submission as it fits the bound: as built when it does, else trimmed (see
 * {@linkcode TRIMS}); `write` makes the commit's content from a draft. Throws a 413 when
 * even the trimmed submission is over the bound.
 */
export function fitStoredBound<
  R extends _Echoing,
  W extends NewSubmission,
>(
  draft: Draft<R>,
  write: (draft: Draft<R>) => W,
  max: number,
): { draft: Draft<R>; write: W } {
  let fitted = draft;
  let bytes = 0;
  for (let step = 0; step <= TRIMS.length; step++) {
    if (step > 0) fitted = TRIMS[step - 1]!(fitted);
    const sub = write(fitted);
    bytes = submissionBytes(sub);
    if (bytes <= max) return { draft: fitted, write: sub };
  }
  throw new HttpError(
    413,
    "payload_too_large",
    `this submission would store ${bytes} bytes (the request, its record, review notice and ` +
      `idempotency answer), over the ${max} bytes one submission may store; send less text`,
  );
}

function _shortSummary<R extends _Echoing>(d: Draft<R>): Draft<R> {
  const summary = d.record.summary;
  const short = (v: string | null) => v === null ? null : [...v].slice(0, SHORT_SUMMARY).join("");
  return {
    ...d,
    record: {
      ...d.record,
      summary: {
        company: short(summary.company),
        contact: short(summary.contact),
        city: short(summary.city),
      },
    },
  };
}

function _latin1Estimate<R extends _Echoing>(d: Draft<R>): Draft<R> {
  const fold = (e: BudgetEstimate): BudgetEstimate => ({
    ...e,
    note: e.note === null ? null : _latin1(e.note),
    assumptions: e.assumptions.map((a) => ({ ...a, why: _latin1(a.why) })),
  });
  const record = d.record.budget_estimate;
  const result = d.result.budget_estimate;
  const site = d.result.site;
  return {
    record: { ...d.record, budget_estimate: record ? fold(record) : null },
    result: {
      ...d.result,
      ...(result ? { budget_estimate: fold(result) } : {}),
      ...(site
        ? {
          site: {
            ...site,
            summary: _latin1(site.summary),
            site_address: site.site_address &&
              { ...site.site_address, summary: _latin1(site.site_address.summary) },
          },
        }
        : {}),
    },
  };
}

function _latin1Ignored<R extends _Echoing>(d: Draft<R>): Draft<R> {
  const { ignored, next_step } = d.result;
  if (!ignored?.length || next_step === undefined) return d;
  return {
    ...d,
    result: {
      ...d.result,
      ignored: ignored.map((i) => ({ ...i, property: _printable(i.property) })),
      next_step: _printable(next_step),
    },
  };
}

/** `text` with every character outside printable Latin-1 as `?` (JSON escapes a control one in 6). */
function _printable(text: string): string {
  return _latin1(text).replace(/\p{Cc}/gu, "?");
}

/** `text` with "…" as "...", and any other character beyond Latin-1 as `?` (one a code point). */
function _latin1(text: string): string {
  return text.replaceAll("…", "...").replace(/[\u0100-\u{10ffff}]/gu, "?");
}
