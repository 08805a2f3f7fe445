/**
 * The quote builder attacked with what its host hands it, in Chromium (tests/mcp/_app_frame.ts:
 * the test is the host): markup and script in every value the model or the host can send
 * (tool input, tool results of every shape, the host's context and style variables), under
 * the host's default CSP or none; and the narrow frame and the keyboard. Nothing may become
 * markup, run script, log an error or make a request.
 */

import assert from "node:assert/strict";
import type { Browser } from "npm:playwright-core@1.65.1";
import { browserIgnored, launch } from "../_browser.ts";
import { clean, H, JOB, openApp, shown, text, until } from "./_app_frame.ts";

const HOSTILE_INPUTS: unknown[] = [
  {
    city: H,
    country: H,
    service_type: H,
    engineer_count: H,
    estimated_hours: H,
    requested_date: H,
    requested_time: H,
    out_of_hours: H,
  },
  { city: { toString: H }, country: [H], service_type: null, engineer_count: 1e308 },
  { city: "x".repeat(100_000), engineer_count: "NaN", estimated_hours: -Infinity },
  JSON.parse(`{"__proto__": {"city": "polluted"}, "constructor": {"prototype": {"x": 1}}}`),
  [],
  null,
  H,
];

function hostileResults(): unknown[] {
  const coverage = {
    query: { city: H },
    covered: true,
    location: { id: H, city: H, country: H, region: H },
    services: [{ name: H }, null, 5],
    response_time_hours: H,
    nearest: [{ id: H, city: H, country: H, distance_km: 1e308, response_time_hours: NaN }, H],
    summary: H,
  };
  const basis = {
    engineers: H,
    hours: [],
    hourly_rate: null,
    contingency: "5",
    hours_out_of_hours: "3",
    call_out_fee: [7],
    short_notice: H,
    notice_hours: H,
  };
  const estimate = { currency: H, tax: H, note: H, low: 1140, high: 1425, basis, non_binding: H };
  return [
    { structuredContent: { ok: true, coverage } },
    {
      structuredContent: {
        ok: true,
        service_id: H,
        coverage,
        budget_estimate: { ...estimate, assumptions: [{ why: H }, null, H] },
      },
    },
    {
      structuredContent: { ok: true, coverage, budget_estimate: { ...estimate, low: H, high: {} } },
    },
    { structuredContent: { ok: true, budget_estimate: 1, coverage: 1 } },
    { structuredContent: { ok: true, budget_estimate: [], coverage: [] } },
    { structuredContent: { ok: true, budget_estimate: { basis: { contingency: 1e308 } } } },
    { structuredContent: { ok: false, message: H, issues: [{ path: "city", message: H }, null] } },
    { structuredContent: { ok: false, message: H, issues: H }, isError: true },
    { structuredContent: null, content: [{ type: "text", text: H }], isError: true },
    { content: [{ type: "text", text: H }] },
    { content: H },
    { structuredContent: H },
    { structuredContent: [] },
    {},
    JSON.parse(`{"structuredContent": {"ok": true, "__proto__": {"budget_estimate": {"low": 1}}}}`),
    { structuredContent: { ok: true, coverage: { summary: "x".repeat(1_000_000) } } },
  ];
}

const HOSTILE_CONTEXTS: unknown[] = [
  null,
  H,
  [],
  { theme: H, locale: H, styles: H, toolInfo: H, displayMode: H },
  { theme: "dark", locale: "x".repeat(100_000), styles: { variables: null } },
  { styles: { variables: Object.fromEntries([...Array(5000).keys()].map((i) => [`--${i}`, H])) } },
  { styles: { variables: { "--color-text-primary": H, [H]: "red" }, css: { fonts: H } } },
  { toolInfo: { tool: { name: "submit_lead" } } },
];

