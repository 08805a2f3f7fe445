/**
 * @module
 * Erasing submissions past a date: `review purge` (review/erase.ts) and the service's two
 * retention passes, `SUBMISSION_RETENTION_DAYS` for decided submissions and
 * `PENDING_RETENTION_DAYS` for undecided ones. Ids come a page at a time from an index:
 * decided ones by decision time, pending ones by creation time (each record read for its
 * status). They are erased {@linkcode ERASE_BATCH} at a time (in commits within KV's limits),
 * each with everything that points to it (store/erasure.ts), and only while it still has the
 * status it was chosen for: a submission decided while pending ones are purged is kept.
 *
 * **The pending pass goes on from where the last one stopped.** Every submission created
 * before the cutoff is either erased or decided once a pass has read it, and a decision is
 * final, so the next pass has nothing to find before the last time index key read: it keeps
 * that key (store/submission_index.ts) and reads on from it. Without it, every hourly pass
 * would read the record of every decided submission older than the retention again, the
 * whole store kept under `SUBMISSION_RETENTION_DAYS`; with it, a pass reads the hour's new
 * arrivals past the cutoff (tests/review/pending_retention_test.ts counts the reads).
 */

import type { Kv } from "../store/store.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../http/log.ts";
import { ERASE_BATCH, type Erased, type EraseOnly, eraseSubmissions } from "../store/erasure.ts";
import {
  idPagesDecidedBefore,
  pendingRetentionCursor,
  placePagesCreatedBefore,
  setPendingRetentionCursor,
} from "../store/submission_index.ts";
import { getSubmissions, type SubmissionRecord } from "../store/submissions.ts";
import { DAY_MS } from "../time.ts";

/** Submissions read and erased per page by purge and the retention passes. */
const ERASE_PAGE = 100;

/** What a purge takes: one status, or `decided` for approved and rejected ones. */
export type PurgeStatus = "pending" | "approved" | "rejected" | "decided";

/** Whether a record has `status`: the check each erasure of a purge makes as it commits. */
export function hasStatus(status: PurgeStatus): EraseOnly {
  return (r) => status === "decided" ? r.status !== "pending" : r.status === status;
}

/**
 * The ids of the submissions decided before `before` (ms), earliest decision first, a page
 * at a time from the decision index: never the whole store in memory, and no record read
 * (an erasure reads each record itself, to check it).
 */
export async function* decidedIdsBefore(
  kv: Kv,
  before: number,
): AsyncGenerator<string> {
  for await (const ids of idPagesDecidedBefore(kv, before, ERASE_PAGE)) yield* ids;
}

/**
 * The submissions a purge of `status` before `before` (ms) takes, a page at a time: pending
 * ones created before it, oldest first, from the time index; approved or rejected ones
 * decided before it, earliest decision first, from the decision index.
 */
export async function* recordsBefore(
  kv: Kv,
  status: PurgeStatus,
  before: number,
): AsyncGenerator<SubmissionRecord> {
  const pages = status === "pending"
    ? _ids(placePagesCreatedBefore(kv, before, ERASE_PAGE))
    : idPagesDecidedBefore(kv, before, ERASE_PAGE);
  for await (const ids of pages) {
    yield* (await getSubmissions(kv, ids)).filter(hasStatus(status));
  }
}

async function* _ids(pages: AsyncIterable<{ id: string }[]>): AsyncGenerator<string[]> {
  for await (const page of pages) yield page.map((p) => p.id);
}

/**
 * Erases the submissions of `ids`, {@linkcode ERASE_BATCH} at a time, each with
 * everything that points to it; those already gone, and those `only` refuses, are left out.
 */
export async function eraseAll(
  kv: Kv,
  ids: Iterable<string> | AsyncIterable<string>,
  onErased: (e: Erased) => void | Promise<void> = () => {},
  only?: EraseOnly,
): Promise<number> {
  let erased = 0;
  let batch: string[] = [];
  const flush = async () => {
    for (const done of await eraseSubmissions(kv, batch, only)) {
      erased++;
      await onErased(done);
    }
    batch = [];
  };
  for await (const id of ids) {
    batch.push(id);
    if (batch.length === ERASE_BATCH) await flush();
  }
  if (batch.length) await flush();
  return erased;
}

/** The cutoff of a retention of `days` days at `now`. */
export function retentionCutoff(now: number, days: number): number {
  return now - days * DAY_MS;
}

interface RetentionDeps {
  kv: Kv;
  config: Config;
  now: () => number;
  log: Logger;
}

const _turn = () => new Promise<void>((r) => setTimeout(r, 0));

/**
 * One pass of `SUBMISSION_RETENTION_DAYS` (ops/background.ts runs it at start and every
 * hour): erases decided submissions past the retention, page by page from the decision
 * index, pausing after every 100 erasures so that serving goes on while a large backlog is
 * erased.
 * With the variable unset it does nothing. Several instances may run it at once: erasure
 * is checked and idempotent. Returns how many it erased. `pause` runs between pages and
 * may reject to stop the pass there (a drain).
 */
export async function retentionPass(
  deps: RetentionDeps,
  pause: () => Promise<void> = _turn,
): Promise<number> {
  const days = deps.config.submissionRetentionDays;
  if (days === undefined) return 0;
  const now = deps.now();
  let sincePause = 0;
  const erased = await eraseAll(
    deps.kv,
    decidedIdsBefore(deps.kv, retentionCutoff(now, days)),
    async () => {
      if (++sincePause % ERASE_PAGE === 0) await pause();
    },
  );
  if (erased) deps.log({ level: "info", msg: "retention purge", erased, days });
  return erased;
}

/**
 * One pass of `PENDING_RETENTION_DAYS`, run right after {@linkcode retentionPass}: erases
 * the submissions still pending that were created more than that many days ago, a page of
 * the time index at a time from where the last pass stopped, with `pause` after each page.
 * With the variable unset it does nothing. Logged, as the decided pass is; neither is a
 * person's action, so neither writes the audit trail. Returns how many it erased.
 */
export async function pendingRetentionPass(
  deps: RetentionDeps,
  pause: () => Promise<void> = _turn,
): Promise<number> {
  const days = deps.config.pendingRetentionDays;
  if (days === undefined) return 0;
  const { kv } = deps;
  const cutoff = retentionCutoff(deps.now(), days);
  const pending = hasStatus("pending");
  let erased = 0;
  const from = await pendingRetentionCursor(kv);
  for await (const places of placePagesCreatedBefore(kv, cutoff, ERASE_PAGE, from)) {
    const records = await getSubmissions(kv, places.map((p) => p.id));
    const ids = records.filter(pending).map((r) => r.request_id);
    erased += await eraseAll(kv, ids, undefined, pending);
    await setPendingRetentionCursor(kv, places.at(-1)!);
    await pause();
  }
  if (erased) deps.log({ level: "info", msg: "pending retention purge", erased, days });
  return erased;
}
