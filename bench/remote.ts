/**
 * @module
 * The main flows through the handler in-process over the far-away test store
 * (tests/_remote_store.ts) at 0, 20 and 90 ms per strong store operation (an eventual read
 * costs a twentieth): the sequential round trips each flow waits for, and its p50 and p99.
 * One request at a time, each from an address of its own, so every flow reads its rate
 * counters; the rate limits are the defaults. One row issues each token through a new handler
 * on the same store: another instance, which has the client record in no cache. With `--base <commit>`, that commit's handler
 * (checked out as a git worktree) runs the same flows beside this tree's, for a before and
 * after table.
 *
 * Prints a markdown table and saves it under `bench/results/remote-*.md`.
 *
 *   deno task bench:remote [--runs 20] [--latencies 0,20,90] [--base <commit>] [--no-save]
 */

import { parseArgs } from "node:util";
import { percentile } from "./_stats.ts";
import { remoteStore } from "../tests/_remote_store.ts";
import type { Client } from "../tests/_helpers.ts";
import {
  catalogRead,
  ESTIMATE,
  type FlowApp,
  lead,
  mcpCall,
  protectedRead,
  quote,
  register,
  revoke,
  token,
} from "../tests/_flows.ts";

const ROOT = new URL("..", import.meta.url).pathname;

const args = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "20" },
    latencies: { type: "string", default: "0,20,90" },
    base: { type: "string" },
    "no-save": { type: "boolean", default: false },
  },
});
const RUNS = Number(args.values.runs);
const LATENCIES = args.values.latencies.split(",").map(Number);

/** What a side needs of a tree: its handler, configuration and catalog. */
interface Tree {
  label: string;
  createHandler(deps: Record<string, unknown>): (req: Request, info: unknown) => Promise<Response>;
  loadConfig(env: Record<string, string>): unknown;
  loadCatalog(): unknown;
}

async function tree(label: string, dir: string): Promise<Tree> {
  const app = await import(`${dir}/src/app.ts`);
  const config = await import(`${dir}/src/config.ts`);
  const catalog = await import(`${dir}/src/catalog/catalog.ts`);
  return {
    label,
    createHandler: app.createHandler,
    loadConfig: config.loadConfig,
    loadCatalog: catalog.loadCatalog,
  };
}

/** The state the flows carry from one step to the next. */
interface Session {
  client: Client;
  accessToken: string;
  /** A new handler on the same store: another instance, whose caches are cold. */
  instance(): FlowApp;
  other?: FlowApp;
}

/** One flow: what it does once (unmeasured preparation first, if any). */
interface Flow {
  name: string;
  /** The target at 90 ms, when the issue set one: the p50 at most this many ms. */
  target?: number;
  prepare?(app: FlowApp, s: Session): Promise<void>;
  run(app: FlowApp, s: Session, address: string, n: number): Promise<unknown>;
}

const FLOWS: Flow[] = [
  { name: "registration", run: (app, _s, from) => register(app, from) },
  {
    name: "token",
    target: 250,
    run: async (app, s, from) => s.accessToken = await token(app, s.client, from),
  },
  {
    // Deploy starts isolates as it needs them: there the client record is not cached.
    name: "token, another instance",
    target: 250,
    prepare: (_app, s) => Promise.resolve(void (s.other = s.instance())),
    run: (_app, s, from) => token(s.other!, s.client, from),
  },
  {
    name: "protected read (warm)",
    target: 120,
    run: (app, s) => protectedRead(app, s.accessToken),
  },
  {
    name: "revocation",
    prepare: async (app, s) => void (s.accessToken = await token(app, s.client, "192.0.2.9")),
    run: (app, s, from) => revoke(app, s.client, s.accessToken, from),
  },
  { name: "lead", target: 250, run: (app, _s, from, n) => lead(app, from, n) },
  { name: "quote", target: 250, run: (app, _s, from, n) => quote(app, from, n) },
  {
    name: "MCP tools/call submit_lead",
    target: 250,
    run: (app, _s, from, n) =>
      mcpCall(app, from, "submit_lead", { email: "b@example.com", description: `bench ${n}` }),
  },
  {
    name: "MCP tools/call estimate_quote",
    run: (app, _s, from) => mcpCall(app, from, "estimate_quote", ESTIMATE),
  },
  { name: "public catalog", run: (app) => catalogRead(app) },
];

interface Measured {
  trips: number[];
  ms: number[];
}

