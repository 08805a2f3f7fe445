/**
 * The quote builder (the MCP App of docs/mcp.md) in a real host: headless Chromium opens a
 * test host page (tests/mcp/app_host/) that connects an MCP client to the service on a real
 * port, finds the app on `check_coverage` and `estimate_quote`, reads it with
 * `resources/read` and renders it through @modelcontextprotocol/ext-apps's own `AppBridge`
 * behind a sandbox proxy on another origin, under the CSP MCP Apps 2026-01-26 sets for an
 * empty `_meta.ui.csp`. The test is then the model (tool calls, their input and result sent
 * to the app) and the person at the app: another city, another job, a refused service,
 * hostile text in every field the app echoes, a click on the map, the button that asks the
 * model for a quote. Nothing may leave the app's frame but postMessage: no request, no
 * navigation, no CSP violation, no console error, no dialog; the app's own `tools/call`s
 * reach the service through the host. Writes docs/images/mcp-app.png with
 * UPDATE_DOCS_IMAGES=1.
 */

import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { QUOTE_BUILDER } from "../../src/mcp/app/resource.ts";
import { ARTIFACTS, browserIgnored } from "../_browser.ts";
import { assertAxeClean } from "../_axe.ts";
import { assertRingsSeen, measureTabStops } from "../_focus_ring.ts";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { listen, mcpToolCall, type McpToolResult, type TestApp } from "../_helpers.ts";
import {
  app,
  appFrame,
  asText,
  hostPage,
  hostRecord,
  hostRun,
  hostShow,
  hostTools,
  state,
  text,
  type ToolResult,
  until,
  type Watch,
} from "./app_host/page.ts";
import { type Origin, serveHost, serveSandbox } from "./app_host/serve.ts";

/** MCP Apps 2026-01-26, "Sandbox proxy": the policy of an app that declares no domain. */
const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; " +
  "connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

/** Markup that, parsed as HTML anywhere in the app, sets `__pwned` or makes an element. */
const IMG = `<img src=x onerror="globalThis.__pwned='img'">`;
const SCRIPT = `<script>globalThis.__pwned='script'</script>`;
const SVG = `"><svg onload="globalThis.__pwned='svg'">`;

/** One drive: the page, the service behind it, and what the browser did. */
interface Drive {
  page: Page;
  service: TestApp;
  watch: Watch;
  sandbox: Origin;
  host: Origin;
}

