/**
 * @module
 * `deno task soak [seconds]`: a bounded mixed load (public and protected reads,
 * token issuance and revocation, MCP calls, submissions) against one real instance
 * started with `deno task start` on a temporary KV file. Reports requests per
 * status, the server's resident memory, and p50/p99 per route. It fails on any 5xx or
 * connection error. Memory growth after warm-up is a figure of the report, not a failure:
 * it depends on what else the machine runs. `--max-growth 0.2` makes it one, for a quiet
 * machine.
 */

import { parseArgs } from "node:util";
import { basic as basicAuth, issueToken, overHttp, registerClient } from "../tests/_helpers.ts";
import { mulberry32, RATE_LIMITS_OFF } from "../tests/_fixtures.ts";
import { memoryMiB, startServiceOnTempKv } from "../tests/_service.ts";
import { percentile } from "./_stats.ts";

export interface SoakOptions {
  seconds: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Share of the run before the memory baseline is taken. */
  warmupShare?: number;
  seed?: number;
  /** Fail when resident memory grew more than this share after warm-up; unset: report only. */
  maxGrowth?: number;
}

export interface SoakReport {
  seconds: number;
  requests: number;
  statuses: Record<string, number>;
  connectionErrors: number;
  rssMiB: { start: number; warm: number; end: number; peak: number };
  growthAfterWarmup: number;
  routes: Record<string, { count: number; p50: number; p99: number }>;
  failures: string[];
}

