/**
 * @module
 * The HTTP load benchmark, side by side with the cost floor.
 *
 * Starts the real service (`deno task start`, rate limits off, a temporary KV file)
 * and `bench/baseline.ts` (a bare `Deno.serve` answering a small JSON object), then
 * drives each scenario with autocannon at 32 connections, pipelining off, in
 * interleaved runs (service, baseline, service, baseline…) so that machine drift
 * cancels out. The baseline gets the same requests as the service. Scenarios bound by
 * something the service cannot avoid (a KV read, a durable KV write, the MCP SDK) also
 * run against that floor (see `bench/baseline.ts`), in the same interleaving. Prints a
 * markdown table and saves it, with the raw figures as JSON, under `bench/results/`.
 *
 *   deno task bench:load [--seconds 5] [--rounds 2] [--only token,intake] [--no-save]
 */

import autocannon from "autocannon";
import { parseArgs } from "node:util";
import { RATE_LIMITS_OFF } from "../tests/_fixtures.ts";
import {
  basic,
  type Client,
  issueToken,
  overHttp,
  registerClient,
  revokeRequest,
} from "../tests/_helpers.ts";
import { freePort, leafPid, memoryMiB } from "../tests/_service.ts";
import { percentile } from "./_stats.ts";
import type { Floor } from "./baseline.ts";

const ROOT = new URL("..", import.meta.url);
const CONNECTIONS = 32;
const FORM = "application/x-www-form-urlencoded";

/** Targets from the performance issue: a ratio to the baseline, and p99 for reads. */
interface Target {
  ratio?: number;
  p99Ms?: number;
}

/** One request shape; `next` gives a different body per request when needed. */
interface RequestShape {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A fresh body per request. */
  next?: { body: () => string };
}

interface Scenario {
  id: string;
  label: string;
  target: Target;
  /** The bare handler that does the one thing this scenario cannot avoid. */
  floor?: Exclude<Floor, "json">;
  /** Builds the request (and anything it consumes) against a running service. */
  prepare(svc: Setup, seconds: number): Promise<RequestShape>;
}

interface Setup {
  base: string;
  client: Client;
  basic: string;
  bearer: string;
  /** A token already revoked, and how often a revocation run had to fall back on it. */
  spent: string;
  reused: number;
}

export interface RunResult {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface ScenarioResult {
  id: string;
  label: string;
  target: Target;
  service: RunResult[];
  baseline: RunResult[];
  floor?: { name: string; runs: RunResult[] };
  /** Means over the rounds, and the ratio of the means. */
  summary: {
    serviceRps: number;
    baselineRps: number;
    ratio: number;
    floorRps?: number;
    /** Service throughput as a share of its floor's. */
    ofFloor?: number;
    p50: number;
    p99: number;
    baselineP99: number;
    meets: boolean;
  };
}

export interface LoadReport {
  date: string;
  machine: Record<string, string | number>;
  settings: { seconds: number; rounds: number; connections: number; pipelining: 1 };
  startup: { runsMs: number[]; medianMs: number; target: number; meets: boolean };
  scenarios: ScenarioResult[];
  revocationsReusingAToken: number;
  peakRssMiB: { service: number; baseline: number; target: number; meets: boolean };
}

const SCENARIOS: Scenario[] = [
  {
    id: "catalog",
    label: "GET /api/v1/services (public)",
    target: { ratio: 0.7, p99Ms: 10 },
    floor: "catalog-body",
    prepare: () => Promise.resolve({ method: "GET", path: "/api/v1/services" }),
  },
  {
    id: "protected",
    label: "GET /api/v1/agent/services (Bearer)",
    target: { ratio: 0.5, p99Ms: 10 },
    floor: "kv-read",
    prepare: (s) =>
      Promise.resolve({
        method: "GET",
        path: "/api/v1/agent/services",
        headers: { Authorization: s.bearer },
      }),
  },
  {
    id: "coverage",
    label: "GET /api/v1/locations?city=zurich",
    target: { p99Ms: 10 },
    prepare: () => Promise.resolve({ method: "GET", path: "/api/v1/locations?city=zurich" }),
  },
  {
    id: "token",
    label: "POST /oauth2/token",
    target: { ratio: 0.2 },
    floor: "kv-write",
    prepare: (s) =>
      Promise.resolve({
        method: "POST",
        path: "/oauth2/token",
        headers: { Authorization: s.basic, "Content-Type": FORM },
        body: "grant_type=client_credentials",
      }),
  },
  {
    id: "revoke",
    label: "POST /oauth2/revoke (a fresh token each)",
    target: {},
    floor: "kv-write",
    async prepare(s, seconds) {
      // More than a run can spend (revocation is slower than issuance); should they run
      // out, the rest revoke a token already revoked, which is counted as `reused`.
      const tokens = await issueTokens(s, Math.ceil(seconds * TOKENS_PER_SECOND));
      return {
        method: "POST",
        path: "/oauth2/revoke",
        headers: { Authorization: s.basic, "Content-Type": FORM },
        next: { body: () => `token=${tokens.pop() ?? (s.reused++, s.spent)}` },
      };
    },
  },
  {
    id: "mcp",
    label: "MCP tools/call list_services (2026-07-28)",
    target: { ratio: 0.25, p99Ms: 10 },
    floor: "mcp-sdk",
    prepare: () =>
      Promise.resolve({
        method: "POST",
        path: "/api/v1/mcp",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2026-07-28",
          "Mcp-Method": "tools/call",
          "Mcp-Name": "list_services",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "list_services",
            arguments: {},
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      }),
  },
  {
    id: "intake",
    label: "POST /api/v1/intake",
    target: { ratio: 0.2 },
    floor: "kv-write",
    prepare: () =>
      Promise.resolve({
        method: "POST",
        path: "/api/v1/intake",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          email: "bench@example.com",
          description: "Replace a failed PSU in rack B12",
          city: "Zurich",
        }),
      }),
  },
];

