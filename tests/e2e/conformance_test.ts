/**
 * The MCP conformance suite (issue 27, point 5): `@modelcontextprotocol/conformance` at one
 * exact version (like the Inspector in inspector_test.ts: a tool run, not an import, so it is in
 * neither lockfile), in server mode against the real service
 * (`deno task start`), once for each protocol revision the service serves
 * (`--requirements 2026-07-28` and `--requirements 2025-11-25`), with
 * `conformance-baseline.yml` as its `--expected-failures`. The baseline lists only scenarios
 * (or single checks) for features a tools-only, stateless server deliberately lacks.
 *
 * The suite scores only the scenarios a revision requires; this test holds the others it
 * runs (the tasks extension, pending scenarios such as the Mcp-Method/Mcp-Name header
 * validation) to the same baseline, so they cannot regress unseen either.
 *
 * The suite needs Node ≥ 22 (`fs.globSync`), so it runs under this Deno, with a temporary
 * HOME and a working folder outside the project. Its own output goes to a file; this test
 * prints one verdict line per revision.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { PROTOCOL_VERSIONS } from "../../src/mcp/protocol.ts";
import { TOOL_NAMES } from "../_fixtures.ts";
import { root, type Sandbox, sandbox, startService } from "../_service.ts";

/** The suite, pinned to one exact version. */
const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const BASELINE = new URL("./conformance-baseline.yml", import.meta.url);
/** These must pass in the revision's run, with no baseline entry at all. */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  "2026-07-28": ["tools-list", "dns-rebinding-protection", "http-header-validation"],
  "2025-11-25": ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"],
};
/** Generous: the first run may download the package; a run takes a few seconds. */
const RUN_MS = 180_000;

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED" | string;
  errorMessage?: string;
  description?: string;
  details?: Record<string, unknown>;
}

/** A baseline line: a whole scenario, or one check of it (`scenario:check-id`). */
interface Entry {
  scenario: string;
  check?: string;
  why: string;
}

/** What one revision's run left. */
interface Run {
  revision: string;
  code: number;
  report: string;
  announced: number;
  scored: Set<string>;
  results: Map<string, Check[]>;
}

const key = (e: Entry) => e.check ? `${e.scenario}:${e.check}` : e.scenario;

