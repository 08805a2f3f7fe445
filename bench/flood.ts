/**
 * @module
 * `deno task bench:flood`: floods from one address, and what another caller sees meanwhile,
 * before and after, side by side: the estimate floods of issue 26 and the header, place and
 * compression floods of issue 40. The base (default `c5a2533`, before the caps and the
 * estimate's limit) is checked out as a git worktree in a temporary folder, and the current
 * tree (this checkout, uncommitted changes included) is served beside it, each by its own
 * `deno task start` on its own KV file with the default rate limits and `TRUST_PROXY=true`,
 * so that `X-Forwarded-For` tells the flooding address from the reader's.
 *
 * For each side, in interleaved rounds (base first in odd rounds, current first in even):
 *
 * - **The reader alone**: another address reads `GET /api/v1/services` one request at a
 *   time (5 ms apart) for half the run; its p50, p90 and p99.
 * - **Under a flood**: `wrk` (1 thread, 16 keep-alive connections) sends estimates from one
 *   address for the whole run while the reader reads as above. Two floods: `big`, the
 *   issue's, 5,500 unknown parameters (about 43 KB a request), and `valid`, a small valid
 *   estimate (which the current tree limits per address). Reported: the reader's p50, p90
 *   and p99 (target p90 under 50 ms), the flood's rate and answers, the server's CPU
 *   time per flood request (utime + stime of all its threads, Linux `/proc`) and its
 *   resident memory after the flood. Issue 40's floods: `catalog`, the catalog read itself
 *   with a browser's `Accept-Encoding` (any saturating flood's floor); `encoding`, the catalog with a
 *   58 KB `Accept-Encoding` of about 10,600 entries; `misspelt`, the coverage of a misspelt
 *   city (`sanstttabcettnbldkomnrilp`) with a browser's `Accept-Encoding`; `distinct`, the
 *   coverage of a different made-up name each request (a spelling search and a new answer
 *   each time).
 * - **A refusal**: the `big` request sent alone, one at a time from a third address, 200
 *   times: the median time to its answer (target under 5 ms) and the server CPU per request.
 *
 * Prints markdown and saves it under `bench/results/flood-<base>-<date>.md`.
 *
 *   deno task bench:flood [--base c5a2533] [--seconds 8] [--rounds 2] [--params 5500]
 *     [--floods big,valid,catalog,encoding,misspelt,distinct] [--no-save]
 */

import { parseArgs } from "node:util";
import { drive, ensureWrk, type RunResult } from "./load.ts";
import { cpuSeconds, percentile } from "./_stats.ts";
import { memoryMiB } from "../tests/_service.ts";
import { cpuModel, median, nameSides, report, type Side, withSides } from "./_sides.ts";

const FLOODER = "203.0.113.9";
const READER = "198.51.100.7";
const PROBE = "203.0.113.77";
const CONNECTIONS = 16;
const READ_PAUSE_MS = 5;
const REFUSALS = 200;
/** The issue's targets. */
const TARGET = { readerP90Ms: 50, refusalMs: 5 };

const FLOODS = ["big", "valid", "catalog", "encoding", "misspelt", "distinct"] as const;
type FloodId = typeof FLOODS[number];

interface Reads {
  p50: number;
  p90: number;
  p99: number;
  n: number;
}

interface Flood {
  reads: Reads;
  run: RunResult;
  statuses: string;
  cpuUs: number;
  rssMiB: number;
}

const args = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string", default: "c5a2533" },
    seconds: { type: "string", default: "8" },
    rounds: { type: "string", default: "2" },
    params: { type: "string", default: "5500" },
    floods: { type: "string", default: FLOODS.join(",") },
    "no-save": { type: "boolean", default: false },
  },
});
const seconds = Number(args.values.seconds);
const rounds = Number(args.values.rounds);
const params = Number(args.values.params);
const floodIds = args.values.floods.split(",") as FloodId[];
if (
  !(seconds > 0) || !Number.isInteger(rounds) || rounds < 1 || !(params >= 0) ||
  !floodIds.every((id) => FLOODS.includes(id))
) {
  console.error(
    "usage: deno task bench:flood [--base <commit>] [--seconds 8] [--rounds 2] " +
      `[--params 5500] [--floods ${FLOODS.join(",")}] [--no-save]`,
  );
  Deno.exit(2);
}

const JOB = "city=Frankfurt&service_type=remote-hands&engineer_count=2";
/** What a browser sends. */
const BROWSER_ENCODING = "gzip, deflate, br, zstd";
/** The issue's header: about 58 KB, about 10,600 entries, none of them a coding we send. */
const LONG_ENCODING = Array.from({ length: 11_000 }, (_, i) => `x${i % 1000}`).join(", ").slice(
  0,
  58_000,
);
const FLOOD_SHAPES: Record<
  FloodId,
  { path: string; headers?: Record<string, string>; randomSuffix?: number }
