/**
 * @module
 * A/B throughput against an earlier commit: the base (default `ffc2336`) checked out as
 * a git worktree in a temporary folder, and the current tree (this checkout, uncommitted
 * changes included), each served by its own `deno task start` from its own folder on its
 * own fresh KV file, rate limits off, both running side by side. `wrk` (1 thread, 32
 * connections, as the issue measured) drives one side at a time through the helpers of
 * `bench/load.ts`, in interleaved rounds: base then current in rounds 1, 3, 5…, current
 * then base in rounds 2, 4, 6…, so that drift and order favour neither. Scenarios: the public catalog
 * GET, the protected read (a Bearer token issued by each server to itself), token
 * issuance (a write through group commit) and the issue + revoke cycle (two writes, the
 * revocation checked against the client record and bumping the marker).
 *
 * Prints per scenario the median req/s of each side with its min and max, the ratio of
 * the medians (current / base) and the spread of the per-round ratios, and saves that
 * as markdown under `bench/results/`. On a shared machine req/s moves with what else
 * runs; so each run also reads the server's CPU time (utime + stime of all its threads,
 * Linux `/proc`) and reports CPU µs per request, which other load barely moves.
 *
 *   deno task bench:ab [--base ffc2336] [--seconds 5] [--rounds 6] [--threads 1]
 *                      [--only catalog,protected] [--no-save]
 */

import { parseArgs } from "node:util";
import { RATE_LIMITS_OFF } from "../tests/_fixtures.ts";
import { drive, ensureWrk, type RunResult, type Setup, setupService, type Shape } from "./load.ts";
import { cpuSeconds } from "./_stats.ts";
import { cpuModel, median, nameSides, report, type Side, withSides } from "./_sides.ts";

/** Within this share of the base counts as met (the issue's target: 5 %). */
const TOLERANCE = 0.05;

const SCENARIOS: { id: string; label: string; shape(s: Setup): Shape }[] = [
  {
    id: "catalog",
    label: "public catalog GET /api/v1/services",
    shape: () => ({ method: "GET", path: "/api/v1/services" }),
  },
  {
    id: "protected",
    label: "protected read GET /api/v1/agent/services (Bearer)",
    shape: (s) => ({
      method: "GET",
      path: "/api/v1/agent/services",
      headers: { Authorization: s.bearer },
    }),
  },
  {
    // Writes: one check (the client record) and one set each, so group commit's limit on
    // the checks of a group decides how many share a commit.
    id: "token",
    label: "token issuance POST /oauth2/token (group commit)",
    shape: (s) => _tokenRequest(s),
  },
  {
    id: "cycle",
    label: "issue + revoke cycle (cycles/s)",
    shape: (s) => ({ ..._tokenRequest(s), revokePath: "/oauth2/revoke" }),
  },
];

/** A client-credentials token request of the client `setupService` registered. */
function _tokenRequest(s: Setup): Shape {
  return {
    method: "POST",
    path: "/oauth2/token",
    headers: { Authorization: s.basic, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  };
}

interface Run extends RunResult {
  /** Server CPU time per answered request, in µs; NaN without /proc. */
  cpuUs: number;
}

const args = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string", default: "ffc2336" },
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "6" },
    threads: { type: "string", default: "1" },
    only: { type: "string" },
    "no-save": { type: "boolean", default: false },
  },
});
const seconds = Number(args.values.seconds);
const rounds = Number(args.values.rounds);
const threads = Number(args.values.threads);
const only = args.values.only?.split(",");
const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.id));
if (
  !(seconds > 0) || !Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(threads) ||
  threads < 1 || scenarios.length !== (only?.length ?? SCENARIOS.length)
) {
  console.error(
    "usage: deno task bench:ab [--base <commit>] [--seconds 5] [--rounds 6] [--threads 1] " +
      `[--only id,id] [--no-save]\nscenarios: ${SCENARIOS.map((s) => s.id).join(", ")}`,
  );
  Deno.exit(2);
}

const wrk = await ensureWrk();
const { baseCommit, current } = await nameSides(args.values.base);

