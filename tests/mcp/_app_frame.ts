/**
 * A hostile MCP host for the quote builder, in Debian's Chromium (playwright-core): the test
 * plays the host itself. It reads the app through `resources/read` on the real handler,
 * renders it in a sandboxed iframe (`srcdoc`, `sandbox="allow-scripts"`, an opaque origin as
 * a host's inner frame has) under the restrictive default CSP of the MCP Apps extension, or
 * under none (a host whose CSP is looser than the default), and speaks the postMessage
 * JSON-RPC bridge from the parent page: it answers `ui/initialize`, proxies `tools/call` to the
 * real service (or holds it, for the test to answer later, out of order, or never) and takes
 * `ui/message`. It records every message the view posts, every page error and console error,
 * and every request the page makes: the page is about:blank and the app loads nothing, so any
 * request at all is one leaving the frame (each is aborted before it leaves the machine).
 */

import assert from "node:assert/strict";
import type { Browser, Frame, Page } from "npm:playwright-core@1.65.1";
import { createApp, mcpPost, mcpResult, type TestApp } from "../_helpers.ts";

/** The restrictive CSP a host applies when `_meta.ui.csp` is empty (MCP Apps 2026-01-26). */
const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; " +
  "connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

const URI = "ui://dc-field-services/quote-builder";
const LEGACY = { "MCP-Protocol-Version": "2025-11-25" };

/** A JSON-RPC message as the view posts it. */
// deno-lint-ignore no-explicit-any
export type Message = { id?: number | string; method?: string; params?: any; result?: any };

export interface HostOptions {
  /** The default CSP as a `<meta>` in the document (true), or no CSP at all (false). */
  csp?: boolean;
  /** The `hostContext` of the `ui/initialize` answer. */
  hostContext?: unknown;
  /** Width of the app's frame, px. */
  width?: number;
  /** Playwright's clock in the page, for a test to jump past the app's timeouts. */
  clock?: boolean;
}

/** The host, the app's frame and what was seen. */
export interface AppFrame extends AsyncDisposable {
  page: Page;
  frame: Frame;
  service: TestApp;
  /** Every message the view posted, in order. */
  sent: Message[];
  /** Page errors and console errors, of the page and the frame. */
  errors: string[];
  /** Every request made, by URL (all aborted). */
  requests: string[];
  /** What the host holds instead of answering at once. */
  hold: { tools: boolean; message: boolean };
  /** Requests held, in the order they came. */
  held: Message[];
  /** Posts a message to the view from the host (its parent window). */
  post(message: Record<string, unknown>): Promise<void>;
  /** A notification from the host. */
  notify(method: string, params: unknown): Promise<void>;
  /** The service's real answer to a `tools/call` the view sent, posted back to it. */
  answer(request: Message): Promise<void>;
  /** The service's result for a call, as a host would relay it. */
  call(name: string, args: unknown): Promise<unknown>;
  /** Resolves once the view has handled everything posted to it before (a ping round trip). */
  settle(): Promise<void>;
  /** The messages the view sent of one method. */
  of(method: string): Message[];
}

/** Polls `check` until it holds, for at most 30 s (a busy machine): never a tight timing. */
export async function until(what: string, check: () => boolean | Promise<boolean>) {
  const end = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What the page-side functions below see: the DOM, without Deno's types having it. */
interface PageWindow {
  document: {
    createElement(tag: "iframe"): Frame$;
    getElementById(id: string): Frame$ | null;
    body: { append(node: unknown): void };
  };
  addEventListener(type: "message", f: (e: { source: unknown; data: unknown }) => void): void;
  __fromApp(message: unknown): void;
}
interface Frame$ {
  id: string;
  name: string;
  srcdoc: string;
  style: { width: string; height: string; border: string };
  contentWindow: { postMessage(message: unknown, origin: string): void } | null;
  setAttribute(name: string, value: string): void;
}

/** The document the service serves, as a host reads it (in-process, the public handler). */
export async function readApp(service: TestApp): Promise<string> {
  const res = await mcpPost(service, {
    jsonrpc: "2.0",
    id: 1,
    method: "resources/read",
    params: { uri: URI },
  }, LEGACY);
  assert.equal(res.status, 200);
  return mcpResult(await res.text()).contents[0].text;
}

/** Opens the app in a new page of `browser`, behind this test's host; waits for the handshake. */
export async function openApp(browser: Browser, options: HostOptions = {}): Promise<AppFrame> {
  const service = await createApp();
  const html = await readApp(service);
  const doc = options.csp === false ? html : html.replace(
    "<head>",
    `<head><meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`,
  );
  const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
  page.setDefaultTimeout(30_000);
  const host = _host(page, service, options);
  await page.route("**/*", (route) => {
    host.requests.push(route.request().url());
    return route.abort();
  });
  page.on("pageerror", (e) => host.errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") host.errors.push(`console: ${m.text()}`);
  });
  await page.exposeBinding("__fromApp", (_source, message: Message) => host.receive(message));
  if (options.clock) await page.clock.install();
  await page.evaluate(({ doc, width }) => {
    const w = globalThis as unknown as PageWindow;
    const frame = w.document.createElement("iframe");
    frame.id = frame.name = "app";
    frame.setAttribute("sandbox", "allow-scripts");
    frame.style.width = `${width}px`;
    frame.style.height = "1300px";
    frame.style.border = "0";
    w.addEventListener("message", (e) => {
      if (e.source === frame.contentWindow) w.__fromApp(e.data);
    });
    frame.srcdoc = doc;
    w.document.body.append(frame);
  }, { doc, width: options.width ?? 640 });
  await until("the handshake", () => host.of("ui/notifications/initialized").length === 1);
  const frame = page.frame({ name: "app" });
  assert.ok(frame, "the app's frame");
  return Object.assign(host, {
    page,
    frame,
    service,
    async [Symbol.asyncDispose]() {
      await page.close();
      await service[Symbol.asyncDispose]();
    },
  });
}