let addresses = 0;
/** A new address for every request: 10.x.y.z, never the same twice in a run. */
const nextAddress = () => {
  const n = ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

/** A handler called in-process, as tests/_helpers.ts `createApp` calls it. */
function inProcess(handler: ReturnType<Tree["createHandler"]>): FlowApp {
  return {
    request: (path, init = {}) => {
      const { address = "192.0.2.1", ...rest } = init;
      const remoteAddr = { transport: "tcp", hostname: address, port: 40000 };
      return handler(new Request(new URL(path, "https://bench.example"), rest), {
        remoteAddr,
        completed: Promise.resolve(),
      });
    },
  };
}

/** Runs every flow `RUNS` times over a store `latencyMs` away, through `t`'s handlers. */
async function measure(t: Tree, latencyMs: number): Promise<Map<string, Measured>> {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs });
  try {
    const config = t.loadConfig({ BASE_URL: "https://bench.example" });
    const catalog = t.loadCatalog();
    const handler = () => inProcess(t.createHandler({ kv, config, catalog, log: () => {} }));
    const app = handler();
    // Once-only work out of the way: the email index's key, a client, a first marker read.
    await lead(app, nextAddress(), 0);
    const client = await register(app, nextAddress());
    const accessToken = await token(app, client, nextAddress());
    const session: Session = { client, accessToken, instance: handler };
    await protectedRead(app, session.accessToken);
    const out = new Map<string, Measured>();
    for (const flow of FLOWS) {
      const m: Measured = { trips: [], ms: [] };
      for (let i = 0; i < RUNS; i++) {
        await flow.prepare?.(app, session);
        const from = nextAddress();
        kv.mark();
        const started = performance.now();
        await flow.run(app, session, from, i + 1);
        m.ms.push(performance.now() - started);
        m.trips.push(kv.trips());
      }
      out.set(flow.name, m);
      console.error(`${t.label} ${latencyMs} ms ${flow.name}: ${summary(m)}`);
    }
    return out;
  } finally {
    local.close();
  }
}

const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const p = (xs: readonly number[], q: number) => percentile(sorted(xs), q);
const ms = (x: number) => x < 10 ? x.toFixed(1) : Math.round(x).toString();
function tripsOf(m: Measured): string {
  const lo = Math.min(...m.trips);
  const hi = Math.max(...m.trips);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}
function summary(m: Measured): string {
  return `${tripsOf(m)} trips, p50 ${ms(p(m.ms, 0.5))} ms, p99 ${ms(p(m.ms, 0.99))} ms`;
}

function table(results: Map<number, Map<string, Measured>>): string[] {
  const head = ["flow", "round trips", ...LATENCIES.map((l) => `${l} ms: p50 / p99`)];
  const rows = FLOWS.map((f) => {
    const first = results.get(LATENCIES[0]!)!.get(f.name)!;
    return [
      f.name,
      tripsOf(first),
      ...LATENCIES.map((l) => {
        const m = results.get(l)!.get(f.name)!;
        return `${ms(p(m.ms, 0.5))} / ${ms(p(m.ms, 0.99))}`;
      }),
    ];
  });
  return [head, head.map((_, i) => (i < 2 ? "---" : "---:")), ...rows].map((r) =>
    `| ${r.join(" | ")} |`
  );
}

/** The targets at 90 ms, met or not, for the current tree. */
function targets(results: Map<number, Map<string, Measured>>): string[] {
  const at90 = results.get(90);
  if (!at90) return [];
  return FLOWS.filter((f) => f.target).map((f) => {
    const p50 = p(at90.get(f.name)!.ms, 0.5);
    return `- ${f.name}: p50 ${ms(p50)} ms at 90 ms (target ≤ ${f.target} ms): ` +
      (p50 <= f.target! ? "met" : "**not met**");
  });
}

async function git(...gitArgs: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args: ["-C", ROOT, ...gitArgs] }).output();
  const text = new TextDecoder();
  if (!out.success) throw new Error(`git ${gitArgs.join(" ")}: ${text.decode(out.stderr)}`);
  return text.decode(out.stdout).trim();
}

async function run(t: Tree): Promise<Map<number, Map<string, Measured>>> {
  const results = new Map<number, Map<string, Measured>>();
  for (const latency of LATENCIES) results.set(latency, await measure(t, latency));
  return results;
}

const head = await git("rev-parse", "--short", "HEAD");
const lines: string[] = [
  `Measured ${new Date().toISOString()}, Deno ${Deno.version.deno}, ${RUNS} requests a flow ` +
  `at each latency, one at a time; the store's strong operations take the latency, eventual ` +
  `reads a twentieth of it.`,
  "",
];
if (args.values.base) {
  const baseCommit = await git("rev-parse", "--short", `${args.values.base}^{commit}`);
  const dir = await Deno.makeTempDir({ prefix: "dcfs-remote-" });
  try {
    await git("worktree", "add", "--detach", "--quiet", `${dir}/base`, baseCommit);
    const before = await run(await tree(`base ${baseCommit}`, `${dir}/base`));
    lines.push(`**Before: ${baseCommit}**`, "", ...table(before), "");
  } finally {
    await git("worktree", "remove", "--force", `${dir}/base`).catch((e) => console.error(e));
    await Deno.remove(dir, { recursive: true });
  }
}
const current = await run(await tree(`current ${head}`, ROOT));
lines.push(`**This tree: ${head}**`, "", ...table(current), "", ...targets(current));
const report = lines.join("\n") + "\n";
console.log(report);
if (!args.values["no-save"]) {
  const stamp = new Date().toISOString().slice(0, 16).replace(":", "-");
  const file = `${ROOT}bench/results/remote-${stamp}.md`;
  await Deno.writeTextFile(file, `# bench:remote\n\n${report}`);
  console.error(`saved ${file}`);
}
