/**
 * @module
 * Erasing decided submissions past a date: `review purge` and the service's own retention
 * pass (`SUBMISSION_RETENTION_DAYS`). Ids come a page at a time from the decision index,
 * and are erased {@linkcode ERASE_BATCH} at a time (in commits within KV's limits), each
 * with everything that points to it (store/erasure.ts).
 */

import type { Kv } from "../store/store.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../http/log.ts";
import { ERASE_BATCH, type Erased, eraseSubmissions } from "../store/erasure.ts";
import { idPagesDecidedBefore } from "../store/submission_index.ts";
import { DAY_MS } from "../time.ts";

/** Submissions read and erased per page by purge and the retention pass. */
const ERASE_PAGE = 100;

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
 * Erases the submissions of `ids`, {@linkcode ERASE_BATCH} at a time, each with
 * everything that points to it; those already gone are left out.
 */
export async function eraseAll(
  kv: Kv,
  ids: Iterable<string> | AsyncIterable<string>,
  onErased: (e: Erased) => void | Promise<void> = () => {},
): Promise<number> {
  let erased = 0;
  let batch: string[] = [];
  const flush = async () => {
    for (const done of await eraseSubmissions(kv, batch)) {
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
  pause: () => Promise<void> = () => new Promise((r) => setTimeout(r, 0)),
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
