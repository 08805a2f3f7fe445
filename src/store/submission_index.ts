/**
 * @module
 * The indexes of submissions, so that what staff wait on costs what it shows, not the
 * size of the store: newest first, by email address, and by decision time. Each index key
 * is written and deleted in the same commit as its submission (submissions.ts, erasure.ts).
 *
 * Keys (keys.ts):
 * - `["submissions_by_time", created_ms, request_id]` → `true`: every submission, in time order
 * - `["submissions_decided", decided_ms, request_id]` → `true`: decided ones, by decision time
 * - `["submissions_by_email", email_hash, request_id]` → `true`: by a keyed hash of the
 *   normalised email, so no email is ever part of a key
 * - `["email_index_key"]` → the random key of that hash, made once per store
 * - `["pending_retention_cursor"]` → `{created_ms, request_id}`: the last time index key the
 *   pending retention pass read, so each pass goes on from there (review/retention.ts)
 */

import type { Kv } from "./store.ts";
import { createHmac } from "node:crypto";
import {
  decidedBefore,
  emailHashSecretKey,
  pendingRetentionCursorKey,
  submittedBefore,
  submittedFromUntil,
  withEmailHash,
} from "./keys.ts";
import { pagesOf } from "./pages.ts";

/**
 * The keyed hash function of this store's email index. Its key is random, made once per
 * store and kept in it, so a hash says nothing without the store and no table of common
 * addresses made elsewhere matches it. Emails compare trimmed and case-insensitively: what
 * a person would call the same address.
 */
export async function emailHasher(kv: Kv): Promise<(email: string) => string> {
  const secretKey = emailHashSecretKey();
  let entry = await kv.get<Uint8Array>(secretKey);
  if (!entry.value) {
    const fresh = crypto.getRandomValues(new Uint8Array(32));
    await kv.atomic().check(entry).set(secretKey, fresh).commit();
    entry = await kv.get<Uint8Array>(secretKey); // ours, or a racer's
  }
  const key = entry.value!;
  return (email) =>
    createHmac("sha256", key).update(email.trim().toLowerCase()).digest("base64url");
}

/**
 * The ids of submissions newest first, `pageSize` at a time; with `before` (a submission's
 * time and id), only those older than it.
 */
export async function* idPagesNewestFirst(
  kv: Kv,
  pageSize: number,
  before?: { createdMs: number; id: string },
): AsyncGenerator<string[]> {
  for await (const page of pagesOf(kv, submittedBefore(before), pageSize, { reverse: true })) {
    yield page.map((e) => String(e.key[2]));
  }
}

/** The ids of submissions decided before `beforeMs`, earliest decision first, a page at a time. */
export async function* idPagesDecidedBefore(
  kv: Kv,
  beforeMs: number,
  pageSize: number,
): AsyncGenerator<string[]> {
  for await (const page of pagesOf(kv, decidedBefore(beforeMs), pageSize)) {
    yield page.map((e) => String(e.key[2]));
  }
}

/** A place in the time index: a submission's creation time and id. */
interface TimePlace {
  createdMs: number;
  id: string;
}

/**
 * The submissions created before `beforeMs`, oldest first, `pageSize` at a time, as their
 * places in the time index; with `after`, only those after it.
 */
export async function* placePagesCreatedBefore(
  kv: Kv,
  beforeMs: number,
  pageSize: number,
  after?: TimePlace,
): AsyncGenerator<TimePlace[]> {
  if (after && after.createdMs >= beforeMs) return;
  for await (const page of pagesOf(kv, submittedFromUntil(beforeMs, after), pageSize)) {
    const places = page.map((e) => ({ createdMs: Number(e.key[1]), id: String(e.key[2]) }))
      .filter((p) => p.createdMs !== after?.createdMs || p.id !== after.id);
    if (places.length) yield places;
  }
}

/** Where the pending retention pass read the time index up to; undefined before its first. */
export async function pendingRetentionCursor(kv: Kv): Promise<TimePlace | undefined> {
  const entry = await kv.get<{ created_ms: number; request_id: string }>(
    pendingRetentionCursorKey(),
  );
  return entry.value
    ? { createdMs: entry.value.created_ms, id: entry.value.request_id }
    : undefined;
}

/**
 * Records that the pending retention pass read the time index up to `place`. A plain write:
 * two passes at once may set it back, which only makes the next pass read some keys again.
 */
export async function setPendingRetentionCursor(kv: Kv, place: TimePlace): Promise<void> {
  await kv.set(pendingRetentionCursorKey(), { created_ms: place.createdMs, request_id: place.id });
}

/** The ids of the submissions whose email hashes to `emailHash`, in id order; `limit` at most. */
export async function idsByEmail(
  kv: Kv,
  emailHash: string,
  limit?: number,
): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list(withEmailHash(emailHash), { limit })) out.push(String(e.key[2]));
  return out;
}
