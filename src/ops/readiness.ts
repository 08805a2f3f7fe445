/**
 * @module
 * Readiness (`GET /readyz`): whether this instance can serve what needs the store, and how
 * old the oldest waiting review notice is. Liveness (`GET /healthz`) is the process alone
 * and never waits on the store; see docs/operations.md.
 */

import { noticeBacklog } from "../review/backlog.ts";
import { pingStore } from "../store/open.ts";

/** How long the store may take to answer before the instance is reported not ready. */
export const STORE_TIMEOUT_MS = 2_000;
/**
 * A waiting notice older than this is reported stale: the webhook has been failing for
 * longer than the backoff explains (its longest wait is 10 minutes).
 */
export const NOTICE_STALE_MS = 15 * 60_000;

export interface Readiness {
  /** True when the store answered within {@linkcode STORE_TIMEOUT_MS}. */
  ready: boolean;
  store: { ok: boolean; ms: number };
  /**
   * The oldest review notice not yet sent. Stale notices leave `ready` as it is: every
   * instance shares the one outbox, so taking instances out of rotation would not send
   * them; alert on it instead.
   */
  notices: { oldest_age_s: number | null; stale: boolean; stale_after_s: number };
}

/** Checks the store, then reads the age of the oldest waiting notice (two point reads). */
export async function readiness(kv: Deno.Kv, now: () => number): Promise<Readiness> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), STORE_TIMEOUT_MS);
  });
  let ok: boolean;
  try {
    ok = await Promise.race([pingStore(kv).then(() => true), timeout]);
  } catch {
    ok = false;
  } finally {
    clearTimeout(timer);
  }
  const store = { ok, ms: Math.round(performance.now() - started) };
  const notices = {
    oldest_age_s: null as number | null,
    stale: false,
    stale_after_s: NOTICE_STALE_MS / 1000,
  };
  if (ok) {
    const age = (await noticeBacklog(kv, now(), 0).catch(() => null))?.oldestAgeMs ?? null;
    if (age !== null) {
      notices.oldest_age_s = Math.round(age / 1000);
      notices.stale = age > NOTICE_STALE_MS;
    }
  }
  return { ready: ok, store, notices };
}