/** The amounts in a text, thousands separators (`,`, thin or no-break space) dropped. */
function amounts(s: string): number[] {
  const plain = s.replace(/(\d)[,\u00a0\u202f](?=\d{3}\b)/g, "$1");
  return [...plain.matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
}

/** Waits until #estimate is priced at the `expected` answer's low and high. */
async function pricedAs(page: Page, expected: McpToolResult): Promise<string> {
  const { low, high, currency } = expected.structuredContent.budget_estimate as {
    low: number;
    high: number;
    currency: string;
  };
  return await until(`a price of ${low}–${high} ${currency}`, async () => {
    if (await state(page, "#estimate") !== "priced") return undefined;
    const price = await text(page, "#price");
    const [a, b] = amounts(price);
    return a === low && b === high && price.includes(currency) ? price : undefined;
  });
}

/** Waits until #estimate shows the refusal `expected`: its message and each issue's. */
async function refusedAs(page: Page, expected: McpToolResult): Promise<string> {
  const { message, issues } = expected.structuredContent as {
    message: string;
    issues: { message: string }[];
  };
  return await until(`the refusal "${message}"`, async () => {
    if (await state(page, "#estimate") !== "error") return undefined;
    const shown = await text(page, "#estimate");
    const all = [message, ...issues.map((i) => i.message)].every((m) => shown.includes(m));
    return all ? shown : undefined;
  });
}

/** Waits for the app's answer to the job the person typed, as a direct call answers it. */
async function answeredAs(page: Page, expected: McpToolResult): Promise<void> {
  if (expected.isError) {
    await refusedAs(page, expected);
    return;
  }
  await pricedAs(page, expected);
  const { summary } = (expected.structuredContent as { coverage: { summary: string } }).coverage;
  await until("the coverage summary", async () => {
    return (await text(page, "#coverage")).includes(summary) ? true : undefined;
  });
}

/** Fills the app's job fields as a person types them (an empty string clears one). */
async function typeJob(page: Page, fields: Record<string, string>): Promise<void> {
  for (const [id, value] of Object.entries(fields)) {
    await app(page).locator(`#${id}`).fill(value);
  }
}

/** The arguments of the `tools/call`s the host page sent from request `from` on. */
function forwardedCalls(
  watch: Watch,
  from: number,
): { name: string; arguments: Record<string, unknown> }[] {
  return watch.requests.slice(from).filter((r) =>
    r.depth === 0 && r.postData?.includes("tools/call")
  )
    .map((r) => JSON.parse(r.postData!).params);
}

async function findsTheApp({ page }: Drive): Promise<void> {
  const tools = await hostTools(page);
  const linked = tools.filter((tool) => tool._meta?.ui?.resourceUri)
    .map((tool) => [tool.name, tool._meta!.ui!.resourceUri]);
  assert.deepEqual(linked, [
    ["check_coverage", QUOTE_BUILDER.uri],
    ["estimate_quote", QUOTE_BUILDER.uri],
  ]);
}

async function coverageOfAshburn({ page }: Drive): Promise<void> {
  const result = await hostRun(page, "check_coverage", { city: "Ashburn" });
  const coverage = result.structuredContent.coverage;
  assert.equal(coverage.covered, true);
  assert.equal(coverage.response_time_hours, 2);
  await until("Ashburn covered", async () => {
    return await state(page, "#coverage") === "covered" ? true : undefined;
  });
  const shown = await text(page, "#coverage");
  assert.ok(shown.includes(coverage.summary), shown);
  assert.match(shown, /within 2 h/);
  assert.equal(await app(page).locator("#city").inputValue(), "Ashburn");
  assert.equal(await state(page, "#estimate"), "idle");
  assert.equal(await app(page).locator("#ask").isDisabled(), true);
  assert.match(
    await app(page).locator('#map [data-id="iad"]').getAttribute("class") ?? "",
    /\bselected\b/,
  );
}

async function estimateInAshburn({ page }: Drive): Promise<void> {
  const args = {
    city: "Ashburn",
    service_type: "Remote hands",
    engineer_count: 2,
    estimated_hours: 6,
  };
  const result = await hostRun(page, "estimate_quote", args);
  const estimate = result.structuredContent.budget_estimate;
  assert.deepEqual([estimate.low, estimate.high, estimate.currency], [1140, 1425, "EUR"]);
  await pricedAs(page, result as McpToolResult);
  const shown = await text(page, "#estimate");
  assert.ok(shown.includes(String(estimate.basis.hourly_rate)), `the hourly rate in ${shown}`);
  assert.ok(shown.includes(estimate.tax), `the tax line in ${shown}`);
  const assumptions = await app(page).locator("#assumptions li").allTextContents();
  assert.equal(assumptions.length, estimate.assumptions.length, assumptions.join("\n"));
  for (const a of estimate.assumptions) {
    assert.ok(assumptions.some((line) => line.includes(a.why)), `assumption ${a.field}`);
  }
  const job = app(page);
  assert.equal(await job.locator("#service").inputValue(), "Remote hands");
  assert.equal(await job.locator("#engineers").inputValue(), "2");
  assert.equal(await job.locator("#hours").inputValue(), "6");
  assert.equal(await job.locator("#ask").isDisabled(), false);
  assert.equal((await hostRecord(page)).teardowns, 1, "the coverage app was torn down");
}

/**
 * The app priced, as every person meets it, with the host 760 and 360 px wide: axe-core run
 * in the app's frame finds nothing, and each of its Tab stops has a ring of 3:1.
 */
async function everyPerson({ page }: Drive): Promise<void> {
  const before = page.viewportSize()!;
  try {
    for (const width of [760, 360]) {
      await page.setViewportSize({ width, height: 700 });
      // The app tells the host its new height, and the host resizes its frame: until then
      // a screenshot is of a page that moves.
      await until("the app's frame at its new size", async () => {
        const frame = page.locator("#app > iframe");
        const box = JSON.stringify(await frame.boundingBox());
        await new Promise((r) => setTimeout(r, 300));
        return JSON.stringify(await frame.boundingBox()) === box ? true : undefined;
      });
      const state = `quote builder at ${width} px`;
      await assertAxeClean(appFrame(page), state);
      assertRingsSeen(state, await measureTabStops(page, appFrame(page)));
    }
  } finally {
    await page.setViewportSize(before);
  }
}

/** The person types another city, then another job: the app asks the service through the host. */
async function anotherCityAndJob({ page, service, watch }: Drive): Promise<void> {
  let from = watch.requests.length;
  await typeJob(page, { city: "Leipzig", country: "" });
  const leipzig = {
    city: "Leipzig",
    service_type: "Remote hands",
    engineer_count: 2,
    estimated_hours: 6,
  };
  await answeredAs(page, await mcpToolCall(service, "estimate_quote", leipzig));
  assert.equal(await state(page, "#coverage"), "uncovered");
  assert.match(await text(page, "#coverage"), /Frankfurt/);
  assert.match(
    await app(page).locator('#map [data-id="fra"]').getAttribute("class") ?? "",
    /\bselected\b/,
  );
  const calls = forwardedCalls(watch, from);
  assert.ok(
    calls.some((c) => c.name === "estimate_quote" && c.arguments.city === "Leipzig"),
    JSON.stringify(calls),
  );

  from = watch.requests.length;
  await typeJob(page, { engineers: "3", hours: "4", service: "Smart hands" });
  const job = {
    city: "Leipzig",
    service_type: "Smart hands",
    engineer_count: 3,
    estimated_hours: 4,
  };
  await answeredAs(page, await mcpToolCall(service, "estimate_quote", job));
  const last = forwardedCalls(watch, from).at(-1);
  assert.equal(last?.name, "estimate_quote");
  assert.equal(last?.arguments.service_type, "Smart hands");
  assert.equal(Number(last?.arguments.engineer_count), 3);
  assert.equal(Number(last?.arguments.estimated_hours), 4);
}

/** A service the catalog does not have: the refusal's words, and no quote to ask for. */
async function refusedService({ page, service }: Drive): Promise<void> {
  await typeJob(page, { service: "teleportation" });
  const job = {
    city: "Leipzig",
    service_type: "teleportation",
    engineer_count: 3,
    estimated_hours: 4,
  };
  const refusal = await mcpToolCall(service, "estimate_quote", job);
  assert.equal(refusal.isError, true);
  await refusedAs(page, refusal);
  assert.equal(await app(page).locator("#ask").isDisabled(), true);
}

/** A click on Sydney on the map: the city and country filled, the job priced there. */
async function cityFromTheMap({ page, service }: Drive): Promise<void> {
  await typeJob(page, { service: "Remote hands" });
  await app(page).locator('#map [data-id="syd"]').click();
  const job = {
    city: "Sydney",
    country: "AU",
    service_type: "Remote hands",
    engineer_count: 3,
    estimated_hours: 4,
  };
  await answeredAs(page, await mcpToolCall(service, "estimate_quote", job));
  assert.equal(await app(page).locator("#city").inputValue(), "Sydney");
  assert.equal(await app(page).locator("#country").inputValue(), "AU");
  assert.equal(await state(page, "#coverage"), "covered");
  assert.match(
    await app(page).locator('#map [data-id="syd"]').getAttribute("class") ?? "",
    /\bselected\b/,
  );
}

/** The person types markup in every text field: the service's answers echo it, as text. */
async function hostileTyping({ page, service }: Drive): Promise<void> {
  await typeJob(page, { city: IMG, country: "", service: SCRIPT });
  const job = { city: IMG, service_type: SCRIPT, engineer_count: 3, estimated_hours: 4 };
  await answeredAs(page, await mcpToolCall(service, "estimate_quote", job));
  await asText(page, [IMG, SCRIPT]);
  await typeJob(page, { country: SVG });
  const withCountry = { ...job, country: SVG };
  await answeredAs(page, await mcpToolCall(service, "estimate_quote", withCountry));
  await asText(page, [IMG, SCRIPT, SVG]);
}

/** Markup everywhere the app echoes a tool's input or result. */
function hostileResult(real: ToolResult): ToolResult {
  const sc = structuredClone(real.structuredContent);
  const markup = `${IMG} ${SCRIPT} ${SVG}`;
  sc.coverage.summary = markup;
  sc.coverage.query = { city: IMG, country: SVG };
  sc.coverage.place = { ...sc.coverage.place, name: SVG };
  sc.coverage.nearest[0].city = IMG;
  sc.coverage.nearest[0].country = SCRIPT;
  sc.budget_estimate.tax = SCRIPT;
  sc.budget_estimate.note = SVG;
  sc.budget_estimate.assumptions[0].why = IMG;
  return { content: [{ type: "text", text: markup }], structuredContent: sc };
}

/** The model (or a host) sends markup in every field of a tool's input and result. */
async function hostileToolInputAndResult({ page, service }: Drive): Promise<void> {
  const args = {
    city: IMG,
    country: SVG,
    service_type: SCRIPT,
    engineer_count: IMG,
    estimated_hours: SCRIPT,
    requested_date: SVG,
    requested_time: IMG,
  };
  const leipzig = {
    city: "Leipzig",
    service_type: "Remote hands",
    engineer_count: 2,
    estimated_hours: 6,
  };
  const real = await mcpToolCall(service, "estimate_quote", leipzig) as unknown as ToolResult;
  await hostShow(page, "estimate_quote", args, hostileResult(real));
  await until("the hostile answer", async () => {
    return await state(page, "#coverage") === "uncovered" ? true : undefined;
  });
  await asText(page, [`${IMG} ${SCRIPT} ${SVG}`]);
  const coverage = await text(page, "#coverage");
  for (const s of [`${IMG} ${SCRIPT} ${SVG}`, IMG, SCRIPT]) assert.ok(coverage.includes(s), s);
  const estimate = await text(page, "#estimate");
  for (const s of [IMG, SCRIPT, SVG]) assert.ok(estimate.includes(s), s);
  const job = app(page);
  assert.equal(await job.locator("#city").inputValue(), IMG);
  assert.equal(await job.locator("#country").inputValue(), SVG);
  assert.equal(await job.locator("#service").inputValue(), SCRIPT);
  const refusal: ToolResult = {
    content: [{ type: "text", text: IMG }],
    structuredContent: {
      ok: false,
      error: "validation_failed",
      message: IMG,
      issues: [{ path: "city", message: SCRIPT }, { path: "country", message: SVG }],
    },
    isError: true,
  };
  await hostShow(page, "estimate_quote", args, refusal);
  await refusedAs(page, refusal as McpToolResult);
  await asText(page, [IMG, SCRIPT, SVG]);
}

/** Nothing goes to the model until the person clicks; then exactly one message. */
async function askForAQuote({ page, service }: Drive): Promise<void> {
  const job = {
    city: "Ashburn",
    service_type: "Remote hands",
    engineer_count: 2,
    estimated_hours: 6,
  };
  await hostRun(page, "estimate_quote", job);
  await pricedAs(page, await mcpToolCall(service, "estimate_quote", job));
  const before = await hostRecord(page);
  assert.deepEqual(before.messages, [], "no ui/message before the click");
  await app(page).locator("#ask").click();
  const record = await until("one ui/message", async () => {
    const r = await hostRecord(page);
    return r.messages.length > 0 ? r : undefined;
  });
  await new Promise((r) => setTimeout(r, 1_000));
  const { messages, modelContext, openLinks } = await hostRecord(page);
  assert.equal(messages.length, 1, JSON.stringify(messages));
  const [message] = record.messages;
  assert.equal(message!.role, "user");
  assert.equal(message!.content.length, 1);
  assert.equal(message!.content[0]!.type, "text");
  const sentence = message!.content[0]!.text ?? "";
  assert.match(sentence, /Ashburn/);
  assert.match(sentence, /remote hands/i);
  assert.ok(amounts(sentence).includes(1140) && amounts(sentence).includes(1425), sentence);
  assert.notEqual((await text(page, "#ask-status")).trim(), "", "#ask-status says it was sent");
  assert.deepEqual(modelContext, [], "no ui/update-model-context");
  assert.deepEqual(openLinks, []);
}

/**
 * The app's frame: its policy is the spec's default, first in its <head>, and it holds: a
 * fetch (to the proxy's own origin, which `'self'` would be) and an image from the host's
 * origin are refused and reported as violations, and neither server is asked.
 */
async function policyHolds({ page, watch, sandbox, host }: Drive): Promise<void> {
  const { apps } = await hostRecord(page);
  assert.equal(apps.length, 5, "one app per tool call shown");
  for (const shown of apps) assert.deepEqual(shown, { uri: QUOTE_BUILDER.uri, csp: {} });
  const frame = appFrame(page);
  const meta = await frame.evaluate(() => {
    // deno-lint-ignore no-explicit-any
    const first = (globalThis as any).document.head.firstElementChild;
    return [first?.localName, first?.httpEquiv, first?.content];
  });
  assert.deepEqual(meta, ["meta", "Content-Security-Policy", DEFAULT_CSP]);
  const errors = watch.errors.length;
  const fetched = await frame.evaluate(([connect, image]) => {
    // deno-lint-ignore no-explicit-any
    new (globalThis as any).Image().src = image;
    return fetch(connect).then(() => "fetched", () => "refused");
  }, [`${sandbox.origin}/probe`, `${host.origin}/probe.png`] as const);
  assert.equal(fetched, "refused");
  const seen = await until("the two violations", () => {
    const v = watch.violations.map((x) => `${x.directive} ${x.blocked}`).sort();
    return v.length >= 2 ? v : undefined;
  });
  assert.deepEqual(seen, [
    `connect-src ${sandbox.origin}/probe`,
    `img-src ${host.origin}/probe.png`,
  ]);
  assert.deepEqual([...sandbox.hits, ...host.hits].filter((p) => p.startsWith("/probe")), []);
  const refused = watch.errors.slice(errors);
  assert.ok(refused.length > 0 && refused.every((e) => e.includes("/probe")), refused.join("\n"));
  watch.errors.splice(errors);
}

/** No request from the app's frames (the host's and the proxy's own are seen, so counted). */
function nothingLeftTheApp({ watch, sandbox }: Drive): void {
  assert.deepEqual(watch.requests.filter((r) => r.depth !== 0 && r.depth !== 1), []);
  const proxy = watch.requests.filter((r) => r.depth === 1).map((r) => new URL(r.url));
  assert.ok(proxy.length > 0, "the proxy's own loads are seen");
  for (const url of proxy) {
    assert.equal(url.origin, sandbox.origin);
    assert.ok(["/sandbox.html", "/sandbox.js"].includes(url.pathname), url.href);
  }
  const host = watch.requests.filter((r) => r.depth === 0).map((r) => new URL(r.url).pathname);
  assert.ok(host.includes("/api/v1/mcp"), "the host's MCP calls are seen");
  assert.deepEqual(watch.navigations, []);
  assert.deepEqual(watch.violations, []);
}

/**
 * The host page after an estimate, 800 × 700, under test-artifacts/ and, with
 * UPDATE_DOCS_IMAGES=1, as docs/images/mcp-app.png.
 */
async function screenshot(page: Page): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const png = await page.screenshot({ path: new URL("mcp-app.png", ARTIFACTS).pathname });
  if (Deno.env.get("UPDATE_DOCS_IMAGES") === "1") {
    await Deno.writeFile(new URL("../../docs/images/mcp-app.png", import.meta.url), png);
  }
}

