/**
 * @module
 * The personal-data lifecycle of submissions: erasure of one submission, of every
 * submission of one email address (a data-subject request), and of decided
 * submissions past a retention period, by the staff CLI or by the service itself
 * (`SUBMISSION_RETENTION_DAYS`). Each submission goes in one commit with everything
 * that points to it; see {@linkcode eraseSubmission}.
 */

import type { Config } from "../config.ts";
import { type Logger, reason } from "../http/log.ts";
import {
  type Erased,
  eraseSubmission,
  getSubmissionPayload,
  listSubmissions,
  type SubmissionRecord,
} from "../store/submissions.ts";

export const DAY_MS = 24 * 60 * 60 * 1000;
/** How often the service applies `SUBMISSION_RETENTION_DAYS`. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** Emails compare trimmed and case-insensitively: what a person would call the same address. */
export function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * The submissions whose `email` field is `email`. The email lives only in the stored
 * request, so every request is read: a full scan, fine for a rare staff command.
 */
export async function findByEmail(kv: Deno.Kv, email: string): Promise<SubmissionRecord[]> {
  const found: SubmissionRecord[] = [];
  for (const record of await listSubmissions(kv)) {
    if (sameEmail(await _emailOf(kv, record), email)) found.push(record);
  }
  return found;
}

async function _emailOf(kv: Deno.Kv, record: SubmissionRecord): Promise<string> {
  try {
    const request = JSON.parse(await getSubmissionPayload(kv, record));
    return typeof request?.email === "string" ? request.email : "";
  } catch {
    return ""; // erased meanwhile
  }
}

/** The decided (approved or rejected) submissions decided before `before` (ms). */
export async function findDecidedBefore(
  kv: Deno.Kv,
  before: number,
): Promise<SubmissionRecord[]> {
  return (await listSubmissions(kv)).filter((r) =>
    r.decision !== null && Date.parse(r.decision.decided_at) < before
  );
}

/** Erases each submission, one commit each; those already gone are left out. */
export async function eraseAll(
  kv: Deno.Kv,
  records: readonly SubmissionRecord[],
  now: number,
): Promise<Erased[]> {
  const erased: Erased[] = [];
  for (const record of records) {
    const done = await eraseSubmission(kv, record.request_id, now);
    if (done) erased.push(done);
  }
  return erased;
}

/** The cutoff of a retention of `days` days at `now`. */
export function retentionCutoff(now: number, days: number): number {
  return now - days * DAY_MS;
}

export interface RetentionDeps {
  kv: Deno.Kv;
  config: Config;
  now: () => number;
  log: Logger;
}

/**
 * Applies `SUBMISSION_RETENTION_DAYS` now and then every hour; with the variable unset it
 * does nothing. Several instances may run it at once: erasure is checked and idempotent.
 */
export function startRetention(deps: RetentionDeps, intervalMs = RETENTION_INTERVAL_MS) {
  const days = deps.config.submissionRetentionDays;
  if (days === undefined) return { stop: () => Promise.resolve() };
  let running = Promise.resolve();
  const pass = () => {
    running = running.then(async () => {
      try {
        const now = deps.now();
        const found = await findDecidedBefore(deps.kv, retentionCutoff(now, days));
        const erased = await eraseAll(deps.kv, found, now);
        if (erased.length) {
          deps.log({ level: "info", msg: "retention purge", erased: erased.length, days });
        }
      } catch (err) {
        deps.log({
          level: "warn",
          msg: "retention purge failed",
          error: reason(err),
        });
      }
    });
  };
  pass();
  const timer = setInterval(pass, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