function _host(page: Page, service: TestApp, options: HostOptions) {
  const sent: Message[] = [];
  let pings = 0;
  const post = (message: Record<string, unknown>) =>
    page.evaluate((m) => {
      const w = globalThis as unknown as PageWindow;
      w.document.getElementById("app")!.contentWindow!.postMessage(m, "*");
    }, { jsonrpc: "2.0", ...message });
  const call = async (name: string, args: unknown) => {
    const params = { name, arguments: args };
    const res = await mcpPost(
      service,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params },
      LEGACY,
    );
    return mcpResult(await res.text());
  };
  const host = {
    sent,
    errors: [] as string[],
    requests: [] as string[],
    hold: { tools: false, message: false },
    held: [] as Message[],
    post,
    notify: (method: string, params: unknown) => post({ method, params }),
    call,
    answer: async (request: Message) =>
      post({ id: request.id, result: await call(request.params.name, request.params.arguments) }),
    of: (method: string) => sent.filter((m) => m.method === method),
    async settle() {
      const id = `settle-${++pings}`;
      await post({ id, method: "ping", params: {} });
      await until(`the answer to ${id}`, () => sent.some((m) => m.id === id && "result" in m));
    },
    async receive(message: Message) {
      sent.push(message);
      if (message.method === "ui/initialize") {
        await post({ id: message.id, result: _initialized(options.hostContext) });
      } else if (message.method === "tools/call") {
        if (host.hold.tools) host.held.push(message);
        else await host.answer(message);
      } else if (message.method === "ui/message") {
        if (host.hold.message) host.held.push(message);
        else await post({ id: message.id, result: {} });
      } else if (message.id !== undefined && message.method) {
        await post({ id: message.id, error: { code: -32601, message: "Method not found" } });
      }
    },
  };
  return host;
}

function _initialized(hostContext: unknown) {
  return {
    protocolVersion: "2026-01-26",
    hostInfo: { name: "hostile-test-host", version: "1" },
    hostCapabilities: { serverTools: {}, message: { text: {} } },
    hostContext: hostContext ?? { theme: "light", locale: "en-US" },
  };
}

/** Markup that, if it ever became markup, would post "xss" to the host or make a request. */
export const H = `<img src="x" onerror="parent.postMessage('xss','*')">` +
  `<script>parent.postMessage('xss','*')</script><a href="https://evil.example/">x</a>`;

export const JOB = {
  city: "Frankfurt",
  service_type: "remote hands",
  engineer_count: 2,
  estimated_hours: 6,
};

/** What the frame's DOM holds that the app's own document does not: elements, handlers. */
interface Dom {
  document: {
    querySelectorAll(s: string): ArrayLike<{ attributes: ArrayLike<{ name: string }> }>;
  };
}

async function foreignMarkup(app: AppFrame): Promise<{ tags: number; handlers: number }> {
  const tags = await app.frame.locator("img, iframe, object, embed, link, a, image, foreignObject")
    .count();
  const scripts = await app.frame.locator("script").count();
  const handlers = await app.frame.evaluate(() =>
    Array.from((globalThis as unknown as Dom).document.querySelectorAll("*"))
      .flatMap((e) => Array.from(e.attributes))
      .filter((a) => a.name.startsWith("on")).length
  );
  return { tags: tags + scripts - 1, handlers };
}

/** Nothing went wrong that the person or the host could notice. */
export async function clean(app: AppFrame) {
  await app.settle();
  assert.deepEqual(app.errors, [], "no page or console error");
  assert.deepEqual(app.requests, [], "no request left the frame");
  assert.deepEqual(await foreignMarkup(app), { tags: 0, handlers: 0 }, "no element added");
  assert.deepEqual(app.sent.filter((m) => typeof m !== "object"), [], "no script ran");
  assert.deepEqual(app.of("ui/update-model-context"), []);
}

export async function text(app: AppFrame, selector: string): Promise<string> {
  return (await app.frame.locator(selector).textContent()) ?? "";
}

/** The model's call shown: its input, then the service's answer to it. */
export async function shown(app: AppFrame, name: string, args: Record<string, unknown>) {
  await app.notify("ui/notifications/tool-input", { arguments: args });
  await app.notify("ui/notifications/tool-result", await app.call(name, args));
  await app.settle();
}