async function hostileValues(browser: Browser) {
  await using app = await openApp(browser);
  await app.notify("ui/notifications/tool-input", { arguments: HOSTILE_INPUTS[0] });
  await clean(app);
  assert.equal(await app.frame.locator("#city").inputValue(), H, "the city as text");
  assert.equal(await app.frame.locator("#service").inputValue(), H);
  for (const args of HOSTILE_INPUTS) {
    await app.notify("ui/notifications/tool-input", { arguments: args });
  }
  for (const params of [null, H, []]) await app.notify("ui/notifications/tool-input", params);
  await clean(app);

  for (const result of hostileResults()) {
    await app.notify("ui/notifications/tool-result", result);
    await clean(app);
  }
  const [, estimate, ...others] = hostileResults();
  await app.notify("ui/notifications/tool-result", estimate);
  await app.settle();
  assert.equal(await text(app, "#coverage-summary"), H);
  assert.match(await text(app, "#coverage-details"), /<img src="x"/);
  assert.match(await text(app, "#assumptions"), /<script>/);
  assert.match(await text(app, "#ask-preview"), /<img src="x"/, "the message too, as text");
  const refusal = others.find((r) => /"ok":false/.test(JSON.stringify(r)));
  await app.notify("ui/notifications/tool-result", refusal);
  await app.settle();
  assert.equal(await text(app, "#coverage-summary"), H);
  const estimateState = await app.frame.locator("#estimate").getAttribute("data-state");
  assert.equal(estimateState, "idle", "a coverage refusal leaves no price beside it");
  for (const context of HOSTILE_CONTEXTS) {
    await app.notify("ui/notifications/host-context-changed", context);
  }
  await app.notify("ui/notifications/tool-cancelled", { reason: H });
  await clean(app);
  assert.equal(app.of("tools/call").length, 0, "a notification calls no tool");
  assert.equal(app.of("ui/message").length, 0, "a notification sends no message");
}

async function wrongShape(browser: Browser) {
  await using app = await openApp(browser);
  await shown(app, "estimate_quote", JOB);
  const good = await app.call("estimate_quote", { ...JOB, city: "Madrid" }) as {
    structuredContent: Record<string, unknown> & { budget_estimate: Record<string, unknown> };
  };
  const data = good.structuredContent;
  const shapes = [
    { ...data, coverage: undefined },
    { ...data, coverage: "Madrid" },
    { ...data, budget_estimate: 1 },
    { ...data, budget_estimate: { ...data.budget_estimate, low: "1,140" } },
    { ...data, budget_estimate: { ...data.budget_estimate, high: null } },
  ];
  for (const structuredContent of shapes) {
    await app.notify("ui/notifications/tool-result", { content: [], structuredContent });
    await app.settle();
    const state = await app.frame.locator("#coverage").getAttribute("data-state");
    const said = JSON.stringify(structuredContent).slice(0, 80);
    assert.equal(state, "idle", `no coverage, not Frankfurt's: ${said}`);
    assert.equal(await app.frame.locator("#estimate").getAttribute("data-state"), "idle", said);
    assert.equal(await app.frame.locator("#ask").isDisabled(), true, `nothing to ask: ${said}`);
    assert.equal(await text(app, "#status"), "The chat passed on an answer this app cannot read.");
  }
  await app.notify("ui/notifications/tool-result", good);
  await app.settle();
  assert.match(await text(app, "#coverage-summary"), /^Madrid, ES is covered/);
  assert.equal(await app.frame.locator("#estimate").getAttribute("data-state"), "priced");
  // The person drops the service and names a country the service refuses: no price stays.
  await app.frame.locator("#service").fill("");
  await app.frame.locator("#country").fill("Atlantis");
  await until("the refusal", async () => /Atlantis|country/.test(await text(app, "#coverage")));
  assert.equal(await app.frame.locator("#estimate").getAttribute("data-state"), "idle");
  assert.equal(await text(app, "#price"), "Choose a service to see a price.");
  await clean(app);
}

/** Theme values a host might send that load something, or could: none may reach a style. */
const LOADING = [
  "url(https://evil.example/u)",
  'src("https://evil.example/s")',
  "image-set('https://evil.example/i' 1x)",
  "cross-fade(src('https://evil.example/c'), red 50%)",
  "element(#price)",
  "paint(x)",
  "u/**/rl(https://evil.example/c)",
  "red; background: url(https://evil.example/b)",
  "red !important",
  "}</style><script>parent.postMessage('xss','*')</script>",
  "expression(alert(1))",
  "\\75 rl(https://evil.example/e)",
  "var(--x, url(https://evil.example/v))",
  "attr(data-city)",
];
/** What a host sends in practice, which the app takes. */
const THEME = {
  "--color-background-primary": "light-dark(rgba(250, 249, 245, 1), rgb(31 30 29 / 1))",
  "--color-text-primary": "#1f1e1d",
  "--font-sans": '"Anthropic Sans", system-ui, sans-serif',
  "--font-text-md-size": "calc(0.875rem + 1px)",
  "--border-radius-md": "8px",
  "--shadow-sm": "0 1px 2px 0 oklch(0% 0 0 / 0.05)",
};

