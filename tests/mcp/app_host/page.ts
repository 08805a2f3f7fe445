/**
 * @module
 * What the browser test sees of the test host: the host page opened in headless Chromium,
 * with everything every frame does watched (console errors, uncaught exceptions, dialogs,
 * requests by the depth of their frame, an app frame's navigations, CSP violations reported
 * from inside each frame); the host's `testHost` (host.ts) called from the test; the app's
 * frame inside the proxy's; and polling with generous bounds.
 */

import assert from "node:assert/strict";
import type { BrowserContext, Frame, FrameLocator, Page } from "npm:playwright-core@1.65.1";
import { launch } from "../../_browser.ts";

/** A tool's result as the host's client returns it. */
export interface ToolResult {
  content: { type: string; text?: string }[];
  // deno-lint-ignore no-explicit-any
  structuredContent?: any;
  isError?: boolean;
}

/** What tests/mcp/app_host/host.ts puts on the host page as `testHost`. */
export interface TestHost {
  record: {
    messages: { role: string; content: { type: string; text?: string }[] }[];
    modelContext: unknown[];
    openLinks: unknown[];
    teardowns: number;
    apps: { uri: string; csp?: unknown }[];
  };
  tools: { name: string; _meta?: { ui?: { resourceUri?: string } } }[];
  run(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  show(name: string, args: Record<string, unknown>, result: ToolResult): Promise<void>;
}

/** What the browser did, from every frame of the page. */
export interface Watch {
  /** Console errors, uncaught exceptions and dialogs. */
  errors: string[];
  /** Every request, with the depth of its frame: 0 the host, 1 the proxy, 2 the app. */
  requests: { url: string; depth: number; postData: string | null }[];
  /** Where an app frame went other than its own document. */
  navigations: string[];
  /** CSP violations reported in any frame. */
  violations: { frame: string; directive: string; blocked: string }[];
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

/** Starts watching every frame of `page`, before it loads anything. */
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
export function app(page: Page): FrameLocator {
  return page.frameLocator("#app > iframe").frameLocator("iframe");
}

/** The frame of the app the host shows now. */
export function appFrame(page: Page): Frame {
  const frames = page.frames().filter((f) => depth(f) === 2 && !f.isDetached());
  assert.equal(frames.length, 1, `one app frame: ${frames.map((f) => f.url())}`);
  return frames[0]!;
}

type HostPage = { testHost: TestHost };

/** The model calls the tool `name`: the host renders its app and sends input and result. */
export function hostRun(
  page: Page,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return page.evaluate(
    ([n, a]) => (globalThis as unknown as HostPage).testHost.run(n, a),
    [name, args] as const,
  );
}

/** The host renders the app of `name` and sends it this input and this result, whatever. */
export function hostShow(
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

/** `tools/list` as the host got it. */
export function hostTools(page: Page): Promise<TestHost["tools"]> {
  return page.evaluate(() => (globalThis as unknown as HostPage).testHost.tools);
}

/** What the app asked of the host so far. */
export function hostRecord(page: Page): Promise<TestHost["record"]> {
  return page.evaluate(() => (globalThis as unknown as HostPage).testHost.record);
}

/** Polls `probe` until it gives a value, for up to 30 s (the machine may be busy). */
export async function until<T>(
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

export async function text(page: Page, selector: string): Promise<string> {
  return (await app(page).locator(selector).textContent()) ?? "";
}

export async function state(page: Page, selector: string): Promise<string | null> {
  return await app(page).locator(selector).getAttribute("data-state");
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
export async function asText(page: Page, shown: string[]): Promise<void> {
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

/**
 * The host page in a new browser (800 × 700, steps waiting up to 30 s), connected to the MCP
 * endpoint `mcp` in the SDK's `auto` negotiation (2026-07-28) or its `legacy` one
 * (2025-11-25, initialize), its sandbox proxy at `sandbox`. The browser closes on dispose, or here if
 * the page never connects.
 */
export async function hostPage(
  hostOrigin: string,
  mcp: string,
  sandbox: string,
  era: "auto" | "legacy" = "auto",
) {
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 800, height: 700 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const watch = await watchBrowser(context, page);
    const url = new URL("/", hostOrigin);
    url.searchParams.set("mcp", mcp);
    url.searchParams.set("sandbox", sandbox);
    url.searchParams.set("era", era);
    await page.goto(url.href);
    await page.waitForSelector("body[data-ready=true]", { state: "attached" }).catch((err) => {
      throw new Error(`the host page did not connect: ${err}\n${watch.errors.join("\n")}`);
    });
    return { browser, page, watch };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