type Op = { route: string; weight: number; run: () => Promise<Response> };

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { seconds, concurrency = 16, warmupShare = 0.5, seed = 7, maxGrowth } = options;
  await using service = await startServiceOnTempKv(RATE_LIMITS_OFF);
  const base = service.baseUrl;
  const app = overHttp(base);
  const pid = await service.serverPid();
  const rssMiB = () => memoryMiB(pid, "VmRSS");
  const random = mulberry32(seed);
  const client = await registerClient(app);
  const basic = basicAuth(client.client_id, client.client_secret);
  const tokens: string[] = [];
  for (let i = 0; i < 8; i++) tokens.push(await issueToken(app, client));
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const cities = ["Zurich", "frankfurt am main", "Köln", "San Jose", "Atlantis", "Tokyo"];
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

  const ops: Op[] = [
    { route: "GET /api/v1/services", weight: 20, run: () => fetch(`${base}/api/v1/services`) },
    {
      route: "GET /api/v1/locations",
      weight: 15,
      run: () => fetch(`${base}/api/v1/locations?city=${encodeURIComponent(pick(cities))}`),
    },
    {
      route: "GET /api/v1/agent/services",
      weight: 20,
      run: () =>
        fetch(`${base}/api/v1/agent/services`, {
          headers: { Authorization: `Bearer ${pick(tokens)}` },
        }),
    },
    {
      route: "POST /oauth2/token",
      weight: 10,
      run: () =>
        fetch(`${base}/oauth2/token`, {
          method: "POST",
          headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials",
        }),
    },
    {
      route: "POST /oauth2/revoke",
      weight: 5,
      run: async () =>
        fetch(`${base}/oauth2/revoke`, {
          method: "POST",
          headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" },
          body: `token=${await issueToken(app, client)}`,
        }),
    },
    {
      route: "POST /api/v1/mcp",
      weight: 15,
      run: () =>
        fetch(`${base}/api/v1/mcp`, {
          ...json({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "check_coverage", arguments: { city: pick(cities) } },
          }, { Accept: "application/json, text/event-stream" }),
        }),
    },
    {
      route: "POST /api/v1/intake",
      weight: 10,
      run: () =>
        fetch(`${base}/api/v1/intake`, json({ email: "soak@example.com", description: "soak" })),
    },
    {
      route: "POST /api/v1/quotes",
      weight: 5,
      run: () =>
        fetch(
          `${base}/api/v1/quotes`,
          json({
            company: "Soak",
            contact_name: "Soak",
            email: "soak@example.com",
            city: pick(cities),
            service_type: "remote-hands",
            description: "soak",
            estimated_hours: 2,
          }),
        ),
    },
  ];
  const total = ops.reduce((n, op) => n + op.weight, 0);
  const choose = () => {
    let r = random() * total;
    for (const op of ops) if ((r -= op.weight) < 0) return op;
    return ops[0]!;
  };

  const statuses: Record<string, number> = {};
  const latencies = new Map<string, number[]>();
  const failures: string[] = [];
  let connectionErrors = 0;
  let requests = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const rss = { start: await rssMiB(), warm: 0, end: 0, peak: 0 };
  rss.peak = rss.start;
  let warmTaken = false;
  const sampler = setInterval(async () => {
    const now = await rssMiB();
    rss.peak = Math.max(rss.peak, now);
    if (!warmTaken && performance.now() - start >= seconds * 1000 * warmupShare) {
      warmTaken = true;
      rss.warm = now;
    }
  }, 250);

  const worker = async () => {
    while (performance.now() < deadline) {
      const op = choose();
      const t0 = performance.now();
      try {
        const res = await op.run();
        await res.body?.cancel();
        const ms = performance.now() - t0;
        requests++;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        (latencies.get(op.route) ?? latencies.set(op.route, []).get(op.route)!).push(ms);
        if (res.status >= 500 && failures.length < 20) {
          failures.push(`${op.route} → ${res.status}`);
        }
      } catch (err) {
        connectionErrors++;
        if (failures.length < 20) failures.push(`${op.route}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  clearInterval(sampler);
  rss.end = await rssMiB();
  rss.peak = Math.max(rss.peak, rss.end);
  if (!warmTaken) rss.warm = rss.end;

  const growth = rss.warm > 0 ? rss.end / rss.warm - 1 : 0;
  if (maxGrowth !== undefined && growth > maxGrowth) {
    failures.push(
      `memory grew ${(growth * 100).toFixed(1)} % after warm-up (max ${maxGrowth * 100} %)`,
    );
  }
  const routes: SoakReport["routes"] = {};
  for (const [route, xs] of latencies) {
    xs.sort((a, b) => a - b);
    routes[route] = { count: xs.length, p50: percentile(xs, 0.5), p99: percentile(xs, 0.99) };
  }
  return {
    seconds,
    requests,
    statuses,
    connectionErrors,
    rssMiB: rss,
    growthAfterWarmup: Math.round(growth * 1000) / 1000,
    routes,
    failures,
  };
}

/** The report as a short text table. */
export function formatSoak(r: SoakReport): string {
  const lines = [
    `soak: ${r.requests} requests in ${r.seconds} s (${Math.round(r.requests / r.seconds)}/s)`,
    `statuses: ${Object.entries(r.statuses).map(([s, n]) => `${s}×${n}`).join(" ")}` +
    `; connection errors: ${r.connectionErrors}`,
    `server RSS MiB: start ${r.rssMiB.start}, after warm-up ${r.rssMiB.warm}, end ${r.rssMiB.end}, ` +
    `peak ${r.rssMiB.peak} (growth after warm-up ${(r.growthAfterWarmup * 100).toFixed(1)} %)`,
    "",
    "| route | requests | p50 ms | p99 ms |",
    "| --- | ---: | ---: | ---: |",
    ...Object.entries(r.routes).map(([route, s]) =>
      `| ${route} | ${s.count} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} |`
    ),
  ];
  if (r.failures.length) lines.push("", "FAILURES:", ...r.failures.map((f) => `- ${f}`));
  return lines.join("\n");
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { "max-growth": { type: "string" } },
  });
  const seconds = Number(positionals[0] ?? Deno.env.get("SOAK_SECONDS") ?? 60);
  const maxGrowth = values["max-growth"] === undefined ? undefined : Number(values["max-growth"]);
  if (!Number.isFinite(seconds) || seconds <= 0 || Number.isNaN(maxGrowth)) {
    console.error("usage: deno task soak [seconds] [--max-growth 0.2]");
    Deno.exit(2);
  }
  const report = await runSoak({ seconds, maxGrowth });
  console.log(formatSoak(report));
  Deno.exit(report.failures.length ? 1 : 0);
}
