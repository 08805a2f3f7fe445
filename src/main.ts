/**
 * @module
 * The entry point, wiring only, in the order things start: the `Deno.cron` schedules
 * (ops/background.ts), config, the store (ops/platform.ts decides which), the review
 * notifier loop, the handler, the server, the start-up work (a retention pass, on Deno
 * Deploy the check of the attached database), and the drain on SIGINT/SIGTERM
 * (ops/drain.ts).
 *
 * Deno Deploy runs this file as it is, `deno run --allow-all src/main.ts`, with no other
 * flag, on Deno {@linkcode OLDEST_DENO}; it finds the schedules by evaluating this
 * module's top level, and stops an instance with SIGINT, killing it 5 s later.
 */

import type { Kv, Store } from "./store/store.ts";
import { createHandler } from "./app.ts";
import { loadCatalog } from "./catalog/catalog.ts";
import { type Config, ConfigError, ENV_NAMES, loadConfig } from "./config.ts";
import { createJsonLineLogger, type Logger, reason } from "./http/log.ts";
import { type ResilientServer, serveResilient } from "./http/serve.ts";
import { declareBackground } from "./ops/background.ts";
import { createDrain } from "./ops/drain.ts";
import {
  looksAttached,
  OLDEST_DENO,
  onDeploy,
  PLATFORM_ENV_NAMES,
  type PlatformEnv,
  storeLocation,
  StoreLocationError,
} from "./ops/platform.ts";
import { startReviewNotifier } from "./review/notifier.ts";
import { openStore, stampHealth } from "./store/open.ts";

// Deno Deploy finds the schedules by evaluating this module's top level, so they are
// declared here, unconditionally, before anything is awaited or served. A run waits
// until main() has opened the store.
const background = declareBackground((name, schedule, signal, run) =>
  Deno.cron(name, schedule, { signal }, run)
);

async function main(): Promise<void> {
  const config = _loadConfig();
  const catalog = loadCatalog();
  const log = createJsonLineLogger();
  const platform = Object.fromEntries(PLATFORM_ENV_NAMES.map((n) => [n, Deno.env.get(n)]));
  const deploy = onDeploy(platform);
  const kv = await _openStore(config, platform);
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
  const server = _serve(config, log, handler, deploy);
  background.start({ kv, config, now: Date.now, log });
  // Retention also runs once at start: the hourly schedule may be most of an hour away.
  void background.run("retention");
  if (deploy) void _checkAttached(kv, log);
  drain.onSignals({
    handler,
    server,
    kv,
    background: [notifier.stop, background.stop],
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

async function _openStore(config: Config, platform: PlatformEnv): Promise<Store> {
  let path: string | undefined;
  try {
    path = storeLocation(config.kvPath, platform);
  } catch (err) {
    if (!(err instanceof StoreLocationError)) throw err;
    _fail(err.message);
  }
  if (typeof Deno.openKv !== "function") {
    _fail("Deno KV is not available here: on Deno Deploy, attach a Deno KV database to the app");
  }
  return await openStore(path).catch((err) =>
    _fail(`KV_PATH ${path ?? "(the attached database)"} cannot be opened: ${reason(err)}`)
  );
}

/**
 * On Deno Deploy, says loudly when the store is not the attached database: with none
 * attached, Deploy gives no error and every instance keeps its own data (ops/platform.ts).
 */
async function _checkAttached(kv: Kv, log: Logger): Promise<void> {
  try {
    if (await looksAttached(() => stampHealth(kv, Date.now()))) return;
    log({
      level: "error",
      msg: "no Deno KV database is attached to this app: each instance keeps its own " +
        "data, which is lost when it stops. Attach one (Databases → Assign) and redeploy.",
    });
  } catch (err) {
    log({ level: "warn", msg: "could not check the attached database", error: reason(err) });
  }
}

function _serve(
  config: Config,
  log: Logger,
  handler: Deno.ServeHandler,
  deploy: boolean,
): ResilientServer {
  const onListen = ({ hostname, port }: Deno.NetAddr) =>
    log({
      level: "info",
      msg: "listening",
      address: `${hostname}:${port}`,
      base_url: config.baseUrl,
      max_in_flight: config.maxInFlight,
      deno: Deno.version.deno,
      oldest_deno: OLDEST_DENO,
      deploy,
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

await main();
