/**
 * @module
 * Test fixtures: an in-process app with its own in-memory KV and fake clock,
 * and the OAuth steps every test needs (register, issue a token).
 */

import assert from "node:assert/strict";
import { createHandler } from "../src/app.ts";
import type { Handler } from "../src/http/admission.ts";
import { type Catalog, loadCatalog } from "../src/catalog/catalog.ts";
import { checkCoverage } from "../src/catalog/coverage.ts";
import { allOutbox } from "../src/store/keys.ts";
import type { OutboxEntry } from "../src/store/outbox.ts";
import { type Config, loadConfig } from "../src/config.ts";
import { Store } from "../src/store/store.ts";
import { sendNotices } from "../src/review/notifier.ts";
import { runReview } from "../src/review/cli.ts";
import { keyBytes, type RemoteStore, remoteStore, valueBytes } from "./_remote_store.ts";

/** A clock that only moves when told to. Starts at 2026-11-22T00:00:00Z. */
export class FakeClock {
  t = Date.UTC(2026, 10, 22);
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

let _catalog: Catalog | undefined;
/** The shipped catalog, loaded once for the whole test run. */
export function catalog(): Catalog {
  return _catalog ??= loadCatalog();
}

/**
 * `count` distinct places of the shipped gazetteer that coverage reads as known but not
 * covered (`known_uncovered`), most populous first, as coverage queries.
 */
export function uncoveredPlaces(count: number): { city: string; country: string }[] {
  const out: { city: string; country: string }[] = [];
  const seen = new Set<string>();
  const { places } = catalog();
  for (let id = 0; id < places.size && out.length < count; id++) {
    const { name, country } = places.place(id);
    const read = checkCoverage(catalog(), { city: name, country });
    const key = JSON.stringify(read.place);
    if (read.match !== "known_uncovered" || seen.has(key)) continue;
    seen.add(key);
    out.push({ city: name, country });
  }
  return out;
}

export interface TestApp extends AsyncDisposable {
  /** The handler, with its demand counter (`handler.demand.flush()` writes its counts). */
  handler: ReturnType<typeof createHandler>;
  kv: Deno.Kv;
  clock: FakeClock;
  config: Config;
  catalog: Catalog;
  /** Every record the handler logged. */
  logs: Record<string, unknown>[];
  /** Calls the handler in-process with a path relative to the base URL. */
  request(path: string, init?: RequestInit & { address?: string }): Promise<Response>;
}

/** What the OAuth helpers below need: an in-process app, or a real process over HTTP. */
export type Requester = Pick<TestApp, "request">;

/** A {@link Requester} for a service listening at `baseUrl` (e.g. one from `startService`). */
export function overHttp(baseUrl: string): Requester {
  return { request: (path, init = {}) => fetch(new URL(path, baseUrl), init) };
}

export interface AppOptions {
  env?: Record<string, string>;
  /**
   * Defaults to a fresh `:memory:` store, closed on dispose; far away (see
   * {@linkcode REMOTE_STORE_VARIABLE}) when the test run asks for it. A `Store` is handed to
   * the handler as it is (its deadline's timings), and `kv` is then the store inside it.
   */
  kv?: Deno.Kv | Store;
  clock?: FakeClock;
  /** Defaults to the shipped catalog. */
  catalog?: Catalog;
}

/**
 * The variable that runs the suite over a far-away store (`deno task test:remote`): its
 * value is the latency in milliseconds of every strong store operation, and the store
 * enforces the limits of denokv and Deno Deploy (tests/_remote_store.ts). Unset, each app
 * gets a plain `:memory:` store.
 */
export const REMOTE_STORE_VARIABLE = "TEST_REMOTE_STORE_MS";

/** A fresh `:memory:` store, far away when {@linkcode REMOTE_STORE_VARIABLE} is set. */
export async function testStore(): Promise<Deno.Kv> {
  const kv = await Deno.openKv(":memory:");
  const latency = Deno.env.get(REMOTE_STORE_VARIABLE);
  return latency === undefined ? kv : remoteStore(kv, { latencyMs: Number(latency) || 0 });
}

/** An app with its own in-memory KV and fake clock. Use with `await using`. */
export async function createApp(options: AppOptions = {}): Promise<TestApp> {
  const config = loadConfig({ BASE_URL: "https://api.test", ...options.env });
  const given = options.kv ?? await testStore();
  const kv = given instanceof Store ? given.kv : given;
  const clock = options.clock ?? new FakeClock();
  const logs: Record<string, unknown>[] = [];
  const served = options.catalog ?? catalog();
  const handler = createHandler({
    kv: given,
    config,
    catalog: served,
    now: clock.now,
    log: (r) => logs.push(r),
  });
  return {
    handler,
    kv,
    clock,
    config,
    catalog: served,
    logs,
    async request(path, init = {}) {
      const { address = "192.0.2.1", ...rest } = init;
      const req = new Request(new URL(path, config.baseUrl), rest);
      return await handler(req, {
        remoteAddr: { transport: "tcp", hostname: address, port: 40000 },
        completed: Promise.resolve(),
      });
    },
    [Symbol.asyncDispose]() {
      if (!options.kv) kv.close();
      _noRefusals(kv);
      return Promise.resolve();
    },
  };
}

/**
 * Over the far-away store, a call it refused is the service breaking a limit of denokv or
 * Deno Deploy, even when the service recovered (a group committed member by member): the
 * test that made it fails.
 */
function _noRefusals(kv: Deno.Kv): void {
  const refusals = (kv as Partial<RemoteStore>).refusals;
  if (refusals?.length) {
    throw new Error(`the store refused ${refusals.length} call(s): ${refusals.join("; ")}`);
  }
}

export interface Client {
  client_id: string;
  client_secret: string;
}

/** `Authorization: Basic` for a client, form-encoding each half (RFC 6749 §2.3.1). */
export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replaceAll("%20", "+");
  return "Basic " + btoa(`${enc(id)}:${enc(secret)}`);
}