type Step = [string, (d: Drive) => Promise<void> | void];

/**
 * Starts the proxy, the host page and the service, then runs `steps` in order, each needing
 * the state the one before left: the first that fails stops the drive and says what the
 * browser said.
 */
async function driveTheApp(t: Deno.TestContext, era: "auto" | "legacy", steps: Step[]) {
  await using sandbox = await serveSandbox();
  await using host = await serveHost();
  await using service = await listen({
    env: { ...RATE_LIMITS_OFF, ALLOWED_ORIGINS: host.origin },
  });
  const { browser, page, watch } = await hostPage(
    host.origin,
    `${service.baseUrl}/api/v1/mcp`,
    `${sandbox.origin}/sandbox.html`,
    era,
  );
  await using _browser = browser;
  const drive: Drive = { page, service, watch, sandbox, host };
  for (const [name, step] of steps) {
    const passed = await t.step(name, async () => {
      try {
        await step(drive);
      } catch (err) {
        // What the browser said is often the reason: give it with the failure.
        const said = JSON.stringify(
          {
            errors: watch.errors,
            navigations: watch.navigations,
            violations: watch.violations,
            fromTheApp: watch.requests.filter((r) => r.depth !== 0 && r.depth !== 1),
          },
          null,
          1,
        );
        throw new Error(`${(err as Error).message ?? err}\nthe browser: ${said}`, {
          cause: err,
        });
      }
    });
    if (!passed) break; // each later step needs this one's state
  }
}

