/**
 * @module
 * The review outbox: a notice per submission not yet sent, and its due index. This module
 * reads, lists, moves and drops notices; the commits that also touch a submission (creating
 * a notice with it, removing it with an erasure, and `completeOutbox`, which marks the
 * submission notified) live in submissions.ts and erasure.ts.
 *
 * Keys (keys.ts):
 * - `["review_outbox", request_id]` → {@linkcode OutboxEntry}: a review notification not yet sent
 * - `["review_due", next_attempt_at, request_id]` → `true`: the outbox in due order, moved
 *   in the same commit as every change of the entry's `next_attempt_at`
 * - `["review_new", created_ms, request_id]` → `true`: notices never tried yet, so the newest
 *   goes first whatever the backlog; deleted when the notice is first claimed
 */

import type { Kv } from "./store.ts";
import { allDue, allNewNotices, dueKey, newNoticeKey, outboxKey, outboxOfKind } from "./keys.ts";
import { getEach } from "./pages.ts";

/** A review notification waiting to be sent (transactional outbox). */
export interface OutboxEntry {
  request_id: string;
  /** The submission's kind (`SubmissionKind` in submissions.ts). */
  kind: "lead" | "quote";
  /** Delivery attempts so far. */
  attempts: number;
  /** ms since the epoch: not before then (a retry's backoff, or another instance's lease). */
  next_attempt_at: number;
  last_error: string | null;
}

/** A page of the due index, as the notifier reads it. */
interface DuePage {
  /** The entries due at `now`, earliest first. */
  due: Deno.KvEntry<OutboxEntry>[];
  /** True when every key read was due: more may be due than one page holds. */
  full: boolean;
  /**
   * The next attempt time of the first key after `now` in the page (a retry's backoff or a
   * lease), or null when the page held none: when the notifier may next find work.
   */
  later: number | null;
}

/**
 * Up to `limit` keys of the due index, earliest first, in one list read: the entries due
 * at `now`, and the time the first one not due yet is (so an idle notifier knows how long
 * it may sleep without a second read). An index key whose entry is gone or has moved on
 * is deleted here, checked against the entry, so it is never read twice.
 */
export async function listDueOutbox(kv: Kv, now: number, limit: number): Promise<DuePage> {
  const page = await Array.fromAsync(kv.list(allDue(), { limit }));
  const firstLater = page.findIndex(({ key }) => Number(key[1]) > now);
  const dueKeys = firstLater < 0 ? page : page.slice(0, firstLater);
  return {
    due: await _indexed(kv, dueKeys, (entry, key) => entry.next_attempt_at === key[1]),
    full: dueKeys.length === limit,
    later: firstLater < 0 ? null : Number(page[firstLater]!.key[1]),
  };
}

/**
 * Up to `limit` notices never tried yet, newest first, through the new-notice lane: a
 * new submission's notice goes out in the next pass, whatever the backlog of older ones.
 * A lane key whose entry is gone or was tried meanwhile is deleted here.
 */
export async function listNewOutbox(
  kv: Kv,
  limit: number,
): Promise<Deno.KvEntry<OutboxEntry>[]> {
  const lane = await Array.fromAsync(kv.list(allNewNotices(), { limit, reverse: true }));
  return await _indexed(kv, lane, (entry) => entry.attempts === 0);
}

/**
 * The entries an index page (`[prefix, time, request_id]` keys) points to, read in one round
 * trip, those `current` accepts for their index key. An index key whose entry is gone or
 * does not match it is deleted, checked against the entry, so it is never read twice.
 */
async function _indexed(
  kv: Kv,
  index: readonly Deno.KvEntry<unknown>[],
  current: (entry: OutboxEntry, indexKey: Deno.KvKey) => boolean,
): Promise<Deno.KvEntry<OutboxEntry>[]> {
  const entries = await getOutboxEntries(kv, index.map(({ key }) => String(key[2])));
  const out: Deno.KvEntry<OutboxEntry>[] = [];
  for (const [i, entry] of entries.entries()) {
    const key = index[i]!.key;
    if (entry.value && current(entry.value, key)) out.push(entry as Deno.KvEntry<OutboxEntry>);
    else {
      await kv.atomic().check({ key: entry.key, versionstamp: entry.versionstamp }).delete(key)
        .commit();
    }
  }
  return out;
}

/**
 * The first waiting notice of each kind by request id. Ids begin with the kind and then
 * their time (intake/ids.ts), so the oldest waiting notice is one of these: two reads of
 * one key each, whatever the backlog.
 */
export async function firstOutboxIds(kv: Kv): Promise<string[]> {
  const ids: string[] = [];
  for (const kind of ["lead", "quote"] satisfies OutboxEntry["kind"][]) {
    const [first] = await Array.fromAsync(kv.list(outboxOfKind(kind), { limit: 1 }));
    if (first) ids.push(String(first.key[1]));
  }
  return ids;
}

/** How many notices wait, counted up to `cap` through the due index (small keys). */
export async function countOutbox(kv: Kv, cap: number): Promise<number> {
  let n = 0;
  for await (const _ of kv.list(allDue(), { limit: cap, batchSize: 500 })) n++;
  return n;
}

export function getOutboxEntry(kv: Kv, id: string): Promise<Deno.KvEntryMaybe<OutboxEntry>> {
  return kv.get<OutboxEntry>(outboxKey(id));
}

/** The outbox entries of `ids`, in that order, in one round trip. */
export function getOutboxEntries(
  kv: Kv,
  ids: readonly string[],
): Promise<Deno.KvEntryMaybe<OutboxEntry>[]> {
  return getEach<OutboxEntry>(kv, ids.map(outboxKey));
}

/**
 * Replaces an outbox entry if it has not changed since it was read, moving its due-index
 * key with it; returns the new entry (with its versionstamp), or null when another
 * instance changed it first.
 */
export async function updateOutbox(
  kv: Kv,
  entry: Deno.KvEntry<OutboxEntry>,
  next: OutboxEntry,
): Promise<Deno.KvEntry<OutboxEntry> | null> {
  const op = kv.atomic().check(entry).set(entry.key, next);
  if (next.next_attempt_at !== entry.value.next_attempt_at) op.delete(dueKey(entry.value));
  // First claimed: out of the new-notice lane (its time is still the creation time).
  if (entry.value.attempts === 0 && next.attempts > 0) {
    op.delete(newNoticeKey(entry.value.next_attempt_at, entry.value.request_id));
  }
  const res = await op.set(dueKey(next), true).commit();
  return res.ok ? { key: entry.key, value: next, versionstamp: res.versionstamp } : null;
}

/** Drops an outbox entry whose submission no longer exists. */
export async function dropOutbox(kv: Kv, outbox: Deno.KvEntry<OutboxEntry>): Promise<void> {
  await kv.atomic().check(outbox).delete(outbox.key).delete(dueKey(outbox.value)).commit();
}