/** Registers an anonymous client, asserting success. */
export async function registerClient(app: Requester, scope?: string): Promise<Client> {
  const res = await app.request("/agent/identity", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(
      scope === undefined ? { type: "anonymous" } : { type: "anonymous", scope },
    ),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

/** Request options for a streamed (chunked) body; Deno's `RequestInit` type lacks `duplex`. */
export function streamed(init: RequestInit & { body: ReadableStream<Uint8Array> }): RequestInit {
  return { ...init, duplex: "half" } as RequestInit;
}

/** A POST of `body`: a string as it is, a stream chunked (see {@link streamed}). */
function postOf(
  headers: Record<string, string>,
  body: string | ReadableStream<Uint8Array>,
): RequestInit {
  return typeof body === "string"
    ? { method: "POST", headers, body }
    : streamed({ method: "POST", headers, body });
}

/**
 * Sends a token request with the client's Basic credentials and a form body: the form's
 * fields, its text, or a stream of it sent chunked.
 */
export function tokenRequest(
  app: Requester,
  client: Client,
  form: Record<string, string> | string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
  address?: string,
): Promise<Response> {
  const body = typeof form === "string" || form instanceof ReadableStream
    ? form
    : new URLSearchParams(form).toString();
  const init = postOf({
    "Authorization": basic(client.client_id, client.client_secret),
    "Content-Type": "application/x-www-form-urlencoded",
    ...headers,
  }, body);
  return app.request("/oauth2/token", address === undefined ? init : { ...init, address });
}

/** Issues an access token, asserting success. */
export async function issueToken(app: Requester, client: Client, scope?: string): Promise<string> {
  const form: Record<string, string> = { grant_type: "client_credentials" };
  if (scope !== undefined) form.scope = scope;
  const res = await tokenRequest(app, client, form);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).access_token;
}

/** Sends a revocation request with the client's Basic credentials; in-process, from `address`. */
export function revokeRequest(
  app: Requester,
  client: Client,
  token: string,
  address?: string,
): Promise<Response> {
  const init = {
    method: "POST",
    headers: {
      "Authorization": basic(client.client_id, client.client_secret),
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
  };
  return app.request("/oauth2/revoke", address === undefined ? init : { ...init, address });
}

/** GET with a Bearer token. */
export function bearerGet(app: Requester, path: string, token: string): Promise<Response> {
  return app.request(path, { headers: { Authorization: `Bearer ${token}` } });
}

/**
 * POSTs JSON (an object, a raw string body, or a stream of it sent chunked) to a path;
 * in-process, from `address` if given.
 */
export function post(
  app: Requester,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  address?: string,
): Promise<Response> {
  const init = postOf(
    { "Content-Type": "application/json", ...headers },
    typeof body === "string" || body instanceof ReadableStream ? body : JSON.stringify(body),
  );
  return app.request(path, address === undefined ? init : { ...init, address });
}

/**
 * For fixtures that submit one body many times as many requests: the same body from the same
 * address within 10 minutes is one request, whatever its key. The returned function gives a
 * body back as it is the first time, and with " (n)" after its description the nth time.
 */
export function repeatsAnew(): <T>(body: T) => T {
  const seen = new Map<string, number>();
  return <T>(body: T): T => {
    const text = JSON.stringify(body);
    const n = (seen.get(text) ?? 0) + 1;
    seen.set(text, n);
    const { description } = (body ?? {}) as { description?: unknown };
    return n === 1 || typeof description !== "string"
      ? body
      : { ...body, description: `${description} (${n})` };
  };
}

/** Every review notice waiting to be sent, by request id: a whole read, for tests only. */
export function outboxEntries(kv: Deno.Kv): Promise<Deno.KvEntry<OutboxEntry>[]> {
  return Array.fromAsync(kv.list<OutboxEntry>(allOutbox()));
}

/** How many submission records the store holds. */
export async function countSubmissions(app: Pick<TestApp, "kv">): Promise<number> {
  return (await Array.fromAsync(app.kv.list({ prefix: ["submissions"] }))).length;
}

/**
 * Bytes the store holds as KV counts them (keys tuple-encoded, values V8-serialised unless
 * bytes), rate counters and the email index's key (one per store) aside: what the
 * submissions stored add.
 */
export async function storedBytes(kv: Deno.Kv): Promise<number> {
  let bytes = 0;
  for await (const e of kv.list({ prefix: [] })) {
    if (e.key[0] === "rate_counters" || e.key[0] === "email_index_key") continue;
    bytes += keyBytes(e.key) + valueBytes(e.value);
  }
  return bytes;
}

/** POSTs a JSON-RPC message (an object or raw text) to the MCP endpoint, accepting JSON or SSE. */
export function mcpPost(
  app: Requester,
  message: unknown,
  headers: Record<string, string> = {},
  address?: string,
): Promise<Response> {
  return post(app, "/api/v1/mcp", message, {
    Accept: "application/json, text/event-stream",
    ...headers,
  }, address);
}

/** What an MCP `tools/call` answers: `structuredContent`, `isError` and the rest. */
export interface McpToolResult {
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** One MCP `tools/call` (stateless 2025-11-25, one JSON-RPC request) from `address`. */
export function mcpToolRequest(
  app: Requester,
  name: string,
  args: unknown,
  address?: string,
): Promise<Response> {
  return mcpPost(
    app,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    },
    { "MCP-Protocol-Version": "2025-11-25" },
    address,
  );
}

/** The JSON-RPC `result` of an MCP answer's text: JSON, or one server-sent event holding it. */
// deno-lint-ignore no-explicit-any
export function mcpResult(text: string): any {
  return JSON.parse(text.slice(text.indexOf("{"))).result;
}

/** Calls one MCP tool from `address`: the answer's text and its result. */
export async function mcpToolAnswer(
  app: Requester,
  name: string,
  args: unknown,
  address?: string,
): Promise<{ text: string; result: McpToolResult }> {
  const text = await (await mcpToolRequest(app, name, args, address)).text();
  return { text, result: mcpResult(text) };
}

/** Calls one MCP tool, as {@linkcode mcpToolAnswer}, and returns its result. */
export async function mcpToolCall(
  app: Requester,
  name: string,
  args: unknown,
  address?: string,
): Promise<McpToolResult> {
  return (await mcpToolAnswer(app, name, args, address)).result;
}

/**
 * One delivery attempt of every pending review notice that fails with a 1,000-character
 * error beyond Latin-1: the notice then stores the longest reason, at two bytes a character.
 */
export async function failDelivery(app: TestApp): Promise<void> {
  await sendNotices({
    kv: app.kv,
    config: loadConfig({ REVIEW_WEBHOOK_URL: "https://hooks.test/review" }),
    now: app.clock.now,
    log: () => {},
    fetch: () => Promise.reject(new Error("\u0100".repeat(1_000))),
  });
}

/** Runs one review CLI command in-process on the app's store and clock: exit code and output. */
export async function reviewCli(
  app: Pick<TestApp, "kv" | "clock">,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runReview(args, {
    kv: app.kv,
    now: app.clock.now,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Starts the handler on a free loopback port; the base URL is the real address. */
export async function listen(
  options: AppOptions = {},
  /**
   * The host of the base URL (the server listens on 127.0.0.1 either way): `localhost` for
   * a browser test of passkeys, whose WebAuthn RP ID must be a domain, not an IP address.
   */
  host = "127.0.0.1",
): Promise<TestApp & { baseUrl: string; server: Deno.HttpServer }> {
  // The handler needs the base URL, which is known only once the port is bound.
  const target: { handler?: Handler } = {};
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req, info) => target.handler!(req, info),
  );
  const baseUrl = `http://${host}:${server.addr.port}`;
  const app = await createApp({ ...options, env: { BASE_URL: baseUrl, ...options.env } });
  target.handler = app.handler;
  return {
    ...app,
    baseUrl,
    server,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await app[Symbol.asyncDispose]();
    },
  };
}
