/**
 * @module
 * The review outbox: a notice per submission not yet sent, and its due index. This module
 * reads, lists, moves and drops notices; the commits that also touch a submission (creating
 * a notice with it, removing it with an erasure, and `completeOutbox`, which marks the
 * submission notified) live in submissions.ts, which imports this module's keys.
 *
 * Keys:
 * - `["review_outbox", request_id]` → {@linkcode OutboxEntry}: a review notification not yet sent
 * - `["review_due", next_attempt_at, request_id]` → `true`: the outbox in due order, moved
 *   in the same commit as every change of the entry's `next_attempt_at`
 */

import { retryLocked } from "./calls.ts";

export const outboxKey = (id: string): Deno.KvKey => ["review_outbox", id];
/** The due index: listing it in key order gives the outbox by next attempt time. */
export const dueKey = (entry: OutboxEntry): Deno.KvKey => [
  "review_due",
  entry.next_attempt_at,
  entry.request_id,
];

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

/** Every review notification waiting to be sent, by request id. */
export function listOutbox(kv: Deno.Kv): Promise<Deno.KvEntry<OutboxEntry>[]> {
  return retryLocked(() => Array.fromAsync(kv.list<OutboxEntry>({ prefix: ["review_outbox"] })));
}

/**
 * Up to `limit` outbox entries due at `now`, earliest first, read through the due index.
 * An index key whose entry is gone or has moved on (left by an older version of the
 * service, which moved entries without their key) is deleted here, checked against the
 * entry, so it is never read twice; {@linkcode indexOutbox} gives the entry its key again.
 */
export async function listDueOutbox(
  kv: Deno.Kv,
  now: number,
  limit: number,
): Promise<Deno.KvEntry<OutboxEntry>[]> {
  const due = await retryLocked(() =>
    Array.fromAsync(kv.list({ start: ["review_due"], end: ["review_due", now + 1] }, { limit }))
  );
  const out: Deno.KvEntry<OutboxEntry>[] = [];
  for (const { key } of due) {
    const entry = await getOutboxEntry(kv, String(key[2]));
    if (entry.value && entry.value.next_attempt_at === key[1]) {
      out.push(entry as Deno.KvEntry<OutboxEntry>);
    } else {
      await retryLocked(() =>
        kv.atomic().check({ key: entry.key, versionstamp: entry.versionstamp }).delete(key).commit()
      );
    }
  }
  return out;
}

/**
 * Gives every outbox entry its due-index key where it has none: entries written by an
 * older version of the service (before the index, or by an instance of it still running
 * beside this one during a rolling deploy). Two range reads and a write per entry that
 * needs one; the notifier runs it at start and then every minute.
 */
export async function indexOutbox(kv: Deno.Kv): Promise<number> {
  const indexed = new Set<string>();
  await retryLocked(async () => {
    for await (const { key } of kv.list({ prefix: ["review_due"] })) {
      indexed.add(JSON.stringify(key));
    }
  });
  let added = 0;
  for (const entry of await listOutbox(kv)) {
    const key = dueKey(entry.value);
    if (indexed.has(JSON.stringify(key))) continue;
    const res = await retryLocked(() => kv.atomic().check(entry).set(key, true).commit());
    if (res.ok) added++;
  }
  return added;
}

export function getOutboxEntry(kv: Deno.Kv, id: string): Promise<Deno.KvEntryMaybe<OutboxEntry>> {
  return retryLocked(() => kv.get<OutboxEntry>(outboxKey(id)));
}

/**
 * Replaces an outbox entry if it has not changed since it was read, moving its due-index
 * key with it; returns the new entry (with its versionstamp), or null when another
 * instance changed it first.
 */
export async function updateOutbox(
  kv: Deno.Kv,
  entry: Deno.KvEntry<OutboxEntry>,
  next: OutboxEntry,
): Promise<Deno.KvEntry<OutboxEntry> | null> {
  const op = kv.atomic().check(entry).set(entry.key, next);
  if (next.next_attempt_at !== entry.value.next_attempt_at) op.delete(dueKey(entry.value));
  const res = await retryLocked(() => op.set(dueKey(next), true).commit());
  return res.ok ? { key: entry.key, value: next, versionstamp: res.versionstamp } : null;
}

/** Drops an outbox entry whose submission no longer exists. */
export async function dropOutbox(kv: Deno.Kv, outbox: Deno.KvEntry<OutboxEntry>): Promise<void> {
  await retryLocked(() =>
    kv.atomic().check(outbox).delete(outbox.key).delete(dueKey(outbox.value)).commit()
  );
}
