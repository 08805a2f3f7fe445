/**
 * @module
 * Wiring only: config → KV → catalog → handler → `serveResilient`, the background
 * work (the review notifier loop, and the `Deno.cron` schedules of ops/background.ts),
 * and a graceful drain on SIGTERM/SIGINT.
 */

import { createHandler } from "./app.ts";
import { createJsonLineLogger, reason } from "./http/log.ts";
import { loadCatalog } from "./catalog/catalog.ts";
import { ConfigError, ENV_NAMES, loadConfig } from "./config.ts";
import { indexOlderSubmissions } from "./review/summary.ts";
import { openStore } from "./store/open.ts";
import { type BackgroundDeps, declareBackground } from "./ops/background.ts";
import { startReviewNotifier } from "./review/notifier.ts";
import { type ResilientServer, serveResilient } from "./http/serve.ts";

/** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
const DRAIN_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    // Only the documented names: `deno task start` grants env access to exactly these.
    config = loadConfig(Object.fromEntries(ENV_NAMES.map((n) => [n, Deno.env.get(n)])));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    _fail(err.message);
  }
  const catalog = loadCatalog();
  const log = createJsonLineLogger();
  // The schedules are declared before anything is awaited: Deno Deploy finds the
  // `Deno.cron` calls made while the main module loads. Each run waits for the store.
  const ready = Promise.withResolvers<BackgroundDeps>();
  const schedules = new AbortController();
  const background = declareBackground(
    (name, schedule, run) => Deno.cron(name, schedule, { signal: schedules.signal }, run),
    ready.promise,
  );
  let kv: Deno.Kv;
  try {
    kv = await openStore(config.kvPath);
  } catch (err) {
    _fail(`KV_PATH ${config.kvPath ?? "(default)"} cannot be opened: ${reason(err)}`);
  }

  // Drain: once a signal arrives, new requests get 503 while those in flight (their
  // bodies included) finish; only then is the server shut down. Deno's shutdown()
  // alone would cut off request bodies that are still arriving.
  let draining = false;
  // While the process is awake, the notifier loop sends a notice as soon as its
  // submission is stored (`submitted`), and retries on its backoff.
  const notifier = startReviewNotifier({ kv, config, now: Date.now, log });
  const handler = createHandler({
    kv,
    config,
    catalog,
    log,
    draining: () => draining,
    submitted: () => notifier.wake(),
  });

  let server: ResilientServer;
  try {
    server = serveResilient({
      port: config.port,
      hostname: config.hostname,
      log,
      onListen: ({ hostname, port }) =>
        log({
          level: "info",
          msg: "listening",
          address: `${hostname}:${port}`,
          base_url: config.baseUrl,
          max_in_flight: config.maxInFlight,
        }),
    }, handler);
  } catch (err) {
    _fail(`cannot listen on HOSTNAME ${config.hostname} PORT ${config.port}: ${reason(err)}`);
  }
  // Submissions stored by an earlier version get their index keys once, in the background,
  // a page at a time (store/submission_index.ts); later runs find the marker and stop.
  // A drain stops it between pages; the next start goes on where it stopped.
  let stopIndexing = false;
  const pause = () =>
    stopIndexing
      ? Promise.reject(new Error("stopped"))
      : new Promise<void>((r) => setTimeout(r, 0));
  const indexing = indexOlderSubmissions(kv, pause).then(
    (indexed) => indexed && log({ level: "info", msg: "submissions indexed", indexed }),
    (err) =>
      stopIndexing ||
      log({ level: "warn", msg: "submission indexing failed", error: reason(err) }),
  );
  ready.resolve({ kv, config, now: Date.now, log });
  // Retention also runs once at start: the hourly schedule may be most of an hour away.
  void background.run("retention");

  const drain = async (signal: string) => {
    if (draining) return;
    draining = true;
    log({ level: "info", msg: "draining", signal, in_flight: handler.inFlight });
    const timer = setTimeout(() => {
      log({ level: "warn", msg: "drain timed out; exiting", in_flight: handler.inFlight });
      Deno.exit(1);
    }, DRAIN_MS);
    // Background work stops at once, between notices and pages, while requests finish.
    schedules.abort();
    stopIndexing = true;
    const stopped = Promise.all([indexing, notifier.stop(), background.stop()]);
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
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => void drain(signal));
    } catch {
      // Platforms without signals (some serverless hosts) manage the lifecycle themselves.
    }
  }
  await server.finished;
}

/** Start-up failures end with one clear line and exit code 2. */
function _fail(message: string): never {
  console.error(`configuration error: ${message}`);
  Deno.exit(2);
}

if (import.meta.main) await main();
