/**
 * @module
 * What main.ts does before it serves, each step failing with one clear line
 * ({@linkcode StartupError}, printed as `configuration error: …`, exit code 2): the config
 * from the environment, the store where the service runs (ops/platform.ts decides which),
 * the listening server, and on Deno Deploy the check that the store is the attached
 * database.
 */

import { type Config, ConfigError, ENV_NAMES, loadConfig } from "../config.ts";
import type { Logger } from "../http/log.ts";
import { reason } from "../http/log.ts";
import { type ResilientServer, serveResilient } from "../http/serve.ts";
import { openStore, stampHealth } from "../store/open.ts";
import type { Kv, Store } from "../store/store.ts";
import {
  looksAttached,
  OLDEST_DENO,
  type PlatformEnv,
  storeLocation,
  StoreLocationError,
} from "./platform.ts";

/** A start-up step that cannot go on; `message` is the one line printed. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** The config, from only the documented names: `deno task start` grants exactly these. */
export function readConfig(): Config {
  try {
    return loadConfig(Object.fromEntries(ENV_NAMES.map((n) => [n, Deno.env.get(n)])));
  } catch (err) {
    throw err instanceof ConfigError ? new StartupError(err.message) : err;
  }
}

/** The store where the service runs: `KV_PATH`, the default file, or Deploy's database. */
export async function openServiceStore(config: Config, platform: PlatformEnv): Promise<Store> {
  let path: string | undefined;
  try {
    path = storeLocation(config.kvPath, platform);
  } catch (err) {
    throw err instanceof StoreLocationError ? new StartupError(err.message) : err;
  }
  if (typeof Deno.openKv !== "function") {
    throw new StartupError(
      "Deno KV is not available here: on Deno Deploy, attach a Deno KV database to the app",
    );
  }
  return await openStore(path).catch((err) => {
    const where = path ?? "(the attached database)";
    throw new StartupError(`KV_PATH ${where} cannot be opened: ${reason(err)}`);
  });
}

/** Serves `handler` on `HOSTNAME`:`PORT`, logging one line once it listens. */
export function listen(
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
    throw new StartupError(
      `cannot listen on HOSTNAME ${config.hostname} PORT ${config.port}: ${reason(err)}`,
    );
  }
}

/**
 * On Deno Deploy, says loudly when the store is not the attached database: with none
 * attached, Deploy gives no error and every instance keeps its own data (ops/platform.ts).
 */
export async function checkAttached(kv: Kv, log: Logger): Promise<void> {
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
