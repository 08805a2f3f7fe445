/**
 * @module
 * The background work and the schedules that keep it alive wherever the service runs:
 * review notices, the retention pass and the rate-limit sweep, each declared with
 * `Deno.cron` (main.ts) so that a host that stops idle processes (Deno Deploy) still wakes
 * one to run it, and run the same way by `deno task start` on a server. The outbox stays
 * the one record of what is to be sent (leases, backoff, due order, `review show`); a
 * schedule only decides when a pass looks at it. Why `Deno.cron` and not KV queues, with
 * the measurements: docs/architecture.md, "Background work".
 */

import type { Config } from "../config.ts";
import { type Logger, reason } from "../http/log.ts";
import { sweepRateLimits } from "../http/rate_limit.ts";
import { retentionPass } from "../review/erasure.ts";
import { deliverDue } from "../review/notifier.ts";
import { inPass, type Pass } from "../telemetry/metrics.ts";

export interface BackgroundDeps {
  kv: Deno.Kv;
  config: Config;
  now: () => number;
  log: Logger;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/**
 * Declares one job: `Deno.cron` in main.ts, a fake in tests. Deno Deploy reads the
 * declarations made while the main module loads, so every one is made before the store
 * is opened, and each run waits for the dependencies instead.
 */
export type Scheduler = (name: string, schedule: string, run: () => Promise<void>) => void;

/** The jobs, their `Deno.cron` names and schedules (UTC, five fields). */
export const SCHEDULES: readonly { pass: Pass; name: string; schedule: string }[] = [
  // The safety net of the notifier loop: on a host that stops idle processes, a notice
  // whose first attempt failed is retried within a minute of its backoff.
  { pass: "review_notices", name: "dcfs review notices", schedule: "* * * * *" },
  { pass: "retention", name: "dcfs retention", schedule: "17 * * * *" },
  // Rate-limit windows are one minute long; a finished window is swept within the next.
  { pass: "rate_limit_sweep", name: "dcfs rate-limit sweep", schedule: "* * * * *" },
];

export interface Background {
  /** Runs one pass now, as its schedule would (start-up, tests). */
  run(pass: Pass): Promise<void>;
  /** Stops running passes on their schedule, and waits for those under way. */
  stop(): Promise<void>;
}

/**
 * Declares every job with `schedule`. Runs after {@linkcode Background.stop} do nothing;
 * a failed run is logged and left to the next (every pass is safe to run again, and on
 * several instances at once).
 */
export function declareBackground(
  schedule: Scheduler,
  deps: Promise<BackgroundDeps>,
): Background {
  let stopped = false;
  const running = new Set<Promise<void>>();
  const run = (pass: Pass): Promise<void> => {
    if (stopped) return Promise.resolve();
    const done = (async () => {
      const d = await deps;
      try {
        await inPass(pass, () => _passes[pass](d));
      } catch (err) {
        d.log({ level: "warn", msg: `${pass.replaceAll("_", " ")} failed`, error: reason(err) });
      }
    })();
    running.add(done);
    return done.finally(() => running.delete(done));
  };
  for (const job of SCHEDULES) schedule(job.name, job.schedule, () => run(job.pass));
  return {
    run,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

const _passes: Record<Pass, (deps: BackgroundDeps) => Promise<number>> = {
  review_notices: deliverDue,
  retention: retentionPass,
  rate_limit_sweep: (deps) => sweepRateLimits(deps.kv, deps.now()),
};