async function themeVariables(browser: Browser) {
  // No CSP at all: what the app takes must load nothing by itself.
  await using app = await openApp(browser, { csp: false });
  const names = ["--color-background-primary", "--color-background-secondary", "--color-text-info"];
  for (const value of LOADING) {
    const variables = Object.fromEntries(names.map((name) => [name, value]));
    await app.notify("ui/notifications/host-context-changed", { styles: { variables } });
  }
  const other = { "--qb-bg": "red", "--x": "red", "color": "red", "--color-": "red" };
  await app.notify("ui/notifications/host-context-changed", { styles: { variables: other } });
  await clean(app);
  const style = () =>
    app.frame.evaluate(() =>
      (globalThis as unknown as { document: { documentElement: { style: { cssText: string } } } })
        .document.documentElement.style.cssText
    );
  assert.equal(await style(), "color-scheme: light;", "no variable taken");
  await app.notify("ui/notifications/host-context-changed", {
    theme: "dark",
    styles: { variables: THEME },
  });
  await clean(app);
  const expected = Object.entries(THEME).map(([name, value]) => `${name}: ${value};`).join(" ");
  assert.equal(await style(), `color-scheme: dark; ${expected}`, "the theme taken");
}

async function narrowAndKeyboard(browser: Browser) {
  await using app = await openApp(browser, { width: 360 });
  await shown(app, "estimate_quote", { ...JOB, city: "Springfield", country: "US" });
  const overflow = await app.frame.evaluate(() => {
    const root = (globalThis as unknown as {
      document: { documentElement: { scrollWidth: number; clientWidth: number } };
    }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  assert.equal(overflow, 0, "no horizontal overflow at 360 px");
  const focused = () =>
    app.frame.evaluate(() =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } })
        .document.activeElement?.id ?? ""
    );
  await app.frame.locator("#city").focus();
  const order = [await focused()];
  for (let i = 0; i < 20 && order.at(-1) !== "out-of-hours"; i++) {
    await app.page.keyboard.press("Tab");
    if ((await focused()) !== order.at(-1)) order.push(await focused());
  }
  assert.deepEqual(order, [
    "city",
    "country",
    "service",
    "engineers",
    "hours",
    "date",
    "time",
    "out-of-hours",
  ]);
  await app.page.keyboard.press("Tab");
  assert.equal(await focused(), "ask", "the ask button comes next");
  await clean(app);
}

async function flood(browser: Browser) {
  await using app = await openApp(browser);
  const messages = [
    { method: "ui/notifications/tool-result", params: await app.call("check_coverage", JOB) },
    {
      method: "ui/notifications/tool-result",
      params: await app.call("estimate_quote", { ...JOB, city: "Madrid" }),
    },
    { method: "ui/notifications/host-context-changed", params: { theme: "dark" } },
    { method: "ui/notifications/tool-input-partial", params: { arguments: { city: H } } },
    { id: "flood", method: "ping", params: {} },
  ];
  const before = app.sent.length;
  // Posted in one burst from the host's page, 4,000 notifications and 1,000 pings.
  await app.page.evaluate((messages) => {
    const w = globalThis as unknown as {
      document: {
        getElementById(id: string): { contentWindow: { postMessage(m: unknown, o: string): void } };
      };
    };
    const target = w.document.getElementById("app").contentWindow;
    for (let i = 0; i < 1000; i++) {
      for (const m of messages) target.postMessage({ jsonrpc: "2.0", ...m }, "*");
    }
  }, messages);
  await until(
    "every ping answered",
    () => app.sent.filter((m) => m.id === "flood").length === 1000,
  );
  await clean(app);
  assert.match(await text(app, "#coverage-summary"), /^Madrid, ES is covered/, "the last one");
  const sent = app.sent.slice(before).filter((m) =>
    m.id !== "flood" && !m.id?.toString().startsWith("settle")
  );
  assert.deepEqual(
    [...new Set(sent.map((m) => m.method))].filter((m) => m !== "ui/notifications/size-changed"),
    [],
    "nothing but its size, however many notifications",
  );
}

/** Each attack, on a page of its own. */
const ATTACKS: [string, (browser: Browser) => Promise<void>][] = [
  ["markup in every value the model or the host sends stays text", hostileValues],
  ["an accepted answer missing what is shown is shown as unreadable", wrongShape],
  ["host style variables: the theme's, loading nothing, CSP or not", themeVariables],
  ["a flood of notifications and pings: answered, nothing else sent", flood],
  ["360 px wide, and every field by keyboard", narrowAndKeyboard],
];

Deno.test({
  name: "the quote builder under a hostile host: every value stays text, loading nothing",
  ignore: browserIgnored("app_hostile_test"),
  async fn(t) {
    await using browser = await launch();
    for (const [name, attack] of ATTACKS) await t.step(name, () => attack(browser));
  },
});