/** The baseline's `server:` entries, each with the comment that says why. */
async function readBaseline(): Promise<Entry[]> {
  const entries: Entry[] = [];
  let inServer = false;
  for (const line of (await Deno.readTextFile(BASELINE)).split("\n")) {
    if (/^\S/.test(line) && !line.startsWith("#")) inServer = line.trim() === "server:";
    const m = inServer ? line.match(/^\s+-\s+([\w./-]+)(?::([\w./-]+))?\s*(?:#\s*(.*))?$/) : null;
    if (m) entries.push({ scenario: m[1]!, check: m[2], why: (m[3] ?? "").trim() });
  }
  return entries;
}

/** Each check id once, at its worst: a FAILURE or WARNING anywhere makes it failing. */
function verdicts(checks: Check[]): Map<string, "pass" | "fail"> {
  const out = new Map<string, "pass" | "fail">();
  for (const c of checks) {
    if (c.status === "FAILURE" || c.status === "WARNING") out.set(c.id, "fail");
    else if (c.status === "SUCCESS" && !out.has(c.id)) out.set(c.id, "pass");
  }
  return out;
}

const failing = (checks: Check[]) =>
  [...verdicts(checks)].filter(([, v]) => v === "fail").map(([id]) => id);

function describeFailures(scenario: string, checks: Check[]): string {
  const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  return `${scenario}:\n` +
    bad.map((c) =>
      `  ${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ""}\n` +
      `    details: ${JSON.stringify(c.details ?? {}).slice(0, 600)}`
    ).join("\n");
}

/** The failing checks of a run that no baseline entry covers, as `scenario:check`. */
function unexpectedFailures(run: Run, entries: Entry[]): string[] {
  const out: string[] = [];
  for (const [scenario, checks] of run.results) {
    const mine = entries.filter((e) => e.scenario === scenario);
    if (mine.some((e) => !e.check)) continue;
    const excused = new Set(mine.map((e) => e.check));
    for (const id of failing(checks)) if (!excused.has(id)) out.push(`${scenario}:${id}`);
  }
  return out;
}

/** The entries a run shows passing: a listed scenario with no failure, a listed check passing. */
function staleEntries(run: Run, entries: Entry[]): string[] {
  return entries.filter((e) => {
    const checks = run.results.get(e.scenario);
    if (!checks) return false;
    if (!e.check) return failing(checks).length === 0;
    return verdicts(checks).get(e.check) === "pass";
  }).map(key);
}

/** The entries a run shows failing (exercised, and still needed). */
function exercisedEntries(run: Run, entries: Entry[]): string[] {
  return entries.filter((e) => {
    const checks = run.results.get(e.scenario);
    if (!checks) return false;
    return e.check ? verdicts(checks).get(e.check) === "fail" : failing(checks).length > 0;
  }).map(key);
}

/** Where the suite runs: the pinned package, in a sandbox outside the project. */
interface Place {
  specifier: string;
  box: Sandbox;
}

/** Runs one `conformance` command under this Deno; its output, without colours. */
async function suite({ specifier, box }: Place, args: string[]) {
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", specifier, ...args],
    cwd: box.cwd,
    env: box.env,
    stdin: "null",
    signal: AbortSignal.timeout(RUN_MS),
  }).output();
  const decoder = new TextDecoder();
  // deno-lint-ignore no-control-regex
  const plain = (b: Uint8Array) => decoder.decode(b).replace(/\x1b\[[0-9;]*m/g, "");
  return { code: run.code, signal: run.signal, out: plain(run.stdout), err: plain(run.stderr) };
}

/** The server scenarios a revision requires (the ones the suite scores). */
async function scoredScenarios(place: Place, revision: string) {
  const listed = await suite(place, ["list", "--server", "--requirements", revision]);
  assert.equal(listed.code, 0, listed.err);
  const server = listed.out.split(/^Server scenarios.*$/m)[1]?.split(/^Client scenarios/m)[0];
  return new Set([...(server ?? "").matchAll(/^\s+-\s+(\S+)$/gm)].map((m) => m[1]!));
}

/** One revision's run against `url`; the suite's report stays in a file, read back. */
async function runRevision(place: Place, url: string, revision: string): Promise<Run> {
  const results = `${place.box.dir}/results-${revision}`;
  await Deno.mkdir(results);
  const scored = await scoredScenarios(place, revision);
  const run = await suite(place, [
    "server",
    "--url",
    url,
    "--requirements",
    revision,
    "--expected-failures",
    fileURLToPath(BASELINE),
    "--output-dir",
    results,
  ]);
  assert.equal(run.signal, null, `the suite did not finish in ${RUN_MS / 1000} s`);
  const report = `${run.out}\n--- stderr\n${run.err}`;
  await Deno.writeTextFile(`${place.box.dir}/conformance-${revision}.log`, report);
  // Each scenario leaves its checks in results/server-<scenario>-<timestamp>/checks.json.
  const byScenario = new Map<string, Check[]>();
  for await (const entry of Deno.readDir(results)) {
    const scenario = entry.name.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/)?.[1];
    if (!entry.isDirectory || !scenario) continue;
    const text = await Deno.readTextFile(`${results}/${entry.name}/checks.json`);
    byScenario.set(scenario, JSON.parse(text));
  }
  const announced = Number(report.match(/Running requirements \S+ \((\d+) scenarios\)/)?.[1]);
  return { revision, code: run.code, report, announced, scored, results: byScenario };
}