> = {
  big: {
    path: `/api/v1/estimate?${JOB}&${
      Array.from({ length: params }, (_, i) => `x${i}=1`).join("&")
    }`,
  },
  valid: { path: `/api/v1/estimate?${JOB}` },
  catalog: { path: "/api/v1/services", headers: { "Accept-Encoding": BROWSER_ENCODING } },
  encoding: { path: "/api/v1/services", headers: { "Accept-Encoding": LONG_ENCODING } },
  misspelt: {
    path: "/api/v1/locations?city=sanstttabcettnbldkomnrilp",
    headers: { "Accept-Encoding": BROWSER_ENCODING },
  },
  distinct: {
    path: "/api/v1/locations?city=sa",
    headers: { "Accept-Encoding": BROWSER_ENCODING },
    randomSuffix: 14,
  },
};

/** One read of the catalog from the reader's address; its time in ms. */
async function readOnce(base: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/services`, { headers: { "X-Forwarded-For": READER } });
  await res.bytes();
  if (res.status !== 200) throw new Error(`catalog read: ${res.status}`);
  return performance.now() - started;
}

/** The reader, one request at a time, until `until` settles. */
async function readUntil(base: string, until: Promise<unknown>): Promise<Reads> {
  let done = false;
  until.finally(() => done = true).catch(() => {});
  const ms: number[] = [];
  while (!done) {
    ms.push(await readOnce(base));
    await new Promise((r) => setTimeout(r, READ_PAUSE_MS));
  }
  ms.sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(ms, p) * 100) / 100;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), n: ms.length };
}

/** What each status of the flood's answers was, from a probe request after it (wrk counts non-2xx only). */
async function statusOf(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await fetch(`${base}${path}`, {
    headers: { ...headers, "X-Forwarded-For": FLOODER },
  });
  const body = await res.json().catch(() => ({}));
  return `${res.status}${body.error ? ` ${body.error}` : ""}`;
}

async function flood(base: string, pid: number, id: FloodId): Promise<Flood> {
  const cpu = await cpuSeconds(pid);
  const shape = FLOOD_SHAPES[id];
  const running = drive(
    base,
    {
      method: "GET",
      path: shape.path,
      headers: { ...shape.headers, "X-Forwarded-For": FLOODER },
      randomSuffix: shape.randomSuffix,
    },
    seconds,
    1,
    CONNECTIONS,
  );
  const reads = await readUntil(base, running);
  const run = await running;
  const cpuUs = ((await cpuSeconds(pid)) - cpu) * 1e6 / run.requests;
  const rssMiB = await memoryMiB(pid, "VmRSS");
  const last = await statusOf(base, shape.path, shape.headers);
  const statuses = run.non2xx === run.requests
    ? `all ${last}`
    : run.non2xx === 0
    ? "all 200"
    : `${run.requests - run.non2xx} 200, then ${last}`;
  return { reads, run, statuses, cpuUs, rssMiB };
}

/** The big request alone, one at a time: the median ms to its answer, and server CPU µs. */
async function refusal(base: string, pid: number) {
  const ms: number[] = [];
  let status = "";
  const cpu = await cpuSeconds(pid);
  for (let i = 0; i < REFUSALS; i++) {
    const started = performance.now();
    const res = await fetch(`${base}${FLOOD_SHAPES.big.path}`, {
      headers: { "X-Forwarded-For": PROBE },
    });
    const body = await res.json();
    ms.push(performance.now() - started);
    status = `${res.status} ${body.error}`;
  }
  const cpuUs = ((await cpuSeconds(pid)) - cpu) * 1e6 / REFUSALS;
  ms.sort((a, b) => a - b);
  return { medianMs: percentile(ms, 0.5), cpuUs, status };
}

const wrk = await ensureWrk();
const { baseCommit, current } = await nameSides(args.values.base);

const idle: Record<Side, Reads[]> = { base: [], current: [] };
const floods = Object.fromEntries(
  FLOODS.map((id) => [id, { base: [], current: [] }]),
) as unknown as Record<FloodId, Record<Side, Flood[]>>;
const refusals: Record<Side, Awaited<ReturnType<typeof refusal>>[]> = { base: [], current: [] };
await withSides("dcfs-flood-", baseCommit, { TRUST_PROXY: "true" }, async (servers) => {
  // Warm-up for the JIT, not recorded.
  for (const side of ["base", "current"] as const) {
    await refusal(servers[side].base, servers[side].pid);
    await readUntil(servers[side].base, new Promise((r) => setTimeout(r, 500)));
  }
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ["base", "current"] : ["current", "base"];
    for (const side of order) {
      const { base, pid } = servers[side];
      idle[side].push(
        await readUntil(base, new Promise((r) => setTimeout(r, (seconds * 1000) / 2))),
      );
      refusals[side].push(await refusal(base, pid));
      for (const id of floodIds) {
        const f = await flood(base, pid, id);
        floods[id][side].push(f);
        console.error(
          `round ${round + 1}/${rounds} ${side} ${id}: reader p90 ${f.reads.p90} ms ` +
            `(alone ${idle[side].at(-1)!.p90}), flood ${f.run.rate} req/s ${f.statuses}, ` +
            `${f.cpuUs.toFixed(0)} µs CPU a request, RSS ${f.rssMiB} MiB`,
        );
      }
      // A new window for the next round's valid flood (the current tree's estimate limit).
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
});

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const n = (x: number) => Math.round(x).toLocaleString("en-US");
const yes = (ok: boolean) => (ok ? "yes" : "**no**");
const readsCell = (rs: Reads[]) =>
  `${f2(median(rs.map((r) => r.p50)))} / ${f2(median(rs.map((r) => r.p90)))} / ` +
  `${f2(median(rs.map((r) => r.p99)))}`;

const date = new Date().toISOString();
const bigBytes = FLOOD_SHAPES.big.path.length - FLOOD_SHAPES.big.path.indexOf("?") - 1;
const lines = [
  `Flood of base \`${baseCommit}\` and current \`${current}\`, measured ${date} on ${cpuModel()}, ` +
  `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; wrk ${wrk}, 1 thread, ` +
  `${CONNECTIONS} keep-alive connections from one address for ${seconds} s a flood; the reader ` +
  `(another address) reads \`GET /api/v1/services\` one at a time, ${READ_PAUSE_MS} ms apart; ` +
  `${rounds} interleaved rounds (base first in odd rounds). Default rate limits, ` +
  `TRUST_PROXY=true. Figures are medians over the rounds (answers: each round's, when they ` +
  `differ: a round that starts in the window of the one before finds the limit spent). ` +
  `\`big\`: ${params.toLocaleString()} ` +
  `unknown parameters (${n(bigBytes)} bytes of query); \`valid\`: \`?${JOB}\`; ` +
  `\`catalog\`: \`GET /api/v1/services\`; \`encoding\`: the same with a ${
    n(LONG_ENCODING.length)
  }-byte ` +
  `\`Accept-Encoding\` of ${n(LONG_ENCODING.split(",").length)} entries; \`misspelt\`: ` +
  `\`${FLOOD_SHAPES.misspelt.path}\`; \`distinct\`: \`${FLOOD_SHAPES.distinct.path}\` and ` +
  `${FLOOD_SHAPES.distinct.randomSuffix} random letters (these three with \`Accept-Encoding: ` +
  `${BROWSER_ENCODING}\`). Resident memory (RSS) is the server's after each flood.`,
  "",
  `| flood | side | reader p50 / p90 / p99 ms, alone | under the flood | p90 < ${TARGET.readerP90Ms} ms | flood req/s | flood answers | server CPU µs a flood request | RSS MiB after |`,
  "| --- | --- | ---: | ---: | --- | ---: | --- | ---: | ---: |",
  ...floodIds.flatMap((id) =>
    (["base", "current"] as const).map((side) => {
      const fs = floods[id][side];
      const p90 = median(fs.map((f) => f.reads.p90));
      return `| ${id} | ${side} | ${readsCell(idle[side])} | ${
        readsCell(fs.map((f) => f.reads))
      } | ` +
        `${yes(p90 < TARGET.readerP90Ms)} | ${n(median(fs.map((f) => f.run.rate)))} | ` +
        `${[...new Set(fs.map((f) => f.statuses))].join("; ")} | ` +
        `${f1(median(fs.map((f) => f.cpuUs)))} | ${f1(median(fs.map((f) => f.rssMiB)))} |`;
    })
  ),
  "",
  `The \`big\` request alone, ${REFUSALS} times one after the other from a third address:`,
  "",
  `| side | answer | median ms to the answer | < ${TARGET.refusalMs} ms | server CPU µs a request |`,
  "| --- | --- | ---: | --- | ---: |",
  ...(["base", "current"] as const).map((side) => {
    const rs = refusals[side];
    const ms = median(rs.map((r) => r.medianMs));
    return `| ${side} | ${rs.at(-1)!.status} | ${f2(ms)} | ${yes(ms < TARGET.refusalMs)} | ` +
      `${f1(median(rs.map((r) => r.cpuUs)))} |`;
  }),
];
await report("flood", baseCommit, date, lines.join("\n"), !args.values["no-save"]);
