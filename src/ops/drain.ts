/**
 * @module
 * The graceful drain on SIGTERM or SIGINT. New requests get 503 while those in flight,
 * their bodies included, finish (Deno's `shutdown()` alone would cut off bodies still
 * arriving); background work stops at once, between notices and pages; then the server is
 * shut down, the store closed and the process exits 0. A drain that outlasts its time
 * limit exits 1.
 */

import type { Logger } from "../http/log.ts";

/** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
const DRAIN_MS = 10_000;

/** What a drain stops, in order. */
interface DrainParts {
  handler: { readonly inFlight: number; idle(): Promise<void> };
  server: { shutdown(): Promise<void> };
  kv: Deno.Kv;
  /** Stops background work (at once, when the drain begins); each may return a promise. */
  background: (() => unknown)[];
}

/** A drain that has not begun: the handler asks it whether to refuse new requests. */
interface Drain {
  /** True once a signal arrived. */
  readonly begun: () => boolean;
  /** Drains `parts` at the first SIGTERM or SIGINT. */
  onSignals(parts: DrainParts): void;
}

export function createDrain(log: Logger, timeoutMs = DRAIN_MS): Drain {
  let begun = false;
  const drain = async (parts: DrainParts, signal: string) => {
    if (begun) return;
    begun = true;
    const { handler, server, kv } = parts;
    log({ level: "info", msg: "draining", signal, in_flight: handler.inFlight });
    const timer = setTimeout(() => {
      log({ level: "warn", msg: "drain timed out; exiting", in_flight: handler.inFlight });
      Deno.exit(1);
    }, timeoutMs);
    const stopped = Promise.all(parts.background.map((stop) => stop()));
    // The 503 answered during the drain is itself in flight while it is sent.
    while (handler.inFlight > 0) await handler.idle();
    await server.shutdown();
    await stopped;
    clearTimeout(timer);
    kv.close();
    log({ level: "info", msg: "stopped" });
    // Every request was answered; an idle connection left by a listener that failed
    // would otherwise keep the process alive. The log writes info lines on the next
    // turn of the event loop: let it, then exit.
    await new Promise((resolve) => setTimeout(resolve, 0));
    Deno.exit(0);
  };
  return {
    begun: () => begun,
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
