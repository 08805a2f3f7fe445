/**
 * @module
 * The drain on SIGINT or SIGTERM, bounded so that the process is gone before Deno Deploy
 * kills it (SIGKILL 5 s after its SIGINT) or Docker does (10 s after SIGTERM by default).
 *
 * At the signal, new requests get 503 and background work stops at once (a webhook
 * delivery in flight is abandoned: its notice stays leased, and the lease sends it again).
 * Requests in flight, their bodies included, have {@linkcode GRACE_MS} to finish; then
 * `cut` is aborted and the handler answers every one still in flight with 503 and
 * `Retry-After` (a slow upload, a store that does not answer). A submission is answered
 * 2xx only after its commit, so every one answered so is kept; one cut during its commit
 * may still land, and the client's retry replays it. Then the server is shut down, what
 * the answered requests left in memory is written (the demand counts, catalog/demand.ts),
 * the store closed and the process exits 0, at most {@linkcode EXIT_MS} after the signal;
 * past that it exits 1 whatever is left.
 */

import type { Store } from "../store/store.ts";
import type { Logger } from "../http/log.ts";

/** How long requests in flight may take to finish after the signal. */
const GRACE_MS = 3_000;
/** The latest the process exits after the signal: 1 s under Deno Deploy's 5 s. */
const EXIT_MS = 4_000;
/** How long the server's shutdown may wait for connections once no request is in flight. */
const SHUTDOWN_MS = 300;

/** What a drain stops, in order. */
interface DrainParts {
  handler: { readonly inFlight: number; idle(): Promise<void> };
  server: { shutdown(): Promise<void> };
  kv: Store;
  /** Stops background work (at once, when the drain begins); each may return a promise. */
  background: (() => unknown)[];
  /** Writes what requests left in memory, once every request is answered. */
  flush: (() => Promise<void>)[];
}

/** A drain that has not begun: the handler asks it whether to refuse new requests. */
interface Drain {
  /** True once a signal arrived. */
  readonly begun: () => boolean;
  /** Aborted when the grace ends: the handler then answers what is still in flight. */
  readonly cut: AbortSignal;
  /** Drains `parts` at the first SIGTERM or SIGINT. */
  onSignals(parts: DrainParts): void;
}

export function createDrain(log: Logger): Drain {
  let begun = false;
  const cut = new AbortController();
  const drain = async (parts: DrainParts, signal: string) => {
    if (begun) return;
    begun = true;
    const { handler, server, kv } = parts;
    log({ level: "info", msg: "draining", signal, in_flight: handler.inFlight });
    const exit = setTimeout(() => {
      log({ level: "warn", msg: "drain timed out; exiting", in_flight: handler.inFlight });
      Deno.exit(1);
    }, EXIT_MS);
    const grace = setTimeout(() => {
      log({ level: "warn", msg: "grace ended; answering requests in flight with 503" });
      cut.abort();
    }, GRACE_MS);
    const stopped = Promise.all(parts.background.map((stop) => stop()));
    // The 503 answered during the drain is itself in flight while it is sent.
    while (handler.inFlight > 0) await handler.idle();
    clearTimeout(grace);
    // Every request is answered; a connection still open (a client that keeps a body
    // half sent after its answer) must not hold the process.
    await _within(server.shutdown(), SHUTDOWN_MS);
    await Promise.all([stopped, ...parts.flush.map((flush) => flush())]);
    clearTimeout(exit);
    kv.close();
    log({ level: "info", msg: "stopped" });
    // The log writes info lines on the next turn of the event loop: let it, then exit.
    await new Promise((resolve) => setTimeout(resolve, 0));
    Deno.exit(0);
  };
  return {
    begun: () => begun,
    cut: cut.signal,
    onSignals(parts) {
      for (const signal of ["SIGTERM", "SIGINT"] as const) {
        try {
          Deno.addSignalListener(signal, () => void drain(parts, signal));
        } catch {
          // Platforms without signals (some serverless hosts) manage the lifecycle themselves.
        }
      }
    },
  };
}

/** `work`, or nothing once `ms` have passed. */
async function _within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise((r) => timer = setTimeout(r, ms))]);
  clearTimeout(timer);
}
