/**
 * The MCP conformance suite (issue 5, section 1): `@modelcontextprotocol/conformance`
 * 0.1.16 in server mode against the real service (`deno task start`), with
 * `conformance-baseline.yml` as its `--expected-failures`. The baseline lists only
 * scenarios for features a tools-only, stateless server deliberately lacks.
 *
 * The suite needs Node ≥ 22, so it runs under this Deno, with a temporary HOME and a
 * working folder outside the project. Its own output (whose summary line looks like a
 * test runner's) goes to a file; this test prints one verdict line of its own.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { isInside, root, startService } from "../_service.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
const BASELINE = new URL("./conformance-baseline.yml", import.meta.url);
/** These must pass, whatever the baseline says. */
const REQUIRED = ["server-initialize", "tools-list", "dns-rebinding-protection"];
import { TOOL_NAMES } from "../_fixtures.ts";
/** Generous: the first run may download the package; a run takes a few seconds. */
const RUN_MS = 180_000;

interface Check {
  id: string;
  name: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  errorMessage?: string;
  description?: string;
  details?: Record<string, unknown>;
}

/** The baseline's `server:` entries, each with the comment that says why. */
async function readBaseline(): Promise<{ scenario: string; why: string }[]> {
  const entries: { scenario: string; why: string }[] = [];
  let inServer = false;
  for (const line of (await Deno.readTextFile(BASELINE)).split("\n")) {
    if (/^\S/.test(line) && !line.startsWith("#")) inServer = line.trim() === "server:";
    const m = inServer ? line.match(/^\s+-\s+([\w./-]+)\s*(?:#\s*(.*))?$/) : null;
    if (m) entries.push({ scenario: m[1]!, why: (m[2] ?? "").trim() });
  }
  return entries;
}

/** A scenario fails for the suite's baseline check on any FAILURE or WARNING. */
function failed(checks: Check[]): boolean {
  return checks.some((c) => c.status === "FAILURE" || c.status === "WARNING");
}

function describeFailures(scenario: string, checks: Check[]): string {
  const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  return `${scenario}:\n` +
    bad.map((c) =>
      `  ${c.status} ${c.name}: ${c.errorMessage ?? c.description ?? ""}\n` +
      `    details: ${JSON.stringify(c.details ?? {}).slice(0, 600)}`
    ).join("\n");
}

Deno.test("the MCP conformance suite 0.1.16 passes in server mode, apart from the documented baseline", async (t) => {
  const baseline = await readBaseline();
  const expected = new Set(baseline.map((e) => e.scenario));

  await t.step("every baseline entry is unique and carries a comment that says why", () => {
    assert.ok(baseline.length > 0, "the baseline lists server scenarios");
    assert.equal(expected.size, baseline.length, "no scenario is listed twice");
    for (const e of baseline) assert.ok(e.why.length >= 10, `${e.scenario} has a reason`);
    for (const s of REQUIRED) assert.ok(!expected.has(s), `${s} is not in the baseline`);
  });

  await using service = await startService();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "dcfs-conformance-" }));
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  const project = await Deno.realPath(root);
  assert.ok(!isInside(dir, project), `${dir} must be outside the project ${project}`);
  for (const sub of ["home", "work", "results"]) await Deno.mkdir(`${dir}/${sub}`);
  const lockfile = new URL("deno.lock", root);
  const lockBefore = await Deno.readFile(lockfile);

  // Deno keeps its cache under HOME unless told otherwise: keep using the real one.
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    cwd: `${dir}/work`,
  }).output();
  assert.equal(info.code, 0, new TextDecoder().decode(info.stderr));
  const denoDir: string = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  const noProxy = [Deno.env.get("NO_PROXY"), "127.0.0.1", "localhost"].filter(Boolean).join(",");
  const url = `${service.baseUrl}/api/v1/mcp`;
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      SUITE,
      "server",
      "--url",
      url,
      "--expected-failures",
      fileURLToPath(BASELINE),
      "--output-dir",
      `${dir}/results`,
    ],
    cwd: `${dir}/work`,
    env: {
      HOME: `${dir}/home`,
      DENO_DIR: denoDir,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      NO_PROXY: noProxy,
      no_proxy: noProxy,
    },
    stdin: "null",
    signal: AbortSignal.timeout(RUN_MS),
  }).output();
  // The suite's report stays in a file; it is read back, never printed.
  const log = `${dir}/conformance.log`;
  const decoder = new TextDecoder();
  // deno-lint-ignore no-control-regex
  const plain = (b: Uint8Array) => decoder.decode(b).replace(/\x1b\[[0-9;]*m/g, "");
  await Deno.writeTextFile(log, plain(run.stdout) + "\n--- stderr\n" + plain(run.stderr));
  const report = await Deno.readTextFile(log);
  // The baseline verdict after the summary, without the summary's "Total: …" line.
  const verdict = report.split(/^Total: .*$/m)[1]?.split("\n--- stderr")[0]?.trim() ?? "";

  // Each scenario leaves its checks in results/server-<scenario>-<timestamp>/checks.json.
  const results = new Map<string, Check[]>();
  for await (const entry of Deno.readDir(`${dir}/results`)) {
    const scenario = entry.name.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/)?.[1];
    if (!entry.isDirectory || !scenario) continue;
    const text = await Deno.readTextFile(`${dir}/results/${entry.name}/checks.json`);
    results.set(scenario, JSON.parse(text));
  }
  const announced = Number(report.match(/Running active suite \((\d+) scenarios\)/)?.[1]);
  const failing = [...results].filter(([, checks]) => failed(checks)).map(([s]) => s);
  const unexpected = failing.filter((s) => !expected.has(s));
  const stale = [...expected].filter((s) => results.has(s) && !failing.includes(s));
  const passed = results.size - failing.length;

  await t.step("the suite ran its whole active suite against the service", () => {
    assert.equal(run.signal, null, `the suite did not finish in ${RUN_MS / 1000} s`);
    assert.ok(announced > 0, `the suite announced its scenarios:\n${report.slice(0, 2000)}`);
    assert.equal(results.size, announced, "every scenario left its checks");
    for (const s of expected) assert.ok(results.has(s), `baseline entry ${s} is a scenario`);
  });

  await t.step("server-initialize, tools-list and dns-rebinding-protection pass", () => {
    for (const s of REQUIRED) {
      const checks = results.get(s);
      assert.ok(checks, `${s} ran`);
      assert.ok(!failed(checks), describeFailures(s, checks));
      assert.ok(checks.some((c) => c.status === "SUCCESS"), `${s} has a passing check`);
    }
    const listed = results.get("tools-list")!.find((c) => c.id === "tools-list");
    assert.deepEqual(listed?.details?.tools, TOOL_NAMES);
    // A foreign Host/Origin is refused with a 4xx, the service's own is served.
    const rebinding = new Map(results.get("dns-rebinding-protection")!.map((c) => [c.id, c]));
    assert.equal(rebinding.get("localhost-host-rebinding-rejected")?.status, "SUCCESS");
    assert.equal(rebinding.get("localhost-host-rebinding-rejected")?.details?.statusCode, 403);
    assert.equal(rebinding.get("localhost-host-valid-accepted")?.status, "SUCCESS");
  });

  await t.step("every failure is a baseline entry (a deliberately missing feature)", () => {
    assert.deepEqual(
      unexpected,
      [],
      "unexpected failures (service bugs, not baseline material):\n" +
        unexpected.map((s) => describeFailures(s, results.get(s)!)).join("\n"),
    );
  });

  await t.step("no baseline entry is stale (now passing)", () => {
    assert.deepEqual(stale, [], "remove these from conformance-baseline.yml");
  });

  await t.step("the suite's own baseline check agrees: exit code 0", () => {
    assert.equal(run.code, 0, verdict || report.slice(-2000));
    assert.match(report, /Baseline check passed: all failures are expected\./);
  });

  await t.step("deno.lock is byte-identical", async () => {
    assert.deepEqual(await Deno.readFile(lockfile), lockBefore);
  });

  console.log(
    `conformance: ${passed} scenarios passed, ${failing.length - unexpected.length} ` +
      `expected failures (baseline), ${unexpected.length} unexpected`,
  );
});
