/**
 * Real clients, unmodified (issue 5, section 1): the MCP Inspector CLI 2.x in `--cli`
 * mode against the real service (`deno task start`). It lists the tools, calls every one of
 * them and reports the quote builder app (`--app-info`: the MCP App of check_coverage and
 * estimate_quote, read from its resource), in the legacy era (the default for an ad-hoc URL, 2025-11-25) and with
 * `--protocol-era modern` (2026-07-28).
 *
 * The Inspector needs Node ≥ 22.19, so it runs under this Deno, as the README shows.
 * It gets a temporary HOME (its `~/.mcp-inspector` state) and a working folder outside
 * the project, so it cannot touch `deno.lock`; Deno's own cache is shared, so the
 * package is downloaded once.
 */

import assert from "node:assert/strict";
import { LEAD, QUOTE, TOOL_NAMES } from "../_fixtures.ts";
import { isInside, root, type Sandbox, sandbox, type Service, startService } from "../_service.ts";

const INSPECTOR = "npm:@modelcontextprotocol/inspector@2.12.0";
/** The first run may download the package; after that a run takes a second or two. */
const FIRST_RUN_MS = 180_000;
/**
 * A run still going after this hangs instead of exiting. Known cause in the modern era:
 * if the server advertises `tools.listChanged`, the Inspector opens a never-ending
 * `subscriptions/listen` stream and also reads a `clone()` of that response with
 * `.text()`; under Deno that starves the original stream, so the acknowledgement never
 * arrives and the CLI waits forever. Our tools never change, so the server must not
 * advertise it.
 */
const RUN_MS = 20_000;
/** The Inspector's exit code for a tool result with `isError: true`. */
const EXIT_TOOL_IS_ERROR = 5;
/** The Inspector's exit code for `--app-info` on a tool without an MCP App. */
const EXIT_NO_APP = 2;
/** A 2026-07-28 result names its server in `_meta`; a 2025-11-25 result does not. */
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

const ERAS = [
  { name: "legacy", flags: [] as string[], modern: false },
  { name: "modern", flags: ["--protocol-era", "modern"], modern: true },
];

type Json = Record<string, unknown>;

interface Run {
  code: number;
  /** The JSON object `--format json` prints on stdout (`appInfo` for a tool with an app). */
  out: { result?: Json; appInfo?: Json };
  /** The error envelope on stderr, if any. */
  error?: { code: string; message: string };
  stderr: string;
}

