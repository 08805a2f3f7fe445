/**
 * @module
 * The review notice backlog as an operator sees it: how many notices wait (counted up to
 * a cap, so the cost never follows the store), how old the oldest is, and whether that is
 * stale. Read by the notifier for the notice gauges and by `deno task review notices`;
 * never by anything anonymous (`/readyz` says only ready or not).
 */

import type { Kv } from "../store/store.ts";
import { requestIdTime } from "../intake/ids.ts";
import { countOutbox, firstOutboxIds } from "../store/outbox.ts";
import { MINUTE_MS } from "../time.ts";
import type { ReviewIo } from "./io.ts";

/** Waiting notices are counted up to this many; more reads as this many. */
const BACKLOG_COUNT_CAP = 10_000;

/**
 * A waiting notice older than this is stale: the webhook has been failing for longer
 * than the backoff explains (its longest wait is 10 minutes).
 */
export const NOTICE_STALE_MS = 15 * MINUTE_MS;

interface NoticeBacklog {
  /** Notices not yet sent, up to `cap` (0 when not counted). */
  waiting: number;
  /** ms since the oldest waiting notice's submission; null when none waits. */
  oldestAgeMs: number | null;
}

/** Two point reads for the oldest, and a keys-only count of at most `cap` entries. */
export async function noticeBacklog(
  kv: Kv,
  now: number,
  cap = BACKLOG_COUNT_CAP,
): Promise<NoticeBacklog> {
  const ids = await firstOutboxIds(kv);
  const oldest = ids.length ? Math.min(...ids.map(requestIdTime)) : null;
  return {
    waiting: cap > 0 && ids.length ? await countOutbox(kv, cap) : 0,
    oldestAgeMs: oldest === null ? null : Math.max(0, now - oldest),
  };
}

/**
 * `deno task review notices`: how many review notices wait, how old the oldest is, and
 * whether that is stale (the webhook failing); `--json` prints it as one object.
 */
export async function printNoticeBacklog(io: ReviewIo, asJson: boolean): Promise<void> {
  const { waiting, oldestAgeMs } = await noticeBacklog(io.kv, io.now());
  const stale = oldestAgeMs !== null && oldestAgeMs > NOTICE_STALE_MS;
  const oldestS = oldestAgeMs === null ? null : Math.round(oldestAgeMs / 1000);
  if (asJson) {
    const staleAfterS = NOTICE_STALE_MS / 1000;
    io.out(JSON.stringify({ waiting, oldest_age_s: oldestS, stale, stale_after_s: staleAfterS }));
    return;
  }
  if (oldestS === null) {
    io.out("No review notice is waiting.");
    return;
  }
  const more = waiting >= BACKLOG_COUNT_CAP ? " or more" : "";
  io.out(
    `${waiting}${more} review notice${waiting === 1 ? "" : "s"} waiting; the oldest for ` +
      `${_age(oldestS)}.` +
      (stale
        ? ` Stale: over ${NOTICE_STALE_MS / MINUTE_MS} minutes, so the webhook has been ` +
          `failing; "show <request_id>" gives a notice's last error.`
        : ""),
  );
}

function _age(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
