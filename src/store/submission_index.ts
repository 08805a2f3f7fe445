/**
 * @module
 * The indexes of submissions, so that what staff wait on costs what it shows, not the
 * size of the store: newest first, by email address, and by decision time. Each index key
 * is written and deleted in the same commit as its submission (submissions.ts).
 *
 * Keys:
 * - `["submissions_by_time", created_ms, request_id]` → `true`: every submission, in time order
 * - `["submissions_decided", decided_ms, request_id]` → `true`: decided ones, by decision time
 * - `["submissions_by_email", email_hash, request_id]` → `true`: by a keyed hash of the
 *   normalised email, so no email is ever part of a key
 * - `["email_index_key"]` → the random key of that hash, made once per store
 * - `["migrations", "submission_indexes"]` → `1` once every older submission is indexed
 */

import { createHmac } from "node:crypto";
import { retryLocked } from "./calls.ts";

export { pagesOf } from "./calls.ts";

export const timeIndexKey = (createdMs: number, id: string): Deno.KvKey => [
  "submissions_by_time",
  createdMs,
  id,
];
export const decidedIndexKey = (decidedMs: number, id: string): Deno.KvKey => [
  "submissions_decided",
  decidedMs,
  id,
];
export const emailIndexKey = (emailHash: string, id: string): Deno.KvKey => [
  "submissions_by_email",
  emailHash,
  id,
];
const _EMAIL_KEY: Deno.KvKey = ["email_index_key"];
export const INDEX_MIGRATION_KEY: Deno.KvKey = ["migrations", "submission_indexes"];

/** Emails compare trimmed and case-insensitively: what a person would call the same address. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The keyed hash function of this store's email index. Its key is random, made once per
 * store and kept in it, so a hash says nothing without the store and no table of common
 * addresses made elsewhere matches it.
 */
export async function emailHasher(kv: Deno.Kv): Promise<(email: string) => string> {
  let entry = await retryLocked(() => kv.get<Uint8Array>(_EMAIL_KEY));
  if (!entry.value) {
    const fresh = crypto.getRandomValues(new Uint8Array(32));
    await retryLocked(() => kv.atomic().check(entry).set(_EMAIL_KEY, fresh).commit());
    entry = await retryLocked(() => kv.get<Uint8Array>(_EMAIL_KEY)); // ours, or a racer's
  }
  const key = entry.value!;
  return (email) => createHmac("sha256", key).update(normalizeEmail(email)).digest("base64url");
}

/** The time index, or the part of it before `before` (a submission's time and id). */
export function timeSelector(before?: { createdMs: number; id: string }): Deno.KvListSelector {
  return before
    ? { prefix: ["submissions_by_time"], end: timeIndexKey(before.createdMs, before.id) }
    : { prefix: ["submissions_by_time"] };
}

/** The decision index before `beforeMs`. */
export function decidedSelector(beforeMs: number): Deno.KvListSelector {
  return { prefix: ["submissions_decided"], end: ["submissions_decided", beforeMs] };
}

/** The ids of the submissions whose email hashes to `emailHash`. */
export async function idsByEmail(kv: Deno.Kv, emailHash: string): Promise<string[]> {
  const out: string[] = [];
  await retryLocked(async () => {
    out.length = 0;
    for await (const e of kv.list({ prefix: ["submissions_by_email", emailHash] })) {
      out.push(String(e.key[2]));
    }
  });
  return out;
}

/** Up to `limit` ids of submissions decided before `beforeMs`, earliest decision first. */
export async function idsDecidedBefore(
  kv: Deno.Kv,
  beforeMs: number,
  limit: number,
): Promise<string[]> {
  const page = await retryLocked(() =>
    Array.fromAsync(
      kv.list({ prefix: ["submissions_decided"], end: ["submissions_decided", beforeMs] }, {
        limit,
      }),
    )
  );
  return page.map((e) => String(e.key[2]));
}
