/**
 * @module
 * `deno task bench:compression`: what compressing answers costs, before and after, side by
 * side (issue 40). The base (default `759dd07`, before dynamic answers were priced) is checked
 * out as a git worktree and served beside the current tree, each by its own `deno task start`
 * on its own KV file with `RATE_LIMIT_ESTIMATE=0` (the estimate's per-address limit would
 * otherwise answer 429 after 60).
 *
 * For each side, one after the other:
 *
 * - **Resident memory at idle**: 20 catalog reads, 2 s of quiet, then `VmRSS` (Linux `/proc`).
 * - **After N distinct answers**: N estimates one after the other, each with its own
 *   `requested_date` (so each answer is a different 2.3–2.5 KB body), with a browser's
 *   `Accept-Encoding`; `VmRSS` after them, and again after 2 s of quiet.
 * - **CPU a request** of cheap reads, by `Accept-Encoding` (identity, gzip, br): distinct
 *   estimates, and the coverage of Frankfurt (the same 1 KB answer every time), 1,000
 *   requests each, one after the other; the server's CPU time (utime + stime of all its
 *   threads) divided by the requests, and the bytes of the last answer.
 *
 * Prints markdown and saves it under `bench/results/compression-<base>-<date>.md`.
 *
 *   deno task bench:compression [--base 759dd07] [--answers 6000] [--requests 1000] [--no-save]
 */

import { parseArgs } from "node:util";
import { cpuSeconds } from "./_stats.ts";
import { cpuModel, nameSides, report, type Side, withSides } from "./_sides.ts";
import { memoryMiB } from "../tests/_service.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string", default: "759dd07" },
    answers: { type: "string", default: "6000" },
    requests: { type: "string", default: "1000" },
    "no-save": { type: "boolean", default: false },
  },
});
const answers = Number(args.values.answers);
const requests = Number(args.values.requests);
if (!Number.isInteger(answers) || answers < 1 || !Number.isInteger(requests) || requests < 1) {
  console.error(
    "usage: deno task bench:compression [--base <commit>] [--answers 6000] [--requests 1000] " +
      "[--no-save]",
  );
  Deno.exit(2);
}

const BROWSER_ENCODING = "gzip, deflate, br, zstd";
const ENCODINGS = { identity: "identity", gzip: "gzip", br: "br" } as const;
type Encoding = keyof typeof ENCODINGS;
const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(2027, 0, 4);

/** An estimate whose answer differs from every other `i`'s (its date). */
function estimatePath(i: number): string {
  const date = new Date(FIRST_DAY + i * DAY_MS).toISOString().slice(0, 10);
  return "/api/v1/estimate?city=Zurich&service_type=remote-hands&engineer_count=2" +
    `&requested_date=${date}`;
}

/** One request, its answer read to the end. */
async function get(base: string, path: string, encoding: string): Promise<void> {
  const res = await fetch(base + path, { headers: { "Accept-Encoding": encoding } });
  await res.bytes();
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
}

interface Cost {
  cpuUs: number;
  bytes: number;
  coding: string;
}

/** Server CPU µs a request over `requests` requests of `path(i)`. */
async function cost(
  server: { base: string; pid: number },
  path: (i: number) => string,
  encoding: string,
): Promise<Cost> {
  let bytes = 0;
  let coding = "";
  const cpu = await cpuSeconds(server.pid);
  for (let i = 0; i < requests; i++) {
    const res = await fetch(server.base + path(i), { headers: { "Accept-Encoding": encoding } });
    await res.bytes();
    coding = res.headers.get("content-encoding") ?? "identity";
    bytes = Number(res.headers.get("content-length") ?? NaN);
  }
  const cpuUs = ((await cpuSeconds(server.pid)) - cpu) * 1e6 / requests;
  return { cpuUs, bytes, coding };
}

interface SideResult {
  idle: number;
  afterAnswers: number;
  afterQuiet: number;
  estimate: Record<Encoding, Cost>;
  frankfurt: Record<Encoding, Cost>;
}

const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));
const { baseCommit, current } = await nameSides(args.values.base);
const results = {} as Record<Side, SideResult>;
await withSides("dcfs-compression-", baseCommit, { RATE_LIMIT_ESTIMATE: "0" }, async (servers) => {
  for (const side of ["base", "current"] as const) {
    const server = servers[side];
    for (let i = 0; i < 20; i++) await get(server.base, "/api/v1/services", "identity");
    await quiet(2000);
    const idle = await memoryMiB(server.pid, "VmRSS");
    for (let i = 0; i < answers; i++) await get(server.base, estimatePath(i), BROWSER_ENCODING);
    const afterAnswers = await memoryMiB(server.pid, "VmRSS");
    await quiet(2000);
    const afterQuiet = await memoryMiB(server.pid, "VmRSS");
    console.error(`${side}: RSS ${idle} → ${afterAnswers} MiB after ${answers} answers`);
    const estimate = {} as Record<Encoding, Cost>;
    const frankfurt = {} as Record<Encoding, Cost>;
    for (const [name, encoding] of Object.entries(ENCODINGS) as [Encoding, string][]) {
      // Dates after those of the memory run: new answers again.
      estimate[name] = await cost(server, (i) => estimatePath(answers + i), encoding);
      frankfurt[name] = await cost(server, () => "/api/v1/locations?city=Frankfurt", encoding);
      console.error(
        `${side} ${name}: estimate ${estimate[name].cpuUs.toFixed(0)} µs, ` +
          `Frankfurt ${frankfurt[name].cpuUs.toFixed(0)} µs`,
      );
    }
    results[side] = { idle, afterAnswers, afterQuiet, estimate, frankfurt };
  }
});

const f0 = (x: number) => x.toFixed(0);
const cell = (c: Cost) => `${f0(c.cpuUs)} µs, ${c.coding} ${c.bytes} B`;
const date = new Date().toISOString();
const lines = [
  `Compression of base \`${baseCommit}\` and current \`${current}\`, measured ${date} on ` +
  `${cpuModel()}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; each ` +
  `side by \`deno task start\` with \`RATE_LIMIT_ESTIMATE=0\`, requests one after the other ` +
  `from this process. Distinct answers: ${answers.toLocaleString("en-US")} estimates of ` +
  `Zurich, each with its own \`requested_date\` (2.3–2.5 KB), \`Accept-Encoding: ` +
  `${BROWSER_ENCODING}\`. CPU: the server's, over ${requests.toLocaleString("en-US")} ` +
  `requests of each kind.`,
  "",
  "| side | RSS MiB idle | after the distinct answers | 2 s later |",
  "| --- | ---: | ---: | ---: |",
  ...(["base", "current"] as const).map((side) => {
    const r = results[side];
    return `| ${side} | ${r.idle} | ${r.afterAnswers} | ${r.afterQuiet} |`;
  }),
  "",
  "| side | read | identity | gzip | br |",
  "| --- | --- | ---: | ---: | ---: |",
  ...(["base", "current"] as const).flatMap((side) => {
    const r = results[side];
    return [
      `| ${side} | distinct estimates | ${cell(r.estimate.identity)} | ${
        cell(r.estimate.gzip)
      } | ` +
      `${cell(r.estimate.br)} |`,
      `| ${side} | coverage of Frankfurt | ${cell(r.frankfurt.identity)} | ` +
      `${cell(r.frankfurt.gzip)} | ${cell(r.frankfurt.br)} |`,
    ];
  }),
];
await report("compression", baseCommit, date, lines.join("\n"), !args.values["no-save"]);
