/**
 * @module
 * Where the service runs, and what that decides before anything starts: the oldest Deno it
 * runs on (Deno Deploy's runtime), whether it runs on Deno Deploy, which store it opens,
 * and, on a Deploy timeline other than production, that review notices are logged, not
 * POSTed.
 *
 * - **On Deno Deploy** (`DENO_DEPLOY` or `DENO_DEPLOYMENT_ID` is set by the platform) the store is the Deno
 *   KV database attached to the app: `Deno.openKv()` with no argument. `KV_PATH` is refused
 *   there: a file or `:memory:` would live in one instance and vanish with it, and a KV
 *   Connect URL needs `DENO_KV_ACCESS_TOKEN`, a name Deploy does not let anyone set.
 * - **Anywhere else** the store is `KV_PATH`, or, unset, one file in the checkout
 *   ({@linkcode DEFAULT_STORE}), the same however the service or the review CLI is started
 *   (`deno task start`, `deno run -A src/main.ts`, any working directory). Deno's own default
 *   depends on `--location` and the config file, so it is never used.
 * - **On a git-branch or preview timeline** ({@linkcode configForTimeline}) the review
 *   webhook is off unless `REVIEW_WEBHOOK_TIMELINES=all`.
 *
 * docs/operations.md, "Deno Deploy", has the rules these follow, with their sources (paths
 * in denoland/docs).
 */

import type { Config } from "../config.ts";
import type { Logger } from "../http/log.ts";

/**
 * The oldest Deno the service runs on: the version Deno Deploy's docs name ("Currently Deno
 * Deploy runs on Deno 2.5.0", denoland/docs deploy/reference/runtime.md, a line unchanged
 * since 2025-09-29; the `listening` line's `deno` field shows the real one). `.ci/run`
 * type-checks and smoke-tests under it; nothing may need a newer one.
 */
export const OLDEST_DENO = "2.5.0";

/** The store file used when `KV_PATH` is unset off Deploy, beside `src/` in the checkout. */
export const DEFAULT_STORE = new URL("../../.kv/kv.sqlite3", import.meta.url);

/**
 * The variables the platform sets that the service reads (beside config.ts's, which the
 * operator sets). Deno Deploy sets each "in all contexts" (denoland/docs
 * deploy/reference/env_vars_and_contexts.md, "Predefined environment variables"):
 * `DENO_DEPLOY=true` and `DENO_DEPLOYMENT_ID`, either of which says the service is on
 * Deploy, and `DENO_TIMELINE`, the timeline it runs in: `production`,
 * `git-branch/<branch-name>` or `preview/<revision-id>`.
 */
export const PLATFORM_ENV_NAMES = ["DENO_DEPLOY", "DENO_DEPLOYMENT_ID", "DENO_TIMELINE"] as const;

export type PlatformEnv = Readonly<Record<string, string | undefined>>;

/** True on Deno Deploy. */
export function onDeploy(env: PlatformEnv): boolean {
  return env.DENO_DEPLOY === "true" || Boolean(env.DENO_DEPLOYMENT_ID);
}

/** Thrown when the store's location cannot be used where the service runs. */
export class StoreLocationError extends Error {
  override name = "StoreLocationError";
}

/**
 * What to pass to `Deno.openKv`: `undefined` on Deploy (the attached database), else
 * `KV_PATH` or the default file, whose folder is created if need be.
 */
export function storeLocation(kvPath: string | undefined, env: PlatformEnv): string | undefined {
  if (onDeploy(env)) {
    if (kvPath !== undefined) {
      throw new StoreLocationError(
        `KV_PATH must not be set on Deno Deploy (it is "${kvPath}"): the store there is the ` +
          "Deno KV database attached to the app (Databases → Assign); remove KV_PATH",
      );
    }
    return undefined;
  }
  if (kvPath !== undefined) return kvPath;
  Deno.mkdirSync(new URL(".", DEFAULT_STORE), { recursive: true });
  return DEFAULT_STORE.pathname;
}

/**
 * Where commit versions of a store created in this instance stay (the first eight of a
 * versionstamp's ten bytes): it counts its commits from one, while Deno Deploy's KV, built
 * on FoundationDB, numbers them by its cluster's version clock, about a million a second
 * since the cluster began (2^40 is under 13 days of it).
 */
const _LOCAL_VERSIONS = 2n ** 40n;

/**
 * Whether the store just opened on Deploy looks like the attached database. Deploy gives
 * an app with no database attached no error: `Deno.openKv()` opens a store that lives in
 * the instance (denoland/deploy_feedback#905). A commit's versionstamp tells them apart
 * (see {@linkcode _LOCAL_VERSIONS}); `write` makes one commit and returns its versionstamp.
 */
export async function looksAttached(write: () => Promise<string>): Promise<boolean> {
  const versionstamp = await write();
  return BigInt(`0x${versionstamp.slice(0, 16)}`) >= _LOCAL_VERSIONS;
}

/**
 * The config as this timeline uses it. Where `DENO_TIMELINE` names a timeline other than
 * `production` (a git branch's or a preview's), review notices are logged, not POSTed, unless
 * `REVIEW_WEBHOOK_TIMELINES` is `all`; one line at start says so. Such a timeline reads the
 * Development context's variables, which every branch and preview share, and stores what its
 * own URL receives in its own database, not production's (denoland/docs
 * deploy/reference/timelines.md, env_vars_and_contexts.md, databases.md), and a git branch's
 * crons run as production's do (cron.md): a webhook set for every context would tell staff
 * of submissions their console never shows. Production, and anywhere without `DENO_TIMELINE`,
 * keep the config as it is.
 */
export function configForTimeline(config: Config, env: PlatformEnv, log: Logger): Config {
  const timeline = env.DENO_TIMELINE;
  if (!timeline || timeline === "production") return config;
  if (!config.reviewWebhookUrl || config.reviewWebhookTimelines === "all") return config;
  log({
    level: "info",
    msg: "review webhook off outside production: notices are logged " +
      "(REVIEW_WEBHOOK_TIMELINES=all sends them)",
    timeline,
  });
  return Object.freeze({ ...config, reviewWebhookUrl: undefined });
}
