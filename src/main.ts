/**
 * @module
 * The entry point, wiring only, in the order things start: config, the `Deno.cron`
 * schedules (ops/background.ts), the store, the review notifier loop, the handler, the
 * server, the start-up work (indexing an older store, a retention pass), and the drain on
 * SIGTERM/SIGINT (ops/drain.ts).
 */

import { createHandler } from "./app.ts";
import { loadCatalog } from "./catalog/catalog.ts";
import { type Config, ConfigError, ENV_NAMES, loadConfig } from "./config.ts";
import { createJsonLineLogger, type Logger, reason } from "./http/log.ts";
import { type ResilientServer, serveResilient } from "./http/serve.ts";
import {
  type BackgroundDeps,
  declareBackground,
  indexOlderStoreInBackground,
} from "./ops/background.ts";
import { createDrain } from "./ops/drain.ts";
import { startReviewNotifier } from "./review/notifier.ts";
import { openStore } from "./store/open.ts";

async function main(): Promise<void> {
  const config = _loadConfig();
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
  const kv = await openStore(config.kvPath).catch((err) =>
    _fail(`KV_PATH ${config.kvPath ?? "(default)"} cannot be opened: ${reason(err)}`)
  );
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
    submitted: () => notifier.wake(),
  });
  const server = _serve(config, log, handler);
  const indexing = indexOlderStoreInBackground(kv, log);
  ready.resolve({ kv, config, now: Date.now, log });
  // Retention also runs once at start: the hourly schedule may be most of an hour away.
  void background.run("retention");
  drain.onSignals({
    handler,
    server,
    kv,
    background: [() => schedules.abort(), indexing.stop, notifier.stop, background.stop],
  });
  await server.finished;
}

/** Only the documented names: `deno task start` grants env access to exactly these. */
function _loadConfig(): Config {
  try {
    return loadConfig(Object.fromEntries(ENV_NAMES.map((n) => [n, Deno.env.get(n)])));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    _fail(err.message);
  }
}

function _serve(config: Config, log: Logger, handler: Deno.ServeHandler): ResilientServer {
  const onListen = ({ hostname, port }: Deno.NetAddr) =>
    log({
      level: "info",
      msg: "listening",
      address: `${hostname}:${port}`,
      base_url: config.baseUrl,
      max_in_flight: config.maxInFlight,
    });
  try {
    return serveResilient({ port: config.port, hostname: config.hostname, log, onListen }, handler);
  } catch (err) {
    _fail(`cannot listen on HOSTNAME ${config.hostname} PORT ${config.port}: ${reason(err)}`);
  }
}

/** Start-up failures end with one clear line and exit code 2. */
function _fail(message: string): never {
  console.error(`configuration error: ${message}`);
  Deno.exit(2);
}

if (import.meta.main) await main();