Deno.test("the MCP conformance suite passes for each protocol revision served, apart from the documented baseline", async (t) => {
  const baseline = await readBaseline();
  const specifier = SUITE;

  await t.step("every baseline entry is unique and carries a comment that says why", () => {
    assert.ok(baseline.length > 0, "the baseline lists server scenarios");
    assert.equal(new Set(baseline.map(key)).size, baseline.length, "no entry is listed twice");
    for (const e of baseline) assert.ok(e.why.length >= 10, `${key(e)} has a reason`);
    const whole = new Set(baseline.filter((e) => !e.check).map((e) => e.scenario));
    for (const e of baseline) {
      assert.ok(!e.check || !whole.has(e.scenario), `${key(e)}: its scenario is listed whole`);
    }
    for (const s of Object.values(REQUIRED).flat()) {
      assert.ok(!baseline.some((e) => e.scenario === s), `${s} is not in the baseline`);
    }
    assert.deepEqual(Object.keys(REQUIRED), [...PROTOCOL_VERSIONS], "each revision served runs");
  });

  await using service = await startService();
  await using box = await sandbox("dcfs-conformance-");
  const lockfile = new URL("deno.lock", root);
  const lockBefore = await Deno.readFile(lockfile);
  const url = `${service.baseUrl}/api/v1/mcp`;
  const place = { specifier, box };

  const runs: Run[] = [];
  for (const revision of PROTOCOL_VERSIONS) {
    const run = await runRevision(place, url, revision);
    runs.push(run);
    await t.step(`${revision}: the suite ran every scenario it requires`, () => {
      assert.ok(
        run.announced > 0,
        `the suite announced its scenarios:\n${run.report.slice(0, 2000)}`,
      );
      assert.equal(run.results.size, run.announced, "every scenario left its checks");
      for (const s of run.scored) assert.ok(run.results.has(s), `${s} ran`);
    });

    await t.step(`${revision}: ${REQUIRED[revision]!.join(", ")} pass`, () => {
      for (const s of REQUIRED[revision]!) {
        const checks = run.results.get(s);
        assert.ok(checks, `${s} ran`);
        assert.deepEqual(failing(checks), [], describeFailures(s, checks));
        assert.ok(checks.some((c) => c.status === "SUCCESS"), `${s} has a passing check`);
      }
      const listed = run.results.get("tools-list")!.find((c) => c.id === "tools-list");
      assert.deepEqual(listed?.details?.tools, TOOL_NAMES);
      // A foreign Host/Origin is refused with a 4xx, the service's own is served.
      const rebinding = new Map(run.results.get("dns-rebinding-protection")!.map((c) => [c.id, c]));
      assert.equal(rebinding.get("localhost-host-rebinding-rejected")?.details?.statusCode, 403);
      assert.equal(rebinding.get("localhost-host-valid-accepted")?.status, "SUCCESS");
    });

    await t.step(`${revision}: every failure, scored or not, is a baseline entry`, () => {
      const unexpected = unexpectedFailures(run, baseline);
      const scenarios = [...new Set(unexpected.map((u) => u.split(":")[0]!))];
      assert.deepEqual(
        unexpected,
        [],
        "unexpected failures (service bugs, not baseline material):\n" +
          scenarios.map((s) => describeFailures(s, run.results.get(s)!)).join("\n"),
      );
    });

    await t.step(`${revision}: no baseline entry passes (stale)`, () => {
      assert.deepEqual(staleEntries(run, baseline), [], "remove these from the baseline");
    });

    await t.step(`${revision}: the suite's own baseline check agrees: exit code 0`, () => {
      assert.equal(run.code, 0, run.report.slice(-3000));
      assert.match(run.report, /Baseline check passed: all failures are expected\./);
    });
  }

  await t.step("every baseline entry is still needed by some revision", () => {
    const exercised = new Set(runs.flatMap((run) => exercisedEntries(run, baseline)));
    assert.deepEqual(baseline.map(key).filter((k) => !exercised.has(k)), []);
  });

  await t.step("deno.lock is byte-identical", async () => {
    assert.deepEqual(await Deno.readFile(lockfile), lockBefore);
  });

  for (const run of runs) {
    const failed = [...run.results].filter(([, checks]) => failing(checks).length > 0);
    const unscored = failed.filter(([s]) => !run.scored.has(s)).length;
    console.log(
      `conformance ${run.revision}: ${run.results.size} scenarios, ` +
        `${run.results.size - failed.length} passed, ${failed.length} failed only as the ` +
        `baseline expects (${unscored} of them not scored), ` +
        `${unexpectedFailures(run, baseline).length} unexpected`,
    );
  }
});
