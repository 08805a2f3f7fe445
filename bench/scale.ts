/**
 * @module
 * The scale benchmark: a store filled as months of traffic would fill it, through the
 * service's own write path, then what staff and the service wait on, timed on the real
 * CLI and the real process with peak RSS.
 *
 * - **Fill**: N lead submissions through the service's handler (group commit, the same
 *   commits as a real submission), 32 at a time; their review notices then sent (logged) as
 *   the service would have long ago; every tenth is decided 60 days ago, as `deno task
 *   review approve` would record it. Three share one email address.
 * - **Then**: `review list` (one page), `review erase --email` (three matches),
 *   `review purge --decided-before 30d`, each as `deno task review` under `/usr/bin/time`,
 *   the purge with the service running on the same store and probed all along
 *   (`/healthz`, `/readyz` p99); the retention pass in the service on a copy made before
 *   the purge (its peak RSS, and the probes); the service's start-up on the filled store.
 * - **Start-up with expired keys**: N expired token keys (what a burst of tokens leaves
 *   behind a stop); the time to the first `/healthz` and to the first ready `/readyz`.
 *
 *   deno task bench:scale [--submissions 100000] [--tokens N] [--no-save]
 *                         [--store filled.sqlite3]
 *
 * `--store` starts from a copy of a store this benchmark filled before (with as many
 * submissions as `--submissions` says), instead of filling one: a 1M fill takes minutes.
 */

import { parseArgs } from "node:util";
import { createHandler } from "../src/app.ts";
import { loadCatalog } from "../src/catalog/catalog.ts";
import { loadConfig } from "../src/config.ts";
import { getSubmission, updateSubmission } from "../src/store/submissions.ts";
import { memoryMiB, type Service, startService } from "../tests/_service.ts";
import { tokenKey } from "../src/store/keys.ts";
import { sendNotices } from "../src/review/notifier.ts";
import type { TokenRecord } from "../src/store/credentials.ts";

const ROOT = new URL("..", import.meta.url);
const SUBJECT = "subject@example.com";

const args = parseArgs({
  args: Deno.args,
  options: {
    submissions: { type: "string", default: "100000" },
    tokens: { type: "string" },
    store: { type: "string" },
    "no-save": { type: "boolean" },
  },
});
const total = Number(args.values.submissions);
if (!Number.isInteger(total) || total < 10) throw new Error("--submissions must be 10 or more");
const tokens = Number(args.values.tokens ?? total);

const dir = await Deno.makeTempDir({ prefix: "dcfs-scale-" });
const kvPath = `${dir}/kv.sqlite3`;
const rows: [string, string, string][] = [];
try {
  if (args.values.store) await Deno.copyFile(args.values.store, kvPath);
  else {
    const fill = await _fill(kvPath, total);
    rows.push([`fill ${total} submissions (10 % decided)`, `${fill.toFixed(1)} s`, "-"]);
  }
  rows.push(await _cli("review list (one page of 50)", kvPath, "list"));
  rows.push(await _cli("review list --json (one page)", kvPath, "list", "--json"));
  rows.push(await _cli("review erase --email (3 matches)", kvPath, "erase", "--email", SUBJECT));
  const copy = `${dir}/retention.sqlite3`;
  await Deno.copyFile(kvPath, copy);
  rows.push(...await _purgeWhileServing(kvPath));
  rows.push(...await _retentionPass(copy));
  await Deno.remove(copy);
  rows.push(await _startUp(kvPath));
  rows.push(...await _startUpExpired(`${dir}/expired.sqlite3`, tokens));
} finally {
  await Deno.remove(dir, { recursive: true });
}

const table = [
  `Scale benchmark, ${total} submissions, Deno ${Deno.version.deno}, ${new Date().toISOString()}`,
  "",
  "| what a person waits on | time | peak RSS |",
  "| --- | ---: | ---: |",
  ...rows.map(([what, time, rss]) => `| ${what} | ${time} | ${rss} |`),
].join("\n");
console.log(table);
if (!args.values["no-save"]) {
  const name = `scale-${total}-${new Date().toISOString().slice(0, 16).replace(":", "-")}.md`;
  await Deno.writeTextFile(new URL(`bench/results/${name}`, ROOT), table + "\n");
  console.log(`saved bench/results/${name}`);
}

