/**
 * @module
 * The HTTP load benchmark: this service, its peer and bare handlers, side by side.
 *
 * - **The service**: `deno task start` with rate limits off and a temporary KV file.
 * - **The peer**: node-oidc-provider (pinned in `bench/peer/package-lock.json`), installed
 *   with `npm ci` into a temporary folder and run on Node with its in-memory adapter and
 *   one client-credentials client (`bench/peer/server.mjs`): the OAuth server most users
 *   would pick instead. Each scenario is matched with what the peer does instead: its
 *   discovery document for the catalog, introspection for a protected read, its token
 *   endpoint, its revocation endpoint.
 * - **A bare handler** per scenario (`bench/baseline.ts`): what this scenario cannot skip
 *   (the same 3.5 KB body and headers, one `kv.get`, one durable `kv.set`, the MCP SDK).
 *
 * Every side is driven by `wrk` (2 threads, 32 connections, no pipelining) with the same
 * script, `bench/wrk/drive.lua`, in interleaved rounds (service, peer, bare, service…)
 * so that machine drift cancels out. Memory beside the peer's: each server's resident memory
 * idle (after 20 cheap reads and 2 s of quiet, before any load) and at its peak (VmHWM): over
 * the scenarios the peer runs too, which is what the two are compared on, and over all. When `wrk` is missing and the bench runs as root
 * on Debian, it is installed with apt-get; otherwise the bench says how to get it. (A
 * load generator inside the bench process, such as autocannon, shares a core with the
 * servers and flatters every ratio.) Prints a markdown table and saves it, with the raw
 * figures as JSON, under `bench/results/`.
 *
 *   deno task bench:load [--seconds 5] [--rounds 2] [--only token,cycle] [--no-peer] [--no-save]
 */

import { parseArgs } from "node:util";
import { RATE_LIMITS_OFF } from "../tests/_fixtures.ts";
import { basic, type Client, issueToken, overHttp, registerClient } from "../tests/_helpers.ts";
import { freePort, leafPid, memoryMiB } from "../tests/_service.ts";
import type { Floor } from "./baseline.ts";

const ROOT = new URL("..", import.meta.url);
const CONNECTIONS = 32;
const THREADS = 2;
const FORM = "application/x-www-form-urlencoded";
const DRIVE_LUA = new URL("wrk/drive.lua", import.meta.url).pathname;
const PEER_DIR = new URL("peer/", import.meta.url);
/** The peer's one client (bench/peer/server.mjs). */
const PEER_CLIENT = { client_id: "bench", client_secret: "bench-secret" };

/** One request shape as wrk sends it; `revokePath` makes it the issue + revoke cycle. */
export interface Shape {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  revokePath?: string;
  /** Each request's path ends with this many random small letters: every answer differs. */
  randomSuffix?: number;
}

/** Targets from the store-layer issue, all ratios within one run. */
interface Target {
  /** At least this many times the peer's figure. */
  peer?: number;
  /** At least this share of the bare handler's figure. */
  bare?: number;
  /** At least this share of another scenario's figure (the catalog read). */
  of?: { id: string; ratio: number };
  p99Ms?: number;
}

interface Scenario {
  id: string;
  label: string;
  /** What the peer does instead, when it has a counterpart. */
  peerLabel?: string;
  /** `cycles`: one token issued and revoked counts once. */
  unit: "req/s" | "cycles/s";
  target: Target;
  bare: Floor;
  service(s: Setup): Shape;
  peer?(p: PeerSetup): Shape;
}

export interface Setup {
  client: Client;
  basic: string;
  bearer: string;
}

interface PeerSetup {
  basic: string;
  token: string;
}

