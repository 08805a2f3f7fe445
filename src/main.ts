/**
 * @module
 * The entry point, wiring only, in the order things start: the `Deno.cron` schedules
 * (ops/background.ts), config (as the Deploy timeline uses it: ops/platform.ts), the store
 * (ops/startup.ts and ops/platform.ts decide which), the review notifier loop, the handler,
 * the server, the start-up work (the static documents' compression, a retention pass, on
 * Deno Deploy the check of the attached database), and the drain on SIGINT/SIGTERM (ops/drain.ts).
 *
 * Deno Deploy runs this file with `--allow-all` and no flag of ours (it takes none), on the
 * Deno its docs name, `OLDEST_DENO` (ops/platform.ts; denoland/docs
 * deploy/reference/runtime.md); it finds the schedules by evaluating this module's top
 * level (cron.md), and stops an instance with SIGINT, killing it 5 s later (runtime.md).
 */

import { createHandler } from "./app.ts";
import { loadCatalog } from "./catalog/catalog.ts";
import { createJsonLineLogger } from "./http/log.ts";
import { declareBackground } from "./ops/background.ts";
import { createDrain } from "./ops/drain.ts";
import { configForTimeline, onDeploy, PLATFORM_ENV_NAMES } from "./ops/platform.ts";
import {
  checkAttached,
  listen,
  openServiceStore,
  readConfig,
  StartupError,
} from "./ops/startup.ts";
import { startReviewNotifier } from "./review/notifier.ts";

// Deno Deploy finds the schedules by evaluating this module's top level, so they are
// declared here, unconditionally, before anything is awaited or served. A run waits
// until main() has opened the store.
const background = declareBackground((name, schedule, signal, run) =>
  Deno.cron(name, schedule, { signal }, run)
);

async function main(): Promise<void> {
  const log = createJsonLineLogger();
  const platform = Object.fromEntries(PLATFORM_ENV_NAMES.map((n) => [n, Deno.env.get(n)]));
  // Outside Deploy's production timeline, notices are logged, not POSTed (ops/platform.ts).
  const config = configForTimeline(readConfig(), platform, log);
  const catalog = loadCatalog();
  const deploy = onDeploy(platform);
  const kv = await openServiceStore(config, platform);
  // While the process is awake, the notifier loop sends a notice as soon as its
  // submission is stored (`submitted`), and retries on its backoff.
  const notifier = startReviewNotifier({ kv, config, now: Date.now, log });
  const drain = createDrain(log);
  const handler = createHandler({
    kv,
    config,
    catalog,
    log,
    draining: drain.begun,
    cut: drain.cut,
    submitted: () => notifier.wake(),
  });
  const server = listen(config, log, handler, deploy);
  // Off the request path: every document's encodings, one a turn, before requests need them.
  void handler.prepareDocuments();
  background.start({ kv, config, now: Date.now, log });
  // Retention also runs once at start: the hourly schedule may be most of an hour away.
  void background.run("retention");
  if (deploy) void checkAttached(kv, log);
  drain.onSignals({
    handler,
    server,
    kv,
    background: [notifier.stop, background.stop],
    flush: [() => handler.demand.flush()],
  });
  await server.finished;
}

// Start-up failures end with one clear line and exit code 2.
await main().catch((err) => {
  if (!(err instanceof StartupError)) throw err;
  console.error(`configuration error: ${err.message}`);
  Deno.exit(2);
});