/** Fills the store through the handler; returns the seconds it took. */
async function _fill(path: string, n: number): Promise<number> {
  const kv = await Deno.openKv(path);
  const handler = createHandler({
    kv,
    config: loadConfig({
      BASE_URL: "https://scale.example",
      RATE_LIMIT_SUBMIT: "0",
      RATE_LIMIT_SUBMIT_GLOBAL: "0",
      MAX_IN_FLIGHT: "0",
    }),
    catalog: loadCatalog(),
    log: () => {},
  });
  const started = performance.now();
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const res = await handler(
        new Request("https://scale.example/api/v1/intake", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            email: i < 3 ? SUBJECT : `person${i}@example.com`,
            company: `Company ${i % 997}`,
            contact_name: `Contact ${i}`,
            city: ["Frankfurt", "Zurich", "Ashburn VA", "Reykjavik"][i % 4],
            description: `Rack work, request ${i}`,
          }),
        }),
        { remoteAddr: { transport: "tcp", hostname: "192.0.2.1", port: 1 } } as never,
      );
      const body = await res.json();
      if (res.status !== 202) throw new Error(`submission ${i}: ${res.status} ${body.error}`);
      if (i % 10 === 5) ids.push(body.request_id);
      if (i % 20_000 === 0) console.error(`filled ${i}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  // Every notice sent, as the service would have sent them long ago (no webhook: logged).
  const notifier = {
    kv,
    config: loadConfig({ BASE_URL: "https://scale.example" }),
    now: Date.now,
    log: () => {},
  };
  while (await sendNotices(notifier) > 0) { /* next batch */ }
  // Every tenth decided 60 days ago, with the store's own update.
  const decidedAt = new Date(Date.now() - 60 * 86_400_000).toISOString();
  for (const id of ids) {
    const entry = await getSubmission(kv, id);
    await updateSubmission(kv, entry as Deno.KvEntry<typeof entry.value & object>, {
      ...entry.value!,
      status: "approved",
      decision: { status: "approved", decided_at: decidedAt, by: "bench", note: null },
    });
  }
  kv.close();
  return (performance.now() - started) / 1000;
}

/**
 * Probes `/healthz` and `/readyz` of a running service, one request after another, until
 * `done` settles; returns the p99 of each, in ms.
 */
async function _probe(service: Service, done: Promise<unknown>): Promise<[number, number]> {
  let finished = false;
  done.finally(() => finished = true);
  const times: Record<string, number[]> = { "/healthz": [], "/readyz": [] };
  while (!finished) {
    for (const path of ["/healthz", "/readyz"]) {
      const started = performance.now();
      const res = await fetch(`${service.baseUrl}${path}`);
      await res.body?.cancel();
      times[path]!.push(performance.now() - started);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return [_p99(times["/healthz"]!), _p99(times["/readyz"]!)];
}

function _p99(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN;
}

/** `review purge` while the service runs on the same store and is probed. */
async function _purgeWhileServing(path: string): Promise<[string, string, string][]> {
  await using service = await startService({ KV_PATH: path });
  const purge = _cli("review purge --decided-before 30d", path, "purge", "--decided-before", "30d");
  const [health, ready] = await _probe(service, purge);
  return [await purge, _probeRow("during the purge", health, ready)];
}

function _probeRow(when: string, health: number, ready: number): [string, string, string] {
  return [
    `/healthz p99, /readyz p99 ${when}`,
    `${health.toFixed(1)} ms, ${ready.toFixed(1)} ms`,
    "-",
  ];
}

/** The service's retention pass (`SUBMISSION_RETENTION_DAYS=30`) on the filled store. */
async function _retentionPass(path: string): Promise<[string, string, string][]> {
  const started = performance.now();
  await using service = await startService({ KV_PATH: path, SUBMISSION_RETENTION_DAYS: "30" });
  const pid = await service.serverPid();
  const pass = service.waitFor((r) => r.msg === "retention purge", 30 * 60_000);
  const [health, ready] = await _probe(service, pass);
  const { erased } = await pass;
  const seconds = (performance.now() - started) / 1000;
  return [
    [
      `retention pass in the service (${erased} erased)`,
      `${seconds.toFixed(1)} s`,
      `${Math.round(await memoryMiB(pid, "VmHWM"))} MiB (service)`,
    ],
    _probeRow("during the retention pass", health, ready),
  ];
}

/**
 * `n` expired token keys (the key and record `storeToken` writes, with `expireIn` of 1 ms
 * instead of the lifetime), then the service started on them.
 */
async function _startUpExpired(path: string, n: number): Promise<[string, string, string][]> {
  const kv = await Deno.openKv(path);
  const now = Date.now();
  const record: TokenRecord = {
    client_id: "agent_x",
    scopes: ["services:read"],
    audience: "https://scale.example/api/v1/agent",
    issued_at: now - 900_000,
    expires_at: now,
  };
  for (let i = 0; i < n; i += 500) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + 500); j++) {
      op.set(tokenKey(crypto.randomUUID()), record, { expireIn: 1 });
    }
    await op.commit();
  }
  kv.close();
  const started = performance.now();
  await using service = await startService({ KV_PATH: path });
  const first = async (p: string) => {
    while (true) {
      const res = await fetch(`${service.baseUrl}${p}`);
      await res.body?.cancel();
      if (res.ok) return (performance.now() - started) / 1000;
    }
  };
  const [live, ready] = await Promise.all([first("/healthz"), first("/readyz")]);
  return [
    [`start to first /healthz 200, ${n} expired token keys`, `${live.toFixed(2)} s`, "-"],
    [`start to first /readyz 200, ${n} expired token keys`, `${ready.toFixed(2)} s`, "-"],
  ];
}

/** One `deno task review` run under /usr/bin/time: wall time and peak RSS. */
async function _cli(
  what: string,
  path: string,
  ...cmd: string[]
): Promise<[string, string, string]> {
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%e %M", Deno.execPath(), "task", "--quiet", "review", ...cmd],
    cwd: ROOT,
    env: { KV_PATH: path, NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).output();
  const last = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
  const [seconds, kib] = last.split(" ").map(Number);
  if (!out.success) throw new Error(`${cmd.join(" ")} failed: ${last}`);
  return [what, `${seconds!.toFixed(2)} s`, `${Math.round(kib! / 1024)} MiB`];
}

/** The service started on the filled store, to its first /healthz answer. */
async function _startUp(path: string): Promise<[string, string, string]> {
  const started = performance.now();
  await using service = await startService({ KV_PATH: path });
  const res = await fetch(`${service.baseUrl}/healthz`);
  await res.body?.cancel();
  const seconds = (performance.now() - started) / 1000;
  return ["service start to first /healthz 200", `${seconds.toFixed(2)} s`, "-"];
}