export interface RunResult {
  /** Requests (or cycles) per second. */
  rate: number;
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

type SideName = "service" | "peer" | "bare";

export interface ScenarioResult {
  id: string;
  label: string;
  peerLabel?: string;
  unit: Scenario["unit"];
  bare: Floor;
  target: Target;
  runs: Partial<Record<SideName, RunResult[]>>;
  summary: {
    service: number;
    peer?: number;
    bare: number;
    /** service / peer */
    ofPeer?: number;
    /** service / bare */
    ofBare: number;
    /** service / the scenario named in `target.of` */
    ofOther?: number;
    p50: number;
    p99: number;
    peerP99?: number;
    bareP99: number;
    meets: boolean;
    /** What was missed, in words; empty when met. */
    missed: string[];
  };
}

export interface LoadReport {
  date: string;
  machine: Record<string, string | number>;
  settings: { seconds: number; rounds: number; connections: number; threads: number };
  startup: { runsMs: number[]; medianMs: number; target: number; meets: boolean };
  scenarios: ScenarioResult[];
  /** Resident memory after {@linkcode IDLE_READS} cheap reads and 2 s of quiet, before the load. */
  idleRssMiB: { service: number; peer?: number; target: number; meets: boolean };
  /**
   * VmHWM: `service` once the scenarios the peer also runs are done (they come first but the
   * coverage check), which is what the peer's is compared with; `all` at the end, the MCP and
   * intake scenarios included.
   */
  peakRssMiB: { service: number; all: number; peer?: number; meets?: boolean };
  peer?: string;
}

/** Issue 42's idle figure: this many catalog reads (the peer: its discovery document), then quiet. */
const IDLE_READS = 20;
/** Issue 42's idle target, MiB (what the service held before the gazetteer). */
const IDLE_TARGET_MIB = 85;

/** VmRSS of `pid` after {@linkcode IDLE_READS} GETs of `path` and 2 s without a request. */
async function idleRss(pid: number, base: string, path: string): Promise<number> {
  for (let i = 0; i < IDLE_READS; i++) await (await fetch(new URL(path, base))).body?.cancel();
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  return await memoryMiB(pid, "VmRSS");
}

const JSON_POST = { "Content-Type": "application/json" };

const SCENARIOS: Scenario[] = [
  {
    id: "catalog",
    label: "public catalog GET",
    peerLabel: "discovery document GET",
    unit: "req/s",
    target: { bare: 0.8, p99Ms: 10 },
    bare: "catalog-body",
    service: () => ({ method: "GET", path: "/api/v1/services" }),
    peer: () => ({ method: "GET", path: "/.well-known/openid-configuration" }),
  },
  {
    id: "protected",
    label: "protected read (Bearer)",
    peerLabel: "introspection",
    unit: "req/s",
    target: { peer: 4, of: { id: "catalog", ratio: 0.8 }, p99Ms: 10 },
    bare: "kv-read",
    service: (s) => ({
      method: "GET",
      path: "/api/v1/agent/services",
      headers: { Authorization: s.bearer },
    }),
    peer: (p) => ({
      method: "POST",
      path: "/token/introspection",
      headers: { Authorization: p.basic, "Content-Type": FORM },
      body: `token=${p.token}`,
    }),
  },
  {
    id: "coverage",
    label: "coverage check GET",
    unit: "req/s",
    target: { p99Ms: 10 },
    bare: "json",
    service: () => ({ method: "GET", path: "/api/v1/locations?city=zurich" }),
  },
  {
    id: "token",
    label: "token issuance",
    peerLabel: "token issuance",
    unit: "req/s",
    target: { peer: 2 },
    bare: "kv-group-write",
    service: (s) => tokenShape(s.basic, "/oauth2/token"),
    peer: (p) => tokenShape(p.basic, "/token"),
  },
  {
    id: "cycle",
    label: "issue + revoke cycle",
    peerLabel: "issue + revoke cycle",
    unit: "cycles/s",
    target: { peer: 2 },
    bare: "kv-group-write",
    service: (s) => ({ ...tokenShape(s.basic, "/oauth2/token"), revokePath: "/oauth2/revoke" }),
    peer: (p) => ({ ...tokenShape(p.basic, "/token"), revokePath: "/token/revocation" }),
  },
  {
    id: "mcp",
    label: "MCP tools/call list_services",
    unit: "req/s",
    target: { p99Ms: 10 },
    bare: "mcp-sdk",
    service: () => ({
      method: "POST",
      path: "/api/v1/mcp",
      headers: {
        ...JSON_POST,
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
    label: "lead intake POST",
    unit: "req/s",
    target: {},
    bare: "kv-group-write",
    service: () => ({
      method: "POST",
      path: "/api/v1/intake",
      headers: JSON_POST,
      body: JSON.stringify({
        email: "bench@example.com",
        description: "Replace a failed PSU in rack B12",
        city: "Zurich",
      }),
    }),
  },
];

function tokenShape(authorization: string, path: string): Shape {
  return {
    method: "POST",
    path,
    headers: { Authorization: authorization, "Content-Type": FORM },
    body: "grant_type=client_credentials",
  };
}

const STARTUP_TARGET_MS = 1000;

// ---------------------------------------------------------------------------

/** A process we started and the address it answers on. */
interface Server extends AsyncDisposable {
  base: string;
  /** The process that serves (under `deno task`, its child). */
  pid: number;
  startedInMs: number;
}

interface SpawnOptions {
  command: string;
  args: string[];
  cwd: string | URL;
  env: Record<string, string>;
  /** Polled until it answers (any status). */
  ready: string;
}

/** Spawns a server on a free port, and times spawn → the first answer on `ready`. */
export async function spawnServer(o: SpawnOptions): Promise<Server> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = new Deno.Command(o.command, {
    args: o.args,
    cwd: o.cwd,
    env: { NO_COLOR: "1", PORT: String(port), HOSTNAME: "127.0.0.1", BASE_URL: base, ...o.env },
    stdout: "null",
    stderr: "null",
  }).spawn();
  let startedInMs = 0;
  for (;;) {
    try {
      const res = await fetch(base + o.ready);
      await res.body?.cancel();
      startedInMs = performance.now() - started;
      break;
    } catch {
      if (performance.now() - started > 30_000) {
        child.kill("SIGKILL");
        throw new Error(`${o.command} ${o.args.join(" ")}: no answer`);
      }
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

const spawnService = (kvPath: string) =>
  spawnServer({
    command: Deno.execPath(),
    args: ["task", "--quiet", "start"],
    cwd: ROOT,
    env: { KV_PATH: kvPath, ...RATE_LIMITS_OFF },
    ready: "/healthz",
  });

const spawnBare = (floor: Floor, kvPath: string) =>
  spawnServer({
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "bench/baseline.ts",
    ],
    cwd: ROOT,
    env: { FLOOR: floor, KV_PATH: kvPath },
    ready: "/",
  });

/**
 * Installs the pinned peer into `dir` and starts it on Node, or says why it cannot
 * (no Node or npm, no registry): the bench then runs without the peer's columns.
 */
async function spawnPeer(dir: string): Promise<{ server: Server; version: string } | string> {
  for (const name of ["package.json", "package-lock.json", "server.mjs"]) {
    await Deno.copyFile(new URL(name, PEER_DIR), `${dir}/${name}`);
  }
  try {
    const ci = await new Deno.Command("npm", {
      args: ["ci", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!ci.success) return `npm ci failed: ${new TextDecoder().decode(ci.stderr).trim()}`;
  } catch (err) {
    return `npm is not available (${err instanceof Error ? err.message : err})`;
  }
  const lock = JSON.parse(await Deno.readTextFile(`${dir}/package-lock.json`));
  const node = await new Deno.Command("node", { args: ["--version"] }).output();
  const version = `oidc-provider ${lock.packages["node_modules/oidc-provider"].version} on Node ` +
    new TextDecoder().decode(node.stdout).trim().replace(/^v/, "");
  const server = await spawnServer({
    command: "node",
    args: ["server.mjs"],
    cwd: dir,
    env: {
      NODE_ENV: "production",
      CLIENT_ID: PEER_CLIENT.client_id,
      CLIENT_SECRET: PEER_CLIENT.client_secret,
    },
    ready: "/.well-known/openid-configuration",
  });
  return { server, version };
}

export async function setupService(base: string): Promise<Setup> {
  const app = overHttp(base);
  const client = await registerClient(app);
  return {
    client,
    basic: basic(client.client_id, client.client_secret),
    bearer: `Bearer ${await issueToken(app, client)}`,
  };
}

async function setupPeer(base: string): Promise<PeerSetup> {
  const auth = basic(PEER_CLIENT.client_id, PEER_CLIENT.client_secret);
  const res = await fetch(`${base}/token`, {
    method: "POST",
    headers: { Authorization: auth, "Content-Type": FORM },
    body: "grant_type=client_credentials",
  });
  if (res.status !== 200) throw new Error(`the peer issued no token: ${res.status}`);
  return { basic: auth, token: (await res.json()).access_token };
}

/** Makes sure `wrk` is there: installs it as root on Debian, else explains and exits. */
export async function ensureWrk(): Promise<string> {
  const version = async () => {
    try {
      const out = await new Deno.Command("wrk", { args: ["-v"] }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      return text.match(/wrk (\S+)/)?.[1] ?? "unknown";
    } catch {
      return undefined;
    }
  };
  const found = await version();
  if (found) return found;
  if (Deno.uid() === 0) {
    console.error("wrk is not installed; installing it with apt-get…");
    const apt = (args: string[]) =>
      new Deno.Command("apt-get", { args, stdout: "null", stderr: "inherit" }).output();
    try {
      await apt(["update", "-qq"]);
      await apt(["install", "-y", "-qq", "wrk"]);
    } catch { /* not Debian: reported below */ }
    const installed = await version();
    if (installed) return installed;
  }
  console.error(
    "bench:load needs wrk (https://github.com/wg/wrk): `apt-get install wrk` on Debian or " +
      "Ubuntu, `brew install wrk` on macOS.",
  );
  Deno.exit(2);
}

/**
 * One wrk run of `shape` against `base`, through bench/wrk/drive.lua; `threads` (wrk's
 * `-t`) and `connections` (`-c`) default to this bench's two and 32.
 */
export async function drive(
  base: string,
  shape: Shape,
  seconds: number,
  threads = THREADS,
  connections = CONNECTIONS,
): Promise<RunResult> {
  const headers = Object.entries(shape.headers ?? {}).map(([k, v]) => `${k}: ${v}`).join("\n");
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${threads}`,
      `-c${connections}`,
      `-d${seconds}s`,
      "--timeout",
      "10s",
      "-s",
      DRIVE_LUA,
      base + shape.path,
    ],
    env: {
      WRK_METHOD: shape.method,
      WRK_BODY: shape.body ?? "",
      WRK_HEADERS: headers,
      ...(shape.revokePath ? { WRK_REVOKE_PATH: shape.revokePath } : {}),
      ...(shape.randomSuffix ? { WRK_RANDOM_SUFFIX: String(shape.randomSuffix) } : {}),
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const last = text.trim().split("\n").at(-1) ?? "";
  if (!out.success || !last.startsWith("{")) {
    throw new Error(`wrk failed: ${text}${new TextDecoder().decode(out.stderr)}`);
  }
  const r = JSON.parse(last);
  const counted = shape.revokePath ? r.cycles : r.requests;
  return {
    rate: Math.round(counted / r.duration_s),
    requests: r.requests,
    p50: hundredths(r.p50_ms),
    p99: hundredths(r.p99_ms),
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

const hundredths = (ms: number) => Math.round(ms * 100) / 100;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

function summarize(
  s: Scenario,
  runs: Partial<Record<SideName, RunResult[]>>,
  done: ScenarioResult[],
): ScenarioResult {
  const rate = (side: SideName) => {
    const r = runs[side];
    return r?.length ? Math.round(mean(r.map((x) => x.rate))) : undefined;
  };
  const service = rate("service")!;
  const peer = rate("peer");
  const bare = rate("bare")!;
  const other = s.target.of && done.find((d) => d.id === s.target.of!.id)?.summary.service;
  const p99 = Math.max(...runs.service!.map((r) => r.p99));
  const summary: ScenarioResult["summary"] = {
    service,
    ...(peer ? { peer, ofPeer: ratio(service, peer) } : {}),
    bare,
    ofBare: ratio(service, bare),
    ...(other ? { ofOther: ratio(service, other) } : {}),
    p50: hundredths(mean(runs.service!.map((r) => r.p50))),
    p99,
    ...(runs.peer?.length ? { peerP99: Math.max(...runs.peer.map((r) => r.p99)) } : {}),
    bareP99: Math.max(...runs.bare!.map((r) => r.p99)),
    meets: true,
    missed: [],
  };
  const t = s.target;
  const miss = (what: string) => summary.missed.push(what);
  if (runs.service!.some((r) => r.non2xx || r.errors)) miss("answers other than 2xx");
  if (t.peer && summary.ofPeer !== undefined && summary.ofPeer < t.peer) miss(`≥ ${t.peer}× peer`);
  if (t.bare && summary.ofBare < t.bare) miss(`≥ ${t.bare}× bare`);
  if (t.of && summary.ofOther !== undefined && summary.ofOther < t.of.ratio) {
    miss(`≥ ${t.of.ratio}× ${t.of.id}`);
  }
  if (t.p99Ms && p99 >= t.p99Ms) miss(`p99 < ${t.p99Ms} ms`);
  summary.meets = summary.missed.length === 0;
  return {
    id: s.id,
    label: s.label,
    ...(s.peerLabel ? { peerLabel: s.peerLabel } : {}),
    unit: s.unit,
    bare: s.bare,
    target: s.target,
    runs,
    summary,
  };
}

function machine(wrk: string): Record<string, string | number> {
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
    load_generator: `wrk ${wrk}`,
  };
}

function describeTarget(t: Target): string {
  return [
    t.bare !== undefined ? `≥ ${t.bare} × bare` : "",
    t.peer !== undefined ? `≥ ${t.peer} × peer` : "",
    t.of ? `≥ ${t.of.ratio} × ${t.of.id}` : "",
    t.p99Ms !== undefined ? `p99 < ${t.p99Ms} ms` : "",
  ].filter(Boolean).join(", ") || "—";
}

export function formatReport(r: LoadReport): string {
  const yes = (ok: boolean) => (ok ? "yes" : `**no**`);
  const n = (x: number | undefined) => x === undefined ? "—" : x.toLocaleString("en-US");
  const x2 = (x: number | undefined) => x === undefined ? "—" : x.toFixed(2);
  const lines = [
    `Measured ${r.date} on ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memory_gib} GiB, ` +
    `${r.machine.os}, Deno ${r.machine.deno}; ${r.machine.load_generator}, ` +
    `${r.settings.threads} threads, ${r.settings.connections} connections, no pipelining, ` +
    `${r.settings.rounds} interleaved rounds of ${r.settings.seconds} s per side; ` +
    `peer: ${r.peer ?? "not run"}.`,
    "",
    "| scenario | this service | peer | bare | this / peer | this / bare | p50 ms | p99 ms | " +
    "peer p99 ms | bare p99 ms | target | met |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ...r.scenarios.map(({ label, peerLabel, unit, bare, target, summary: s }) => {
      const name = unit === "cycles/s" ? `${label} (cycles/s)` : label;
      const peer = peerLabel && peerLabel !== label ? `${n(s.peer)} (${peerLabel})` : n(s.peer);
      const other = s.ofOther !== undefined && target.of
        ? `; ${x2(s.ofOther)} × ${target.of.id}`
        : "";
      return `| ${name} | ${n(s.service)} | ${peer} | ${n(s.bare)} (${bare}) | ${x2(s.ofPeer)} | ` +
        `${x2(s.ofBare)}${other} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ` +
        `${s.peerP99 === undefined ? "—" : s.peerP99.toFixed(2)} | ${s.bareP99.toFixed(2)} | ` +
        `${describeTarget(target)} | ` +
        `${s.meets ? "yes" : `**no**: ${s.missed.join(", ")}`} |`;
    }),
    "",
    `Idle RSS (after ${IDLE_READS} cheap reads and 2 s of quiet): the service ` +
    `${r.idleRssMiB.service} MiB, the peer ${r.idleRssMiB.peer ?? "—"} MiB (target: at most ` +
    `${r.idleRssMiB.target} MiB: ${yes(r.idleRssMiB.meets)}). ` +
    `Peak RSS over the scenarios the peer runs too: the service ${r.peakRssMiB.service} MiB, ` +
    `the peer ${r.peakRssMiB.peer ?? "—"} MiB (target: not above the peer: ` +
    `${r.peakRssMiB.meets === undefined ? "—" : yes(r.peakRssMiB.meets)}); over every ` +
    `scenario, MCP and intake included, ${r.peakRssMiB.all} MiB. ` +
    `Start to first answered request (\`deno task start\`, cached): median ` +
    `${r.startup.medianMs} ms of ${r.startup.runsMs.join(", ")} ms ` +
    `(target < ${r.startup.target} ms: ${yes(r.startup.meets)}).`,
  ];
  return lines.join("\n");
}

export async function runLoad(
  options: { seconds: number; rounds: number; only?: string[]; peer: boolean },
): Promise<LoadReport> {
  const wrk = await ensureWrk();
  const dir = await Deno.makeTempDir({ prefix: "dcfs-bench-" });
  const kvPath = (name: string) => `${dir}/${name}.sqlite3`;
  const started: AsyncDisposable[] = [];
  try {
    // Start-up time: three cold processes, each on a fresh store.
    const runsMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await using probe = await spawnService(kvPath(`start-${i}`));
      runsMs.push(Math.round(probe.startedInMs));
    }
    const medianMs = [...runsMs].sort((a, b) => a - b)[1]!;

    const service = await spawnService(kvPath("service"));
    started.push(service);
    let peer: { server: Server; version: string } | undefined;
    let peerNote: string | undefined;
    if (options.peer) {
      await Deno.mkdir(`${dir}/peer`);
      const spawned = await spawnPeer(`${dir}/peer`);
      if (typeof spawned === "string") {
        peerNote = `not run: ${spawned}`;
        console.error(`the peer is left out: ${spawned}`);
      } else {
        peer = spawned;
        started.push(peer.server);
      }
    }
    const idle = {
      service: await idleRss(service.pid, service.base, "/api/v1/services"),
      peer: peer &&
        await idleRss(peer.server.pid, peer.server.base, "/.well-known/openid-configuration"),
    };
    console.error(`idle RSS: the service ${idle.service} MiB, the peer ${idle.peer ?? "—"} MiB`);
    const s = await setupService(service.base);
    const p = peer ? await setupPeer(peer.server.base) : undefined;
    const bares = new Map<Floor, Server>();
    const scenarios = SCENARIOS.filter((x) => !options.only || options.only.includes(x.id));
    const results: ScenarioResult[] = [];
    let matchedRss: number | undefined;
    for (const scenario of scenarios) {
      if (!bares.has(scenario.bare)) {
        const bare = await spawnBare(scenario.bare, kvPath(`bare-${scenario.bare}`));
        bares.set(scenario.bare, bare);
        started.push(bare);
      }
      const sides: [SideName, string, Shape][] = [
        ["service", service.base, scenario.service(s)],
        ...(peer && p && scenario.peer
          ? [["peer", peer.server.base, scenario.peer(p)] as [SideName, string, Shape]]
          : []),
        // The bare handler gets the service's requests; the cycle, plain token POSTs.
        ["bare", bares.get(scenario.bare)!.base, { ...scenario.service(s), revokePath: undefined }],
      ];
      const runs: Partial<Record<SideName, RunResult[]>> = {};
      for (const [, base, shape] of sides) await drive(base, shape, 1); // for the JIT
      for (let round = 0; round < options.rounds; round++) {
        for (const [name, base, shape] of sides) {
          (runs[name] ??= []).push(await drive(base, shape, options.seconds));
        }
      }
      const result = summarize(scenario, runs, results);
      results.push(result);
      const x = result.summary;
      console.error(
        `${scenario.id}: ${x.service} ${scenario.unit}` +
          (x.peer ? `, peer ${x.peer} (× ${x.ofPeer})` : "") +
          `, bare ${x.bare} (× ${x.ofBare}), p99 ${x.p99} ms` +
          (x.meets ? "" : ` — missed: ${x.missed.join(", ")}`),
      );
      if (scenario.peer) matchedRss = await memoryMiB(service.pid, "VmHWM");
    }
    const allRss = await memoryMiB(service.pid, "VmHWM");
    const serviceRss = matchedRss ?? allRss;
    const peerRss = peer ? await memoryMiB(peer.server.pid, "VmHWM") : undefined;
    return {
      date: new Date().toISOString(),
      machine: machine(wrk),
      settings: {
        seconds: options.seconds,
        rounds: options.rounds,
        connections: CONNECTIONS,
        threads: THREADS,
      },
      startup: { runsMs, medianMs, target: STARTUP_TARGET_MS, meets: medianMs < STARTUP_TARGET_MS },
      scenarios: results,
      idleRssMiB: {
        ...idle,
        target: IDLE_TARGET_MIB,
        meets: idle.service <= IDLE_TARGET_MIB,
      },
      peakRssMiB: {
        service: serviceRss,
        all: allRss,
        ...(peerRss !== undefined ? { peer: peerRss, meets: serviceRss <= peerRss } : {}),
      },
      peer: peer?.version ?? peerNote,
    };
  } finally {
    for (const server of started.reverse()) await server[Symbol.asyncDispose]();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "5" },
      rounds: { type: "string", default: "2" },
      only: { type: "string" },
      "no-peer": { type: "boolean", default: false },
      "no-save": { type: "boolean", default: false },
    },
  });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const only = values.only?.split(",");
  const unknown = only?.filter((id) => !SCENARIOS.some((s) => s.id === id)) ?? [];
  if (!(seconds > 0) || !Number.isInteger(rounds) || rounds < 1 || unknown.length) {
    console.error(
      "usage: deno task bench:load [--seconds 5] [--rounds 2] [--only id,id] [--no-peer] " +
        `[--no-save]\nscenarios: ${SCENARIOS.map((s) => s.id).join(", ")}`,
    );
    Deno.exit(2);
  }
  const report = await runLoad({ seconds, rounds, only, peer: !values["no-peer"] });
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
