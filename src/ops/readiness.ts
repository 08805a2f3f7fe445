/**
 * @module
 * Readiness (`GET /readyz`): whether this instance can serve what needs the store, and
 * nothing else. Ready means the store's breaker is closed (store/deadline.ts) and a ping
 * answered within the store's deadline. Anyone may ask, so the answer carries nothing
 * that moves with submissions or the review webhook: the notice backlog is the
 * operator's, through the `dcfs.review.notices.*` gauges and `deno task review notices`.
 * Liveness (`GET /healthz`) is the process alone and never waits on the store; see
 * docs/operations.md.
 */

import type { Store } from "../store/store.ts";
import type { Context } from "../context.ts";
import { CACHE_CONTROL, json } from "../http/json.ts";
import { pingStore } from "../store/open.ts";

/** An answer is reused this long (by the injected clock), and one check runs at a time. */
export const READY_CACHE_MS = 1_000;

/**
 * `GET /healthz`: liveness is the process alone. It answers at once after start, whatever
 * the store is doing (Deno KV clears expired keys before its first read).
 */
export function liveness(): Response {
  return json({ ok: true }, { headers: { "Cache-Control": CACHE_CONTROL.noStore } });
}

/**
 * `GET /readyz` for one handler: `200 {"ready":true}`, else `503 {"ready":false}` with
 * `Retry-After`. However often it is asked, the store sees at most one ping a second, and
 * one at a time.
 */
export function readinessEndpoint(): (req: Request, ctx: Context) => Promise<Response> {
  let last: { at: number; answer: Promise<boolean> } | undefined;
  return async (_req, ctx) => {
    const at = ctx.now();
    if (!last || at - last.at >= READY_CACHE_MS || at < last.at) {
      last = { at, answer: _ready(ctx.kv) };
    }
    const ready = await last.answer;
    const headers: Record<string, string> = { "Cache-Control": CACHE_CONTROL.noStore };
    if (!ready) headers["Retry-After"] = "1";
    return json({ ready }, { status: ready ? 200 : 503, headers });
  };
}

/**
 * The ping, under the store's deadline: a store that stalls makes the answer `false` once
 * the deadline passes, never a request that hangs. While the breaker is open the ping
 * fails at once, and may start the breaker's probe.
 */
async function _ready(kv: Store): Promise<boolean> {
  try {
    await pingStore(kv);
  } catch {
    return false;
  }
  return kv.breakerClosed;
}
