/**
 * @module
 * Readiness (`GET /readyz`): whether this instance can serve what needs the store, and how
 * old the oldest waiting review notice is. Liveness (`GET /healthz`) is the process alone
 * and never waits on the store; see docs/operations.md.
 */

import { noticeBacklog } from "../review/backlog.ts";
import { pingStore } from "../store/open.ts";

/** How long the store may take to answer both reads before the instance is not ready. */
export const STORE_TIMEOUT_MS = 2_000;
/** An answer is reused this long (by the injected clock), and one check runs at a time. */
export const READY_CACHE_MS = 1_000;
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

/**
 * The readiness check of one handler: anyone may call `/readyz`, so however often it is
 * asked, the store sees at most one check a second, and one at a time.
 */
export function readinessCheck(): (kv: Deno.Kv, now: () => number) => Promise<Readiness> {
  let last: { at: number; answer: Promise<Readiness> } | undefined;
  return (kv, now) => {
    const at = now();
    if (!last || at - last.at >= READY_CACHE_MS || at < last.at) {
      last = { at, answer: readiness(kv, now) };
    }
    return last.answer;
  };
}

/**
 * Pings the store, then reads the age of the oldest waiting notice (two reads of one key
 * each), both under one deadline: a store that stalls makes the answer `ready: false`
 * after {@linkcode STORE_TIMEOUT_MS}, never a request that hangs.
 */
export async function readiness(kv: Deno.Kv, now: () => number): Promise<Readiness> {
  const started = performance.now();
  const checks = (async () => {
    await pingStore(kv);
    return (await noticeBacklog(kv, now(), 0)).oldestAgeMs;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), STORE_TIMEOUT_MS);
  });
  let age: number | null | "timeout" | "failed";
  try {
    age = await Promise.race([checks, deadline]);
  } catch {
    age = "failed";
  } finally {
    clearTimeout(timer);
  }
  checks.catch(() => {}); // a late failure after the deadline is already answered
  const ok = age !== "timeout" && age !== "failed";
  const oldest = ok ? age as number | null : null;
  return {
    ready: ok,
    store: { ok, ms: Math.round(performance.now() - started) },
    notices: {
      oldest_age_s: oldest === null ? null : Math.round(oldest / 1000),
      stale: oldest !== null && oldest > NOTICE_STALE_MS,
      stale_after_s: NOTICE_STALE_MS / 1000,
    },
  };
}