const NO_ERROR: Step = ["no console error, page error or dialog in any frame", (d) => {
  assert.deepEqual(d.watch.errors, []);
}];
const NOTHING_LEFT: Step = [
  "no request, navigation or CSP violation from the app",
  (d) => nothingLeftTheApp(d),
];

Deno.test({
  name: "the quote builder in a test host (Chromium, AppBridge, sandbox proxy on another " +
    "origin): a person tries cities and jobs, hostile text stays text, one ui/message on " +
    "the click, nothing leaves the frame",
  ignore: browserIgnored("mcp/app_browser_test"),
  fn: (t) =>
    driveTheApp(t, "auto", [
      ["the host finds the app on both tools", findsTheApp],
      ["check_coverage Ashburn: covered, its response time", coverageOfAshburn],
      ["estimate_quote 2 × 6 h remote hands: the server's price and basis", async (d) => {
        await estimateInAshburn(d);
        await screenshot(d.page);
      }],
      ["for every person, at 760 and 360 px: axe-core, a 3:1 focus ring", everyPerson],
      ["another city, another job: what a direct call answers", anotherCityAndJob],
      ["a refused service: the refusal in words", refusedService],
      ["a city from the map", cityFromTheMap],
      ["markup typed in every field is text", hostileTyping],
      ["markup in every tool input and result field is text", hostileToolInputAndResult],
      ["one ui/message, on the click only", askForAQuote],
      NO_ERROR,
      NOTHING_LEFT,
      ["the CSP is the spec's default, and holds", policyHolds],
    ]),
});

Deno.test({
  name: "the quote builder in a 2025-11-25 host (initialize, the SDK's legacy negotiation): " +
    "the same answers, no script or CORS error",
  ignore: browserIgnored("mcp/app_browser_test"),
  fn: (t) =>
    driveTheApp(t, "legacy", [
      ["the host finds the app on both tools", findsTheApp],
      ["check_coverage Ashburn: covered, its response time", coverageOfAshburn],
      ["estimate_quote 2 × 6 h remote hands: the server's price and basis", estimateInAshburn],
      ["another city, another job: what a direct call answers", anotherCityAndJob],
      ["no console error but Chromium's log line of the transport's one 405", (d) => {
        // A 2025-11-25 client opens GET /api/v1/mcp for server-sent messages; a server that
        // sends none answers 405 (MCP transports), readable with its CORS grant. Chromium
        // logs every 4xx load as a console error; nothing else may be there.
        const expected = /^console: Failed to load resource: .* 405 \(Method Not Allowed\)$/;
        assert.deepEqual(d.watch.errors.filter((e) => !expected.test(e)), []);
      }],
      NOTHING_LEFT,
    ]),
});