const runs: Record<string, Record<Side, Run[]>> = {};
await withSides("dcfs-ab-", baseCommit, RATE_LIMITS_OFF, async (sides) => {
  const servers: Record<Side, string> = { base: sides.base.base, current: sides.current.base };
  const pids: Record<Side, number> = { base: sides.base.pid, current: sides.current.pid };
  const setup: Record<Side, Setup> = {
    base: await setupService(servers.base),
    current: await setupService(servers.current),
  };

  // Warm-up for the JIT, not recorded.
  for (const s of scenarios) {
    for (const side of ["base", "current"] as const) {
      await drive(servers[side], s.shape(setup[side]), 2, threads);
    }
  }
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ["base", "current"] : ["current", "base"];
    for (const s of scenarios) {
      for (const side of order) {
        const cpu = await cpuSeconds(pids[side]);
        const result = await drive(servers[side], s.shape(setup[side]), seconds, threads);
        const cpuUs = ((await cpuSeconds(pids[side])) - cpu) * 1e6 / result.requests;
        const run: Run = { ...result, cpuUs };
        if (run.non2xx || run.errors) {
          throw new Error(`${s.id} (${side}): ${run.non2xx} non-2xx, ${run.errors} errors`);
        }
        (runs[s.id] ??= { base: [], current: [] })[side].push(run);
      }
      const r = runs[s.id]!;
      console.error(
        `round ${round + 1}/${rounds} ${s.id}: base ${r.base.at(-1)!.rate}, ` +
          `current ${r.current.at(-1)!.rate} req/s; CPU µs/request base ` +
          `${r.base.at(-1)!.cpuUs.toFixed(1)}, current ${r.current.at(-1)!.cpuUs.toFixed(1)}`,
      );
    }
  }
});

const n = (x: number) => Math.round(x).toLocaleString("en-US");
const spread = (xs: readonly number[], f: (x: number) => string) =>
  `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
const r2 = (x: number) => x.toFixed(3);
const f1 = (x: number) => x.toFixed(1);

const date = new Date().toISOString();
const lines = [
  `A/B of base \`${baseCommit}\` and current \`${current}\`, measured ${date} on ${cpuModel()}, ` +
  `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; wrk ${wrk}, ` +
  `${threads} thread${threads === 1 ? "" : "s"}, 32 connections, ${rounds} interleaved ` +
  `rounds of ${seconds} s per side (base first in odd rounds, current first in even ones). ` +
  `Req/s as median (min–max); the ratio of medians is current / base, the paired ratio ` +
  `that of each round's two runs. Met: the ratio of medians at least ${1 - TOLERANCE}.`,
  "",
  "| scenario | base req/s | current req/s | current / base | paired ratio | p99 ms base / current | met |",
  "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
  ...scenarios.map((s) => {
    const { base, current } = runs[s.id]!;
    const rate = (rs: Run[]) => rs.map((r) => r.rate);
    const ratio = median(rate(current)) / median(rate(base));
    const paired = current.map((c, i) => c.rate / base[i]!.rate);
    const p99 = (rs: Run[]) => median(rs.map((r) => r.p99)).toFixed(2);
    return `| ${s.label} | ${spread(rate(base), n)} | ${spread(rate(current), n)} | ` +
      `${r2(ratio)} | ${spread(paired, r2)} | ${p99(base)} / ${p99(current)} | ` +
      `${ratio >= 1 - TOLERANCE ? "yes" : "**no**"} |`;
  }),
  "",
  "Server CPU time per request (all the server's threads), µs as median (min–max); the " +
  "ratio is current / base, so below 1 the current tree costs less:",
  "",
  "| scenario | base CPU µs | current CPU µs | current / base | paired ratio |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...scenarios.map((s) => {
    const { base, current } = runs[s.id]!;
    const cpu = (rs: Run[]) => rs.map((r) => r.cpuUs);
    const paired = current.map((c, i) => c.cpuUs / base[i]!.cpuUs);
    return `| ${s.id} | ${spread(cpu(base), f1)} | ${spread(cpu(current), f1)} | ` +
      `${r2(median(cpu(current)) / median(cpu(base)))} | ${spread(paired, r2)} |`;
  }),
  "",
  "Every round, req/s base / current:",
  "",
  `| scenario | ${Array.from({ length: rounds }, (_, i) => `round ${i + 1}`).join(" | ")} |`,
  `| --- |${" ---: |".repeat(rounds)}`,
  ...scenarios.map((s) => {
    const { base, current } = runs[s.id]!;
    return `| ${s.id} | ${
      base.map((b, i) => `${n(b.rate)} / ${n(current[i]!.rate)}`).join(" | ")
    } |`;
  }),
];
await report("ab", baseCommit, date, lines.join("\n"), !args.values["no-save"]);
