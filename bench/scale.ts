/**
 * @module
 * The scale benchmark: a store filled as months of traffic would fill it, through the
 * service's own write path, then what staff and the service wait on, timed on the real
 * CLI and the real process with peak RSS.
 *
 * - **Fill**: N lead submissions through the service's handler (group commit, the same
 *   commits as a real submission), 32 at a time; every tenth is then decided 60 days ago,
 *   as `deno task review approve` would record it. Three share one email address.
 * - **Then**: `review list` (one page), `review erase --email` (three matches),
 *   `review purge --decided-before 30d`, each as `deno task review` under `/usr/bin/time`;
 *   and the service's start-up on the filled store to its first `/healthz` answer.
 *
 *   deno task bench:scale [--submissions 100000] [--no-save]
 */

import { parseArgs } from "node:util";
import { createHandler } from "../src/app.ts";
import { loadCatalog } from "../src/catalog/catalog.ts";
import { loadConfig } from "../src/config.ts";
import { emailHasher } from "../src/store/submission_index.ts";
import { getSubmission, indexSubmissions, updateSubmission } from "../src/store/submissions.ts";
import { startService } from "../tests/_service.ts";

const ROOT = new URL("..", import.meta.url);
const SUBJECT = "subject@example.com";

const args = parseArgs({
  args: Deno.args,
  options: { submissions: { type: "string", default: "100000" }, "no-save": { type: "boolean" } },
});
const total = Number(args.values.submissions);
if (!Number.isInteger(total) || total < 10) throw new Error("--submissions must be 10 or more");

const dir = await Deno.makeTempDir({ prefix: "dcfs-scale-" });
const kvPath = `${dir}/kv.sqlite3`;
const rows: [string, string, string][] = [];
try {
  const fill = await _fill(kvPath, total);
  rows.push([`fill ${total} submissions (10 % decided)`, `${fill.toFixed(1)} s`, "-"]);
  rows.push(await _cli("review list (one page of 50)", kvPath, "list"));
  rows.push(await _cli("review list --json (one page)", kvPath, "list", "--json"));
  rows.push(await _cli("review erase --email (3 matches)", kvPath, "erase", "--email", SUBJECT));
  rows.push(
    await _cli("review purge --decided-before 30d", kvPath, "purge", "--decided-before", "30d"),
  );
  rows.push(await _startUp(kvPath));
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
  // As `deno task start` does first: a new store is marked indexed before anything is in it.
  await indexSubmissions(kv, await emailHasher(kv));
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
