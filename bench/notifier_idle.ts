/**
 * @module
 * What an idle instance's review notifier costs the store: operations an hour with no
 * notice to send, counted by a wrapper around `Deno.Kv` (tests/review/_notices.ts).
 *
 * - **A real run, scaled**: the notifier of the current tree and of a base commit (default
 *   `b5519b1`, the last with the poll of every second; checked out as a git worktree in a
 *   temporary folder), each started as main.ts starts it, on its own empty in-memory store
 *   with the real clock. The operations after its first pass, over `--seconds`, are scaled
 *   to an hour; the first pass (the migration marker, the first reads) is reported apart.
 * - **A virtual hour** of the current tree: the same loop on a fake clock whose naps pass
 *   at once, so the whole hour is counted, not scaled.
 *
 *   deno run -A bench/notifier_idle.ts [--seconds 30] [--base b5519b1]
 *
 * Figures and what they mean: docs/performance.md, "What an idle instance costs the store".
 */

import { parseArgs } from "node:util";
import { FakeClock } from "../tests/_helpers.ts";
import { countingKv, totalOps, virtualSleep } from "../tests/review/_notices.ts";
import { IDLE_MS, startReviewNotifier } from "../src/review/notifier.ts";
import { loadConfig } from "../src/config.ts";
import { HOUR_MS } from "../src/time.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "30" },
    base: { type: "string", default: "b5519b1" },
  },
});
const seconds = Number(args.values.seconds);
const FIRST_PASS_MS = 1_000;

/** Starts the notifier of the tree at `root` for `seconds` on a fresh store; counts operations. */
async function realRun(root: string): Promise<{ atStart: number; after: number }> {
  const notifier = await import(`${root}/src/review/notifier.ts`);
  const config = await import(`${root}/src/config.ts`);
  const store = await Deno.openKv(":memory:");
  const { kv, ops } = countingKv(store);
  const running = notifier.startReviewNotifier({
    kv,
    config: config.loadConfig({ BASE_URL: "https://api.test" }),
    now: Date.now,
    log: () => {},
  });
  await new Promise((r) => setTimeout(r, FIRST_PASS_MS));
  const atStart = totalOps(ops);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const after = totalOps(ops) - atStart;
  await running.stop();
  store.close();
  return { atStart, after };
}

/** One hour of the current tree's loop on a fake clock. */
async function virtualHour(): Promise<{ atStart: number; after: number }> {
  const clock = new FakeClock();
  const store = await Deno.openKv(":memory:");
  const { kv, ops } = countingKv(store);
  const virtual = virtualSleep(clock, clock.now() + HOUR_MS);
  let atStart: number | undefined;
  const running = startReviewNotifier(
    { kv, config: loadConfig({ BASE_URL: "https://api.test" }), now: clock.now, log: () => {} },
    IDLE_MS,
    (ms, signal) => {
      atStart ??= totalOps(ops);
      return virtual.sleep(ms, signal);
    },
  );
  await virtual.parked;
  await running.stop();
  store.close();
  return { atStart: atStart!, after: totalOps(ops) - atStart! };
}

async function git(...argv: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args: argv, stderr: "piped" }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const dir = await Deno.makeTempDir({ prefix: "dcfs-idle-" });
const baseDir = `${dir}/base`;
const line = (side: string, r: { atStart: number; after: number }, hour: number) =>
  console.log(
    `${side.padEnd(24)} first pass ${r.atStart} ops; then ${r.after} ops in ${
      hour === 1 ? "one virtual hour" : `${seconds} s`
    }: ${Math.round(r.after * hour).toLocaleString("en-US")} ops an idle hour`,
  );
try {
  await git("worktree", "add", "--detach", "--quiet", baseDir, args.values.base);
  line(`base ${args.values.base} (real)`, await realRun(baseDir), 3600 / seconds);
  line("current tree (real)", await realRun(here), 3600 / seconds);
  line("current tree (virtual)", await virtualHour(), 1);
  console.log(
    `A real run shorter than the idle interval (${IDLE_MS / 60_000} min) sees none of the ` +
      "current tree's idle passes; the virtual hour counts them.",
  );
} finally {
  await git("worktree", "remove", "--force", baseDir).catch((err) => console.error(err.message));
  await Deno.remove(dir, { recursive: true });
}