/** Runs `inspector --cli <url> … --format json` and parses what it printed. */
async function inspector(
  box: Sandbox,
  url: string,
  args: string[],
  timeoutMs = RUN_MS,
): Promise<Run> {
  const cmd = ["run", "-A", INSPECTOR, "--cli", url, ...args, "--format", "json"];
  const out = await new Deno.Command(Deno.execPath(), {
    args: cmd,
    cwd: box.cwd,
    env: box.env,
    stdin: "null",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  const shown = `inspector ${args.join(" ")}\n--- stdout\n${stdout.slice(0, 2000)}\n--- stderr\n${
    stderr.slice(-2000)
  }`;
  assert.ok(
    out.signal === null,
    `the Inspector did not exit within ${timeoutMs / 1000} s (killed by ${out.signal}): ${shown}`,
  );
  const envelope = stderr.split("\n").find((l) => l.startsWith('{"error":'));
  let parsed: Run["out"];
  try {
    parsed = JSON.parse(stdout);
  } catch {
    assert.fail(`the Inspector printed no JSON object on stdout (exit ${out.code}): ${shown}`);
  }
  return {
    code: out.code,
    out: parsed,
    error: envelope ? JSON.parse(envelope).error : undefined,
    stderr,
  };
}

function call(name: string, args: Json | string[]): string[] {
  return [
    "--method",
    "tools/call",
    "--tool-name",
    name,
    ...(Array.isArray(args) ? ["--tool-arg", ...args] : ["--tool-args-json", JSON.stringify(args)]),
  ];
}

/** The result of a run that succeeded. */
function result(run: Run): Json {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr.slice(-2000)}`);
  assert.ok(run.out.result, "a result");
  return run.out.result;
}

/** The tool result of a run that succeeded, checked to come from the era asked for. */
function callResult(run: Run, modern: boolean): Json {
  const res = result(run);
  assertEra(res, modern);
  return res;
}

/** Tool results show the era (the Inspector drops `_meta` from list results). */
function assertEra(res: Json, modern: boolean): void {
  const info = (res._meta as Json | undefined)?.[SERVER_INFO] as Json | undefined;
  if (modern) assert.equal(info?.name, "dc-field-services", "a 2026-07-28 result");
  else assert.equal(info, undefined, "a 2025-11-25 result has no serverInfo in _meta");
}

function structured(res: Json): Json {
  const content = res.content as { type: string; text: string }[];
  assert.equal(res.isError ?? false, false, content?.[0]?.text);
  const out = res.structuredContent as Json;
  assert.ok(out, "structuredContent");
  assert.deepEqual(JSON.parse(content[0]!.text), out, "the text content is the same JSON");
  return out;
}

async function exerciseEra(
  t: Deno.TestContext,
  box: Sandbox,
  service: Service,
  era: (typeof ERAS)[number],
) {
  const url = `${service.baseUrl}/api/v1/mcp`;
  const run = (args: string[]) => inspector(box, url, [...era.flags, ...args]);
  // One Inspector start costs a second or two: start them all at once, check after.
  const settled = await Promise.allSettled([
    run(["--method", "tools/list", "--strict"]),
    run(call("check_coverage", ["city=zurich"])),
    run(call("list_services", {})),
    run(call("submit_lead", LEAD)),
    run(call("request_quote", QUOTE)),
    run(call("submit_lead", { email: "not-an-email" })),
    // --app-info reads the tool's app without calling the tool; the CLI declares no MCP Apps
    // support (no --advertise-apps), as claude.ai does not.
    run(["--method", "tools/call", "--tool-name", "estimate_quote", "--app-info"]),
    run(["--method", "tools/call", "--tool-name", "list_services", "--app-info"]),
  ]);
  // Every run has ended (or been killed) before anything is reported.
  const [list, coverage, services, lead, quote, invalid, estimateApp, servicesApp] = settled.map(
    (r) => {
      if (r.status === "rejected") throw r.reason;
      return r.value;
    },
  ) as [Run, Run, Run, Run, Run, Run, Run, Run];

  await t.step("tools/list names the six tools, with no schema portability errors", () => {
    // --strict exits 6 on an error-severity portability problem; warnings are allowed.
    const tools = result(list).tools as Json[];
    assert.deepEqual(tools.map((x) => x.name), TOOL_NAMES);
    for (const tool of tools) {
      assert.ok(tool.outputSchema, `${tool.name} has an outputSchema`);
      const reads = !["submit_lead", "request_quote"].includes(String(tool.name));
      assert.equal((tool.annotations as Json).readOnlyHint, reads, String(tool.name));
    }
  });
  await t.step("check_coverage with --tool-arg city=zurich: covered, Zürich", () => {
    const out = structured(callResult(coverage, era.modern));
    const c = out.coverage as { covered: boolean; location: { id: string; city: string } };
    assert.equal(c.covered, true);
    assert.equal(c.location.id, "zrh");
    assert.equal(c.location.city, "Zürich");
  });
  await t.step(
    "the Inspector reports the quote builder app of check_coverage and estimate_quote",
    () => {
      const app = {
        hasApp: true,
        resourceUri: "ui://dc-field-services/quote-builder",
        csp: {},
        prefersBorder: true,
        resourceMimeType: "text/html;profile=mcp-app",
      };
      // A tool call's JSON envelope carries the app of the tool it called.
      assert.deepEqual(coverage.out.appInfo, { ...app, toolName: "check_coverage" });
      assert.equal(estimateApp.code, 0, estimateApp.stderr.slice(-2000));
      assert.deepEqual(estimateApp.out.appInfo, { ...app, toolName: "estimate_quote" });
      assert.equal(servicesApp.code, EXIT_NO_APP, servicesApp.stderr.slice(-2000));
      assert.deepEqual(servicesApp.out.appInfo, { hasApp: false, toolName: "list_services" });
    },
  );
  await t.step("list_services: at least ten services with pricing", () => {
    const out = structured(callResult(services, era.modern));
    const list = out.services as { id: string; pricing: { hourly_rate: number } }[];
    assert.ok(list.length >= 10, `${list.length} services`);
    for (const s of list) assert.ok(s.pricing.hourly_rate > 0, s.id);
  });
  await t.step("submit_lead: a lead_ request id, human review, no billable order", () => {
    const out = structured(callResult(lead, era.modern));
    assert.equal(out.ok, true);
    assert.match(String(out.request_id), /^lead_[0-9A-Z]{26}$/);
    assert.equal(out.requires_human_approval, true);
    assert.equal(out.billable_order_created, false);
  });
  await t.step("request_quote: a quote_ request id and a non-binding budget estimate", () => {
    const out = structured(callResult(quote, era.modern));
    assert.match(String(out.request_id), /^quote_[0-9A-Z]{26}$/);
    assert.equal(out.billable_order_created, false);
    const estimate = out.budget_estimate as { non_binding: boolean; low: number; high: number };
    assert.equal(estimate.non_binding, true);
    assert.ok(estimate.low > 0 && estimate.high >= estimate.low, JSON.stringify(estimate));
  });
  await t.step("invalid arguments: an isError result naming each field, exit code 5", () => {
    assert.equal(invalid.code, EXIT_TOOL_IS_ERROR, invalid.stderr.slice(-2000));
    assert.equal(invalid.error?.code, "tool_is_error");
    const res = invalid.out.result!;
    assertEra(res, era.modern);
    assert.equal(res.isError, true);
    // The structured error fits the advertised output schema: the Inspector checks it.
    const body = res.structuredContent as { ok: boolean; error: string; issues: unknown[] };
    assert.equal(body.ok, false);
    assert.equal(body.error, "validation_failed");
    const text = (res.content as { text: string }[])[0]!.text;
    assert.deepEqual(JSON.parse(text), body);
    assert.match(text, /email must be a valid email address/);
    assert.match(text, /description is required/);
  });
}

Deno.test("MCP Inspector CLI 2.12 lists and calls every tool, legacy and modern era", async (t) => {
  await using service = await startService();
  await using box = await sandbox("dcfs-inspector-");
  const lockfile = new URL("deno.lock", root);
  const lockBefore = await Deno.readFile(lockfile);

  await t.step("the Inspector starts under Deno (the first run may download it)", async () => {
    const url = `${service.baseUrl}/api/v1/mcp`;
    const run = await inspector(box, url, ["--method", "tools/list"], FIRST_RUN_MS);
    assert.deepEqual((result(run).tools as Json[]).map((x) => x.name), TOOL_NAMES);
  });
  for (const era of ERAS) {
    await t.step(`${era.name} era (${era.flags.join(" ") || "no flag"})`, async (t) => {
      await exerciseEra(t, box, service, era);
    });
  }
  await t.step("the service answered no request with a 5xx", () => {
    const mcp = service.logs.filter((r) => r.path === "/api/v1/mcp");
    assert.ok(mcp.length > 0, "the Inspector reached the MCP endpoint");
    assert.deepEqual(service.logs.filter((r) => Number(r.status) >= 500), []);
  });
  await t.step("the Inspector kept its state in the temporary HOME", async () => {
    assert.ok((await Deno.stat(`${box.home}/.mcp-inspector`)).isDirectory);
  });
  await t.step("deno.lock is byte-identical", async () => {
    assert.deepEqual(await Deno.readFile(lockfile), lockBefore);
  });
});

Deno.test("a temporary folder beside the project whose name starts with the project's is outside it", () => {
  assert.equal(isInside("/src/dcfs-inspector-abc", "/src/dcfs"), false);
  assert.equal(isInside("/src/dcfs", "/src/dcfs"), true);
  assert.equal(isInside("/src/dcfs/tmp", "/src/dcfs"), true);
  assert.equal(isInside("/src/dcfs/tmp", "/src/dcfs/"), true);
  assert.equal(isInside("/tmp/x", "/src/dcfs"), false);
});
