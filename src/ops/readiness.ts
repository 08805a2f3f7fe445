/**
 * @module
 * Readiness (`GET /readyz`): whether this instance can serve what needs the store, and how
 * old the oldest waiting review notice is. Liveness (`GET /healthz`) is the process alone
 * and never waits on the store; see docs/operations.md.
 */

import type { Context } from "../context.ts";
import { CACHE_CONTROL, json } from "../http/json.ts";
import { noticeBacklog } from "../review/backlog.ts";
import { pingStore } from "../store/open.ts";
import { MINUTE_MS } from "../time.ts";

/** How long the store may take to answer both reads before the instance is not ready. */
export const STORE_TIMEOUT_MS = 2_000;
/** An answer is reused this long (by the injected clock), and one check runs at a time. */
export const READY_CACHE_MS = 1_000;
/**
 * A waiting notice older than this is reported stale: the webhook has been failing for
 * longer than the backoff explains (its longest wait is 10 minutes).
 */
export const NOTICE_STALE_MS = 15 * MINUTE_MS;

interface Readiness {
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
 * `GET /healthz`: liveness is the process alone. It answers at once after start, whatever
 * the store is doing (Deno KV clears expired keys before its first read).
 */
export function liveness(): Response {
  return json({ ok: true }, { headers: { "Cache-Control": CACHE_CONTROL.noStore } });
}

/**
 * `GET /readyz` for one handler: 200 when ready, else 503. Anyone may call it, so however
 * often it is asked, the store sees at most one check a second, and one at a time.
 */
export function readinessEndpoint(): (req: Request, ctx: Context) => Promise<Response> {
  let last: { at: number; answer: Promise<Readiness> } | undefined;
  return async (_req, ctx) => {
    const at = ctx.now();
    if (!last || at - last.at >= READY_CACHE_MS || at < last.at) {
      last = { at, answer: readiness(ctx.kv, ctx.now) };
    }
    const state = await last.answer;
    return json(state, {
      status: state.ready ? 200 : 503,
      headers: { "Cache-Control": CACHE_CONTROL.noStore },
    });
  };
}

/**
 * Pings the store, then reads the age of the oldest waiting notice (two reads of one key
 * each), both under one deadline: a store that stalls makes the answer `ready: false`
 * after {@linkcode STORE_TIMEOUT_MS}, never a request that hangs.
 */
async function readiness(kv: Deno.Kv, now: () => number): Promise<Readiness> {
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
