/**
 * @module
 * What a review list row shows of who sent a submission: the company, the contact and the
 * city, taken from the request as it was accepted and stored with the record, so that a
 * list reads no request; and the one-time indexing that gives an older store's records
 * theirs.
 */

import { indexSubmissions } from "../store/migrations.ts";
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

/**
 * Gives the submissions of a store written before the indexes their summaries and index
 * keys, once per store (`indexSubmissions` in store/migrations.ts). The CLI runs it before
 * a command that reads the indexes; the service at start. Returns how many it indexed.
 */
export async function indexOlderSubmissions(
  kv: Deno.Kv,
  pause?: () => Promise<void>,
): Promise<number> {
  return await indexSubmissions(kv, summaryOf, pause);
}
