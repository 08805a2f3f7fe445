/**
 * @module
 * The review notice backlog as an operator sees it: how many notices wait (counted up to
 * a cap, so the cost never follows the store) and how old the oldest is. Read by
 * readiness (ops/readiness.ts) and, for the notice gauges, by the notifier.
 */

import { requestIdTime } from "../intake/ids.ts";
import { countOutbox, firstOutboxIds } from "../store/outbox.ts";

/** Waiting notices are counted up to this many; more reads as this many. */
const BACKLOG_COUNT_CAP = 10_000;

interface NoticeBacklog {
  /** Notices not yet sent, up to `cap` (0 when not counted). */
  waiting: number;
  /** ms since the oldest waiting notice's submission; null when none waits. */
  oldestAgeMs: number | null;
}

/** Two point reads for the oldest, and a keys-only count of at most `cap` entries. */
export async function noticeBacklog(
  kv: Deno.Kv,
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