/** Fresh tokens issued per second of a revocation run. */
const TOKENS_PER_SECOND = 3000;
const BASELINE_ARGS = [
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "bench/baseline.ts",
];
const STARTUP_TARGET_MS = 1000;
const RSS_TARGET_MIB = 150;

// ---------------------------------------------------------------------------

/** A process we started and the address it answers on. */
interface Server extends AsyncDisposable {
  base: string;
  /** The process that serves (under `deno task`, its child). */
  pid: number;
  startedInMs: number;
}

/** Spawns a server, and times spawn → the first answered `GET /healthz` (any status). */
async function spawnServer(args: string[], env: Record<string, string>): Promise<Server> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", PORT: String(port), HOSTNAME: "127.0.0.1", BASE_URL: base, ...env },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  let startedInMs = 0;
  for (;;) {
    try {
      const res = await fetch(`${base}/healthz`);
      await res.body?.cancel();
      startedInMs = performance.now() - started;
      break;
    } catch {
      if (performance.now() - started > 30_000) throw new Error(`${args.join(" ")}: no answer`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  return {
    base,
    pid: await leafPid(child.pid),
    startedInMs,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

async function setup(base: string): Promise<Setup> {
  const app = overHttp(base);
  const client = await registerClient(app);
  const s = {
    base,
    client,
    basic: basic(client.client_id, client.client_secret),
    bearer: "",
    spent: "",
    reused: 0,
  };
  const [bearer, spent] = await issueTokens(s, 2);
  s.bearer = `Bearer ${bearer}`;
  s.spent = spent!;
  const revoked = await revokeRequest(app, client, s.spent);
  if (revoked.status !== 200) throw new Error(`revocation: ${revoked.status}`);
  return s;
}

/** Issues `n` tokens, 32 requests at a time. */
async function issueTokens(s: Setup, n: number): Promise<string[]> {
  const app = overHttp(s.base);
  const tokens: string[] = [];
  const worker = async () => {
    while (tokens.length < n) tokens.push(await issueToken(app, s.client));
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return tokens.slice(0, n);
}

/** One autocannon run; latencies are kept per request, to a hundredth of a millisecond. */
function drive(base: string, shape: RequestShape, seconds: number): Promise<RunResult> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const opts: Record<string, unknown> = {
      url: base + shape.path,
      connections: CONNECTIONS,
      pipelining: 1,
      method: shape.method,
      headers: shape.headers ?? {},
      body: shape.body,
    };
    opts.duration = seconds;
    const next = shape.next;
    if (next) opts.requests = [{ setupRequest: (req: object) => ({ ...req, body: next.body() }) }];
    const started = performance.now();
    const instance = autocannon(opts, (err: unknown, r: AutocannonResult) => {
      if (err) return reject(err);
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      resolve({
        rps: Math.round(r.requests.total / seconds),
        requests: r.requests.total,
        p50: hundredths(percentile(latencies, 0.5)),
        p99: hundredths(percentile(latencies, 0.99)),
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      });
    });
    instance.on(
      "response",
      (_c: unknown, _s: number, _b: number, ms: number) => latencies.push(ms),
    );
  });
}

interface AutocannonResult {
  requests: { total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

const hundredths = (ms: number) => Math.round(ms * 100) / 100;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function summarize(
  s: Scenario,
  service: RunResult[],
  baseline: RunResult[],
  floor: RunResult[],
): ScenarioResult {
  const serviceRps = Math.round(mean(service.map((r) => r.rps)));
  const baselineRps = Math.round(mean(baseline.map((r) => r.rps)));
  const ratio = Math.round((serviceRps / baselineRps) * 1000) / 1000;
  const floorRps = floor.length ? Math.round(mean(floor.map((r) => r.rps))) : undefined;
  const p50 = hundredths(mean(service.map((r) => r.p50)));
  const p99 = Math.max(...service.map((r) => r.p99));
  const clean = service.every((r) => r.non2xx === 0 && r.errors === 0);
  const meets = clean && (s.target.ratio === undefined || ratio >= s.target.ratio) &&
    (s.target.p99Ms === undefined || p99 < s.target.p99Ms);
  return {
    id: s.id,
    label: s.label,
    target: s.target,
    service,
    baseline,
    ...(s.floor ? { floor: { name: s.floor, runs: floor } } : {}),
    summary: {
      serviceRps,
      baselineRps,
      ratio,
      ...(floorRps ? { floorRps, ofFloor: hundredths(serviceRps / floorRps) } : {}),
      p50,
      p99,
      baselineP99: Math.max(...baseline.map((r) => r.p99)),
      meets,
    },
  };
}

function machine(): Record<string, string | number> {
  let cpu = "unknown";
  let memGiB = NaN;
  try {
    cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/^model name\s*:\s*(.+)$/m)?.[1] ?? cpu;
    const kib = Number(Deno.readTextFileSync("/proc/meminfo").match(/^MemTotal:\s+(\d+)/m)?.[1]);
    memGiB = Math.round(kib / 1024 / 1024);
  } catch { /* not Linux */ }
  return {
    cpu,
    cores: navigator.hardwareConcurrency,
    memory_gib: memGiB,
    os: `${Deno.build.os} ${Deno.osRelease()}`,
    deno: Deno.version.deno,
    load_generator: "autocannon 9.0.0 (in the bench process)",
  };
}

export function formatReport(r: LoadReport): string {
  const yes = (ok: boolean) => (ok ? "yes" : "**no**");
  const lines = [
    `Measured ${r.date} on ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_gib} GiB, ` +
    `${r.machine.os}, Deno ${r.machine.deno}; ${r.machine.load_generator}, ` +
    `${r.settings.connections} connections, no pipelining, ${r.settings.rounds} interleaved rounds ` +
    `of ${r.settings.seconds} s per side; revocations that found no fresh token left: ` +
    `${r.revocationsReusingAToken}.`,
    "",
    "| scenario | service req/s | p50 ms | p99 ms | baseline req/s | ratio | target | met " +
    "| floor | floor req/s | service / floor |",
    "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | ---: |",
    ...r.scenarios.map(({ label, target, floor, summary: s }) => {
      const t = [
        target.ratio !== undefined ? `≥ ${target.ratio.toFixed(2)}` : "",
        target.p99Ms !== undefined ? `p99 < ${target.p99Ms} ms` : "",
      ].filter(Boolean).join(", ") || "—";
      return `| ${label} | ${s.serviceRps} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ` +
        `${s.baselineRps} | ${s.ratio.toFixed(2)} | ${t} | ${yes(s.meets)} | ` +
        (floor ? `${floor.name} | ${s.floorRps} | ${s.ofFloor?.toFixed(2)} |` : "— | — | — |");
    }),
    "",
    `Peak RSS of the service: ${r.peakRssMiB.service} MiB (target < ${r.peakRssMiB.target} MiB: ` +
    `${yes(r.peakRssMiB.meets)}); the bare baseline: ${r.peakRssMiB.baseline} MiB.`,
    `Start to first answered request (\`deno task start\`, cached): median ` +
    `${r.startup.medianMs} ms of ${r.startup.runsMs.join(", ")} ms ` +
    `(target < ${r.startup.target} ms: ${yes(r.startup.meets)}).`,
  ];
  return lines.join("\n");
}

export async function runLoad(
  options: { seconds: number; rounds: number; only?: string[] },
): Promise<LoadReport> {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-bench-" });
  const serviceArgs = ["task", "--quiet", "start"];
  const env = (n: number) => ({ KV_PATH: `${dir}/kv-${n}.sqlite3`, ...RATE_LIMITS_OFF });
  try {
    // Start-up time: three cold processes, each on a fresh store.
    const runsMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await using probe = await spawnServer(serviceArgs, env(i));
      runsMs.push(Math.round(probe.startedInMs));
    }
    const medianMs = [...runsMs].sort((a, b) => a - b)[1]!;

    await using service = await spawnServer(serviceArgs, env(9));
    await using baseline = await spawnServer(BASELINE_ARGS, { FLOOR: "json" });
    const floors = new Map<Floor, Server>();
    const s = await setup(service.base);
    const scenarios = SCENARIOS.filter((x) => !options.only || options.only.includes(x.id));
    const results: ScenarioResult[] = [];
    try {
      for (const scenario of scenarios) {
        let floor: Server | undefined;
        if (scenario.floor && !floors.has(scenario.floor)) {
          floors.set(
            scenario.floor,
            await spawnServer(BASELINE_ARGS, { FLOOR: scenario.floor, ...env(10 + floors.size) }),
          );
        }
        if (scenario.floor) floor = floors.get(scenario.floor);
        const runs = {
          service: [] as RunResult[],
          baseline: [] as RunResult[],
          floor: [] as RunResult[],
        };
        for (let round = 0; round < options.rounds; round++) {
          const shape = await scenario.prepare(s, options.seconds);
          // The other servers get the same requests; a revocation's fresh tokens are the
          // service's, so they get a body of the same length instead.
          const copy = sameAmount(shape);
          if (round === 0) {
            for (const target of [service, baseline, floor]) {
              if (target) await warmUp(target.base, target === service ? shape : copy);
            }
          }
          runs.service.push(await drive(service.base, shape, options.seconds));
          runs.baseline.push(await drive(baseline.base, copy, options.seconds));
          if (floor) runs.floor.push(await drive(floor.base, copy, options.seconds));
        }
        const result = summarize(scenario, runs.service, runs.baseline, runs.floor);
        results.push(result);
        const x = result.summary;
        console.error(
          `${scenario.id}: ${x.serviceRps} req/s vs ${x.baselineRps} (ratio ${x.ratio})` +
            (x.floorRps ? `, ${scenario.floor} floor ${x.floorRps} (${x.ofFloor})` : "") +
            `, p50 ${x.p50} ms, p99 ${x.p99} ms` +
            (runs.service.some((r) => r.non2xx || r.errors)
              ? ` — NON-2xx ${runs.service.map((r) => r.non2xx)} errors ${
                runs.service.map((r) => r.errors)
              }`
              : ""),
        );
      }
    } finally {
      for (const f of floors.values()) await f[Symbol.asyncDispose]();
    }
    const rss = await memoryMiB(service.pid, "VmHWM");
    return {
      date: new Date().toISOString(),
      machine: machine(),
      settings: {
        seconds: options.seconds,
        rounds: options.rounds,
        connections: CONNECTIONS,
        pipelining: 1,
      },
      startup: { runsMs, medianMs, target: STARTUP_TARGET_MS, meets: medianMs < STARTUP_TARGET_MS },
      scenarios: results,
      revocationsReusingAToken: s.reused,
      peakRssMiB: {
        service: rss,
        baseline: await memoryMiB(baseline.pid, "VmHWM"),
        target: RSS_TARGET_MIB,
        meets: rss < RSS_TARGET_MIB,
      },
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A second of load before the first measured round, for the JIT. */
async function warmUp(base: string, shape: RequestShape) {
  if (shape.next) return; // it would spend the fresh tokens; issuing them warmed the path
  await drive(base, shape, 1);
}

function sameAmount(shape: RequestShape): RequestShape {
  if (!shape.next) return shape;
  const body = `token=dcfs_at_${"x".repeat(43)}`; // the length of a real one
  return { ...shape, next: { body: () => body } };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "5" },
      rounds: { type: "string", default: "2" },
      only: { type: "string" },
      "no-save": { type: "boolean", default: false },
    },
  });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  if (!(seconds > 0) || !Number.isInteger(rounds) || rounds < 1) {
    console.error(
      "usage: deno task bench:load [--seconds 5] [--rounds 2] [--only id,id] [--no-save]",
    );
    Deno.exit(2);
  }
  const only = values.only?.split(",");
  const report = await runLoad({ seconds, rounds, only });
  const md = formatReport(report);
  console.log(md);
  if (!values["no-save"] && !only) {
    const dir = new URL("results/", import.meta.url);
    await Deno.mkdir(dir, { recursive: true });
    const stamp = report.date.slice(0, 16).replace(":", "-");
    for (const name of [stamp, "latest"]) {
      await Deno.writeTextFile(
        new URL(`${name}.json`, dir),
        JSON.stringify(report, null, 2) + "\n",
      );
      await Deno.writeTextFile(new URL(`${name}.md`, dir), md + "\n");
    }
    console.error(`saved bench/results/${stamp}.{json,md} and latest.{json,md}`);
  }
}
