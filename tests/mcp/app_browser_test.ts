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
import type { BrowserContext, Frame, FrameLocator, Page } from "npm:playwright-core@1.65.1";
import { QUOTE_BUILDER } from "../../src/mcp/app/resource.ts";
import { ARTIFACTS, browserIgnored, launch } from "../_browser.ts";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { listen, mcpToolCall, type McpToolResult, type TestApp } from "../_helpers.ts";
import { type Origin, serveHost, serveSandbox } from "./app_host/serve.ts";

/** MCP Apps 2026-01-26, "Sandbox proxy": the policy of an app that declares no domain. */
const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; " +
  "connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

/** Markup that, parsed as HTML anywhere in the app, sets `__pwned` or makes an element. */
const IMG = `<img src=x onerror="globalThis.__pwned='img'">`;
const SCRIPT = `<script>globalThis.__pwned='script'</script>`;
const SVG = `"><svg onload="globalThis.__pwned='svg'">`;

/** A tool's result as the host's client returns it. */
interface ToolResult {
  content: { type: string; text?: string }[];
  // deno-lint-ignore no-explicit-any
  structuredContent?: any;
  isError?: boolean;
}

/** What tests/mcp/app_host/host.ts puts on the host page as `testHost`. */
interface TestHost {
  record: {
    messages: { role: string; content: { type: string; text?: string }[] }[];
    modelContext: unknown[];
    openLinks: unknown[];
    teardowns: number;
  };
  tools: { name: string; _meta?: { ui?: { resourceUri?: string } } }[];
  run(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  show(name: string, args: Record<string, unknown>, result: ToolResult): Promise<void>;
}

/** What the browser did, from every frame of the page. */
interface Watch {
  /** Console errors, uncaught exceptions and dialogs. */
  errors: string[];
  /** Every request, with the depth of its frame: 0 the host, 1 the proxy, 2 the app. */
  requests: { url: string; depth: number; postData: string | null }[];
  /** Where an app frame went other than its own document. */
  navigations: string[];
  /** CSP violations reported in any frame. */
  violations: { frame: string; directive: string; blocked: string }[];
}

/** One drive: the page, the service behind it, and what the browser did. */
interface Drive {
  page: Page;
  service: TestApp;
  watch: Watch;
  sandbox: Origin;
  host: Origin;
}

function depth(frame: Frame): number {
  let n = 0;
  for (let p = frame.parentFrame(); p; p = p.parentFrame()) n++;
  return n;
}

/** In every frame, before its scripts: report CSP violations to the test. */
function reportViolations(): void {
  globalThis.addEventListener("securitypolicyviolation", (event) => {
    const e = event as unknown as { effectiveDirective: string; blockedURI: string };
    const report = (globalThis as unknown as { __cspViolation?: (v: unknown) => void })
      .__cspViolation;
    report?.({ directive: e.effectiveDirective, blocked: e.blockedURI });
  });
}

async function watchBrowser(context: BrowserContext, page: Page): Promise<Watch> {
  const watch: Watch = { errors: [], requests: [], navigations: [], violations: [] };
  await context.exposeBinding("__cspViolation", ({ frame }, v) => {
    const { directive, blocked } = v as { directive: string; blocked: string };
    watch.violations.push({ frame: frame.url(), directive, blocked });
  });
  await context.addInitScript(reportViolations);
  page.on("console", (msg) => {
    if (msg.type() === "error") watch.errors.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => watch.errors.push(`pageerror: ${err.message}`));
  page.on("dialog", (dialog) => {
    watch.errors.push(`dialog: ${dialog.type()} ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  context.on("request", (req) => {
    let frameDepth = -1;
    try {
      frameDepth = depth(req.frame());
    } catch { /* a request of no frame (a worker's) */ }
    watch.requests.push({ url: req.url(), depth: frameDepth, postData: req.postData() });
  });
  page.on("framenavigated", (frame) => {
    if (depth(frame) >= 2 && frame.url() !== "about:srcdoc") watch.navigations.push(frame.url());
  });
  return watch;
}

/** The app the host shows, inside the proxy's frame inside the host's. */
function app(page: Page): FrameLocator {
  return page.frameLocator("#app > iframe").frameLocator("iframe");
}

/** The frame of the app the host shows now. */
function appFrame(page: Page): Frame {
  const frames = page.frames().filter((f) => depth(f) === 2 && !f.isDetached());
  assert.equal(frames.length, 1, `one app frame: ${frames.map((f) => f.url())}`);
  return frames[0]!;
}

type HostPage = { testHost: TestHost };

/** The model calls the tool `name`: the host renders its app and sends input and result. */
function hostRun(page: Page, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return page.evaluate(
    ([n, a]) => (globalThis as unknown as HostPage).testHost.run(n, a),
    [name, args] as const,
  );
}

/** The host renders the app of `name` and sends it this input and this result, whatever. */
function hostShow(
  page: Page,
  name: string,
  args: Record<string, unknown>,
  result: ToolResult,
): Promise<void> {
  return page.evaluate(
    ([n, a, r]) => (globalThis as unknown as HostPage).testHost.show(n, a, r),
    [name, args, result] as const,
  );
}

/** What the app asked of the host so far. */
function hostRecord(page: Page): Promise<TestHost["record"]> {
  return page.evaluate(() => (globalThis as unknown as HostPage).testHost.record);
}

/** Polls `probe` until it gives a value, for up to 30 s (the machine may be busy). */
async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + 30_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}

async function text(page: Page, selector: string): Promise<string> {
  return (await app(page).locator(selector).textContent()) ?? "";
}

async function state(page: Page, selector: string): Promise<string | null> {
  return await app(page).locator(selector).getAttribute("data-state");
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

/** What a look into the app's document finds of markup that should have stayed text. */
interface MarkupFound {
  pwned: string | null;
  images: number;
  handlers: number;
  scripts: number;
  svgs: number;
  text: string;
}

/** Asserts that no markup became an element or ran in the app, and that `shown` is its text. */
async function asText(page: Page, shown: string[]): Promise<void> {
  const found: MarkupFound = await appFrame(page).evaluate(() => {
    // deno-lint-ignore no-explicit-any
    const g = globalThis as any;
    const doc = g.document;
    const inputs = [...doc.querySelectorAll("input")].map((i: { value: string }) => i.value);
    return {
      pwned: g.__pwned ?? null,
      images: doc.querySelectorAll("img, image").length,
      handlers: doc.querySelectorAll("[onerror], [onload]").length,
      scripts: doc.scripts.length,
      svgs: doc.querySelectorAll("svg:not(#map)").length,
      text: `${doc.body.textContent}\n${inputs.join("\n")}`,
    };
  });
  const { text: all, ...made } = found;
  assert.deepEqual(made, { pwned: null, images: 0, handlers: 0, scripts: 1, svgs: 0 });
  for (const s of shown) assert.ok(all.includes(s), `the app shows ${s} as text`);
}

async function findsTheApp({ page }: Drive): Promise<void> {
  const tools = await page.evaluate(() => (globalThis as unknown as HostPage).testHost.tools);
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
  await until("the hostile summary", async () => {
    return (await text(page, "#coverage")).includes(`${IMG} ${SCRIPT} ${SVG}`) ? true : undefined;
  });
  const job = app(page);
  assert.equal(await job.locator("#city").inputValue(), IMG);
  assert.equal(await job.locator("#country").inputValue(), SVG);
  assert.equal(await job.locator("#service").inputValue(), SCRIPT);
  await asText(page, [IMG, SCRIPT, SVG]);
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

/** The host page in a new browser, connected to `mcp`, its sandbox proxy at `sandbox`. */
async function hostPage(hostOrigin: string, mcp: string, sandbox: string) {
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 800, height: 700 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const watch = await watchBrowser(context, page);
  const url = new URL("/", hostOrigin);
  url.searchParams.set("mcp", mcp);
  url.searchParams.set("sandbox", sandbox);
  await page.goto(url.href);
  await page.waitForSelector("body[data-ready=true]", { state: "attached" }).catch((err) => {
    throw new Error(`the host page did not connect: ${err}\n${watch.errors.join("\n")}`);
  });
  return { browser, page, watch };
}

Deno.test({
  name: "the quote builder in a test host (Chromium, AppBridge, sandbox proxy on another " +
    "origin): a person tries cities and jobs, hostile text stays text, one ui/message on " +
    "the click, nothing leaves the frame",
  ignore: browserIgnored("mcp/app_browser_test"),
  async fn(t) {
    await using sandbox = await serveSandbox();
    await using host = await serveHost();
    await using service = await listen({
      env: { ...RATE_LIMITS_OFF, ALLOWED_ORIGINS: host.origin },
    });
    const { browser, page, watch } = await hostPage(
      host.origin,
      `${service.baseUrl}/api/v1/mcp`,
      `${sandbox.origin}/sandbox.html`,
    );
    await using _browser = browser;
    const drive: Drive = { page, service, watch, sandbox, host };
    const steps: [string, (d: Drive) => Promise<void> | void][] = [
      ["the host finds the app on both tools", findsTheApp],
      ["check_coverage Ashburn: covered, its response time", coverageOfAshburn],
      ["estimate_quote 2 × 6 h remote hands: the server's price and basis", async (d) => {
        await estimateInAshburn(d);
        await screenshot(d.page);
      }],
      ["another city, another job: what a direct call answers", anotherCityAndJob],
      ["a refused service: the refusal in words", refusedService],
      ["a city from the map", cityFromTheMap],
      ["markup typed in every field is text", hostileTyping],
      ["markup in every tool input and result field is text", hostileToolInputAndResult],
      ["one ui/message, on the click only", askForAQuote],
      ["no console error, page error or dialog in any frame", (d) => {
        assert.deepEqual(d.watch.errors, []);
      }],
      ["no request, navigation or CSP violation from the app", (d) => nothingLeftTheApp(d)],
      ["the CSP is the spec's default, and holds", policyHolds],
    ];
    for (const [name, step] of steps) {
      const passed = await t.step(name, async () => {
        try {
          await step(drive);
        } catch (err) {
          // What the browser said is often the reason: give it with the failure.
          const said = JSON.stringify(watch.errors, null, 1);
          throw new Error(`${(err as Error).message ?? err}\nthe browser: ${said}`, {
            cause: err,
          });
        }
      });
      if (!passed) break; // each later step needs this one's state
    }
  },
});
