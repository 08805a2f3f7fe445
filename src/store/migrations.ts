/**
 * @module
 * What a store written by an older version of the service needs before this version reads
 * it, each behind a marker so it runs once per store (`["migrations", name]`):
 *
 * - `indexOutbox`: review notices written before the due index (before b905dde,
 *   2026-11-22). It can go once every store in use has the `outbox_due_index` marker.
 * - `indexSubmissions`: submissions written before their indexes and row summary (before
 *   90464e1, 2026-11-23). It can go once every store in use has the `submission_indexes`
 *   marker.
 *
 * The service runs `indexOutbox` in the notifier's first pass and `indexSubmissions` in the
 * background at start (`indexOlderStoreInBackground` in ops/background.ts); the review CLI
 * runs `indexSubmissions` before the commands that read the indexes, since it may open a
 * store no new instance has started on.
 */

import {
  allOutbox,
  allSubmissions,
  decidedIndexKey,
  dueKey,
  emailIndexKey,
  migrationKey,
  timeIndexKey,
} from "./keys.ts";
import type { OutboxEntry } from "./outbox.ts";
import { pagesOf } from "./pages.ts";
import { emailHasher } from "./submission_index.ts";
import { retryLocked } from "./retry_locked.ts";
import {
  getSubmissionPayload,
  type SubmissionRecord,
  type SubmissionSummary,
} from "./submissions.ts";

/** Runs between pages; may reject to stop a migration there (a drain). */
type Pause = () => Promise<void>;
const _nextTurn: Pause = () => new Promise((r) => setTimeout(r, 0));
const _PAGE = 200;

/** What indexing an older submission computes from its request. */
interface SubmissionIndexing {
  /** The store's email hasher (submission_index.ts). */
  hash: (email: string) => string;
  /** The row summary a record carries (review/summary.ts). */
  summarize: (request: Record<string, unknown>) => SubmissionSummary;
}

/**
 * Indexes the submissions written before the indexes existed (submission_index.ts): a
 * page at a time, each record with its index keys and `summarize`'s summary in one checked
 * commit, then the marker. Returns how many records it indexed; 0 at once, after one read,
 * when the marker is there.
 */
export async function indexSubmissions(
  kv: Deno.Kv,
  summarize: SubmissionIndexing["summarize"],
  pause: Pause = _nextTurn,
): Promise<number> {
  const marker = migrationKey("submission_indexes");
  if ((await retryLocked(() => kv.get(marker))).value) return 0;
  const how = { hash: await emailHasher(kv), summarize };
  let indexed = 0;
  for await (const page of pagesOf<SubmissionRecord>(kv, allSubmissions(), _PAGE)) {
    for (const entry of page) {
      if (entry.value.summary === undefined && await _indexOne(kv, entry, how)) indexed++;
    }
    // After a full page, before the next is read: where a drain stops it.
    if (page.length === _PAGE) await pause();
  }
  await retryLocked(() => kv.set(marker, 1));
  return indexed;
}

async function _indexOne(
  kv: Deno.Kv,
  entry: Deno.KvEntry<SubmissionRecord>,
  how: SubmissionIndexing,
): Promise<boolean> {
  let request: Record<string, unknown> = {};
  try {
    request = JSON.parse(await getSubmissionPayload(kv, entry.value));
  } catch { /* erased meanwhile: the check below fails */ }
  const email = typeof request.email === "string" && request.email.trim() ? request.email : "";
  const next = {
    ...entry.value,
    summary: how.summarize(request),
    email_hash: email ? how.hash(email) : null,
  };
  const id = entry.value.request_id;
  const op = kv.atomic().check(entry).set(entry.key, next)
    .set(timeIndexKey(Date.parse(next.created_at), id), true);
  if (next.email_hash) op.set(emailIndexKey(next.email_hash, id), true);
  if (next.decision) op.set(decidedIndexKey(Date.parse(next.decision.decided_at), id), true);
  return (await retryLocked(() => op.commit())).ok;
}

/**
 * Gives every outbox entry its due-index key where it has none. A page at a time with a
 * point read per entry, so it never holds the outbox in memory. (An instance of such an
 * old version still writing during a rolling deploy after the marker is set leaves its
 * notices unindexed until it is replaced: deploy past it in one step.)
 */
export async function indexOutbox(kv: Deno.Kv, pause: Pause = _nextTurn): Promise<number> {
  const marker = migrationKey("outbox_due_index");
  if ((await retryLocked(() => kv.get(marker))).value) return 0;
  let added = 0;
  for await (const page of pagesOf<OutboxEntry>(kv, allOutbox(), _PAGE)) {
    for (const entry of page) {
      const key = dueKey(entry.value);
      if ((await retryLocked(() => kv.get(key))).value) continue;
      const res = await retryLocked(() => kv.atomic().check(entry).set(key, true).commit());
      if (res.ok) added++;
    }
    await pause();
  }
  await retryLocked(() => kv.set(marker, 1));
  return added;
}
