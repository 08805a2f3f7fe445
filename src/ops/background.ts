/**
 * @module
 * The background work and the schedules that keep it alive wherever the service runs:
 * review notices and the retention pass, each declared with `Deno.cron` at the top level
 * of main.ts so that a host that stops idle processes (Deno Deploy) still wakes one to run
 * it, and run the same way by `deno task start` on a server. The outbox stays the one
 * record of what is to be sent (leases, backoff, due order, `review show`); a schedule
 * only decides when a pass looks at it. Why `Deno.cron` and not KV queues, with
 * the measurements: docs/architecture.md, "Background work".
 *
 * On Deno Deploy the jobs run on production and on every git-branch timeline, not on
 * previews (denoland/docs deploy/reference/cron.md, "Timelines"), each on its timeline's own
 * database. They are declared whatever the timeline, since Deploy picks up no declaration
 * made in a conditional; outside production a notices run logs the notices it would
 * otherwise POST, unless `REVIEW_WEBHOOK_TIMELINES=all` (ops/platform.ts).
 */

import type { Kv } from "../store/store.ts";
import type { Config } from "../config.ts";
import { type Logger, reason } from "../http/log.ts";
import { pendingRetentionPass, retentionPass } from "../review/retention.ts";
import { abortableSleep, sendNotices } from "../review/notifier.ts";
import { inPass, type Pass } from "../telemetry/metrics.ts";

export interface BackgroundDeps {
  kv: Kv;
  config: Config;
  now: () => number;
  log: Logger;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/**
 * Declares one job: `Deno.cron` in main.ts, a fake in tests. Deno Deploy reads the
 * declarations made while the main module's top level runs ("before `Deno.serve()`
 * starts", cron.md), so every one is made before the store is opened, and each run waits
 * for the dependencies instead. `signal` ends the schedule (the drain).
 */
type Scheduler = (
  name: string,
  schedule: string,
  signal: AbortSignal,
  run: () => Promise<void>,
) => void;

/** The jobs, their `Deno.cron` names and schedules (UTC, five fields). */
export const SCHEDULES: readonly { pass: Pass; name: string; schedule: string }[] = [
  // The safety net of the notifier loops: what a stopped instance left (a retry, a lease
  // run out, a notice never tried) is sent within 5 minutes of its due time. On Deno Deploy
  // each job runs on production and on every git-branch timeline, each run billed as a
  // request (denoland/docs deploy/reference/cron.md): 288 a day per timeline
  // (docs/operations.md, "What the crons cost").
  { pass: "review_notices", name: "dcfs review notices", schedule: "*/5 * * * *" },
  { pass: "retention", name: "dcfs retention", schedule: "17 * * * *" },
];

interface Background {
  /** Hands the runs their dependencies, once the store is open; runs wait until then. */
  start(deps: BackgroundDeps): void;
  /**
   * Runs one pass now, as its schedule would (start-up, tests). While a run of the same
   * pass is under way, this joins it: passes never overlap themselves in one process.
   */
  run(pass: Pass): Promise<void>;
  /**
   * Stops: no run starts any more, and those under way stop between pages (a notice
   * being sent is finished). Resolves once they have.
   */
  stop(): Promise<void>;
}

/**
 * Declares every job with `schedule`, at once. A failed run is logged and left to the next
 * (every pass is safe to run again, and on several instances at once).
 */
export function declareBackground(schedule: Scheduler): Background {
  const started = Promise.withResolvers<BackgroundDeps>();
  const deps = started.promise;
  const stopping = new AbortController();
  const running = new Map<Pass, Promise<void>>();
  const run = (pass: Pass): Promise<void> => {
    if (stopping.signal.aborted) return Promise.resolve();
    const under = running.get(pass);
    if (under) return under;
    const done = (async () => {
      const d = await deps;
      if (stopping.signal.aborted) return;
      try {
        await inPass(pass, () => _passes[pass](d, stopping.signal));
      } catch (err) {
        if (stopping.signal.aborted) return; // stopped between pages, as asked
        d.log({ level: "warn", msg: `${pass.replaceAll("_", " ")} failed`, error: reason(err) });
      }
    })().finally(() => running.delete(pass));
    running.set(pass, done);
    return done;
  };
  for (const job of SCHEDULES) {
    schedule(job.name, job.schedule, stopping.signal, () => run(job.pass));
  }
  return {
    start: (d) => started.resolve(d),
    run,
    async stop() {
      stopping.abort();
      await Promise.all(running.values());
    },
  };
}

/**
 * The share of the time a retention pass may keep the store busy. SQLite takes
 * one writer at a time, so a pass that commits page after page, yielding only a turn of
 * the event loop between them, leaves requests that write waiting behind it; at a tenth
 * they barely notice it (docs/performance.md, "Cost as the store grows").
 */
const PASS_BUSY_SHARE = 0.1;

/**
 * Between pages: a rest of nine times the page's own time (so a pass takes at most
 * {@linkcode PASS_BUSY_SHARE} of the store's time), or a stop.
 */
export function pacedPause(
  signal: AbortSignal,
  share = PASS_BUSY_SHARE,
): () => Promise<void> {
  let resumed = performance.now();
  return async () => {
    if (signal.aborted) throw new Error("stopped");
    const worked = performance.now() - resumed;
    // The rest ends early on a stop, so a drain never waits out a long one.
    await abortableSleep((worked * (1 - share)) / share, signal);
    if (signal.aborted) throw new Error("stopped");
    resumed = performance.now();
  };
}

const _passes: Record<Pass, (deps: BackgroundDeps, signal: AbortSignal) => Promise<number>> = {
  review_notices: (deps, signal) => sendNotices(deps, signal),
  retention: async (deps, signal) =>
    await retentionPass(deps, pacedPause(signal)) +
    await pendingRetentionPass(deps, pacedPause(signal)),
};
