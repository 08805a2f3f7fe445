/**
 * @module
 * Wiring only: config → KV → catalog → handler → `Deno.serve`, and a graceful
 * drain on SIGTERM/SIGINT.
 */

import { createHandler, jsonLineLogger } from "./app.ts";
import { loadCatalog } from "./catalog.ts";
import { ConfigError, ENV_NAMES, loadConfig } from "./config.ts";
import { startReviewNotifier } from "./review_queue.ts";

/** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
const DRAIN_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    // Only the documented names: `deno task start` grants env access to exactly these.
    config = loadConfig(Object.fromEntries(ENV_NAMES.map((n) => [n, Deno.env.get(n)])));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`configuration error: ${err.message}`);
    Deno.exit(2);
  }
  const catalog = loadCatalog();
  const kv = await Deno.openKv(config.kvPath);
  const handler = createHandler({ kv, config, catalog });
  // Ends by itself when the store is closed at the end of the drain.
  const notifier = startReviewNotifier({ kv, config, now: Date.now, log: jsonLineLogger });

  // Drain: once a signal arrives, new requests get 503 while those in flight (their
  // bodies included) finish; only then is the server shut down. Deno's shutdown()
  // alone would cut off request bodies that are still arriving.
  let inFlight = 0;
  let draining = false;
  let onIdle = () => {};
  const serve: Deno.ServeHandler = async (req, info) => {
    if (draining) {
      return Response.json({ ok: false, error: "unavailable", message: "shutting down" }, {
        status: 503,
        headers: { "Connection": "close", "Retry-After": "1" },
      });
    }
    inFlight++;
    try {
      return await handler(req, info);
    } finally {
      if (--inFlight === 0) onIdle();
    }
  };

  const server = Deno.serve({
    port: config.port,
    hostname: config.hostname,
    onListen: ({ hostname, port }) =>
      jsonLineLogger({
        level: "info",
        msg: "listening",
        address: `${hostname}:${port}`,
        base_url: config.baseUrl,
      }),
  }, serve);

  const drain = async (signal: string) => {
    if (draining) return;
    draining = true;
    jsonLineLogger({ level: "info", msg: "draining", signal, in_flight: inFlight });
    const timer = setTimeout(() => {
      jsonLineLogger({ level: "warn", msg: "drain timed out; exiting", in_flight: inFlight });
      Deno.exit(1);
    }, DRAIN_MS);
    if (inFlight > 0) await new Promise<void>((resolve) => onIdle = resolve);
    await server.shutdown();
    clearTimeout(timer);
    kv.close();
    jsonLineLogger({ level: "info", msg: "stopped" });
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => void drain(signal));
    } catch {
      // Platforms without signals (some serverless hosts) manage the lifecycle themselves.
    }
  }
  await server.finished;
  await notifier;
}

if (import.meta.main) await main();
