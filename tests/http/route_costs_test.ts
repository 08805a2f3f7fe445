/**
 * Every route and every MCP tool costs what it is worth: each is either as cheap as a catalog
 * read at its worst input (bounded query and body, no work that grows with what the caller
 * sends beyond a small constant) or rate limited. The tables below classify each one; a
 * route of the table (buildRoutes) or a tool of tools/list missing from them fails, so a new
 * one must be classified. A `limited` one is shown refusing with 429 (or a `rate_limited`
 * tool error) at a limit of 1; a `cheap` one gets its worst input over a real port, and its
 * answer must be bounded: no bigger than its plain answer (plus 1 KiB), within a generous
 * time (seconds: figures are for bench/flood.ts, not for tests).
 */
import assert from "node:assert/strict";
import { QUERY_LIMITS } from "../../src/http/query.ts";
import { buildRoutes } from "../../src/routes.ts";
import {
  createApp,
  issueToken,
  listen,
  mcpPost,
  mcpResult,
  mcpToolAnswer,
  registerClient,
  type Requester,
} from "../_helpers.ts";

/** Far more than any answer here takes on a loaded machine, far less than a hang. */
const GENEROUS_MS = 5_000;

/** What a cheap route's worst request adds: 7,500 parameters, about 60 KB (Deno's URL cap is 64 KiB). */
const JUNK = Array.from({ length: 7_500 }, (_, i) => `x${i}=1`).join("&");

/** A path parameter at its worst: 30,000 characters (the junk query gets the rest). */
const LONG = "a".repeat(30_000);

/** `path` with as much of {@linkcode JUNK} as keeps the whole under 60,000 characters. */
function withJunk(path: string): string {
  const room = 60_000 - path.length - 1;
  const junk = JUNK.length <= room ? JUNK : JUNK.slice(0, JUNK.lastIndexOf("&", room));
  return `${path}${path.includes("?") ? "&" : "?"}${junk}`;
}

type Cost =
  /** `sample` fills the route's path parameters for its plain answer. */
  | { kind: "cheap"; why: string; sample?: string; query?: string }
  /** `send` makes one request the limit counts, whatever it answers. */
  | {
    kind: "limited";
    variable: string;
    bucket: string;
    send: (app: Requester) => Promise<Response>;
  };

const json = (path: string, body: unknown) => (app: Requester) =>
  app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
const form = (path: string) => (app: Requester) =>
  app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
const get = (path: string) => (app: Requester) => app.request(path);

/** Every route of buildRoutes, by method and pattern. */
const ROUTES: Record<string, Cost> = {
  "GET /healthz": { kind: "cheap", why: "a constant answer" },
  "GET /readyz": { kind: "cheap", why: "one store ping a second at most, shared" },
  "GET /.well-known/oauth-authorization-server": { kind: "cheap", why: "serialised once" },
  "GET /.well-known/oauth-protected-resource": { kind: "cheap", why: "serialised once" },
  "POST /agent/identity": {
    kind: "limited",
    variable: "RATE_LIMIT_REGISTER",
    bucket: "register",
    send: json("/agent/identity", { type: "anonymous" }),
  },
  "POST /oauth2/token": {
    kind: "limited",
    variable: "RATE_LIMIT_TOKEN",
    bucket: "token",
    send: form("/oauth2/token"),
  },
  "POST /oauth2/revoke": {
    kind: "limited",
    variable: "RATE_LIMIT_REVOKE",
    bucket: "revoke",
    send: form("/oauth2/revoke"),
  },
  "GET /api/v1/agent/services": { kind: "cheap", why: "the Bearer check: cached point reads" },
  "GET /api/v1/agent/locations": { kind: "cheap", why: "the Bearer check: cached point reads" },
  "GET /api/v1/agent/coverage": {
    kind: "cheap",
    why: "the Bearer check, then a query bounded before it is parsed",
    query: "city=Zurich",
  },
  "GET /api/v1/services": { kind: "cheap", why: "serialised once" },
  "GET /api/v1/locations": {
    kind: "cheap",
    why: "a query bounded before it is parsed; a city of at most 100 characters",
    query: "city=Zurich",
  },
  "POST /api/v1/intake": {
    kind: "limited",
    variable: "RATE_LIMIT_SUBMIT",
    bucket: "submit",
    send: json("/api/v1/intake", {}),
  },
  "POST /api/v1/quotes": {
    kind: "limited",
    variable: "RATE_LIMIT_SUBMIT",
    bucket: "submit",
    send: json("/api/v1/quotes", {}),
  },
  "GET /api/v1/estimate": {
    kind: "limited",
    variable: "RATE_LIMIT_ESTIMATE",
    bucket: "estimate",
    send: get("/api/v1/estimate?city=Zurich"),
  },
  "GET /api/v1/requests/:request_id": {
    kind: "cheap",
    why: "one point read, once the id has its shape",
    sample: "quote_01KAKX2Q3M8Y6T0V5W9R4B7C1D",
  },
  "POST /api/v1/mcp": {
    kind: "limited",
    variable: "RATE_LIMIT_MCP",
    bucket: "mcp",
    send: json("/api/v1/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }),
  },
  "GET /api/v1/mcp/server-card": { kind: "cheap", why: "serialised once" },
  "GET /.well-known/mcp.json": { kind: "cheap", why: "serialised once" },
  "GET /.well-known/ai-catalog.json": { kind: "cheap", why: "serialised once" },
  "GET /.well-known/mcp/catalog.json": { kind: "cheap", why: "serialised once" },
  "GET /": { kind: "cheap", why: "rendered once from the catalog" },
  "GET /assets/:name": { kind: "cheap", why: "a file read at start", sample: "styles.css" },
  "POST /forms/lead": {
    kind: "limited",
    variable: "RATE_LIMIT_SUBMIT",
    bucket: "submit",
    send: json("/forms/lead", {}),
  },
  "POST /forms/quote": {
    kind: "limited",
    variable: "RATE_LIMIT_SUBMIT",
    bucket: "submit",
    send: json("/forms/quote", {}),
  },
  "GET /api/v1/openapi.json": { kind: "cheap", why: "built at the first request, then kept" },
  "GET /llms.txt": { kind: "cheap", why: "written once per handler" },
  "GET /robots.txt": { kind: "cheap", why: "written once per handler" },
};

/**
 * Every tool of tools/list. All run inside the MCP endpoint's own limit; a `limited` one
 * also counts against a limit of its own. A cheap tool's worst input: 6,000 argument names
 * (the body's 64 KiB), or its one string at 60,000 characters.
 */
const TOOLS: Record<string, Cost> = {
  check_coverage: { kind: "cheap", why: "a city of at most 100 characters; 32 arguments" },
  list_services: { kind: "cheap", why: "the catalog; 32 arguments" },
  get_request_status: { kind: "cheap", why: "one point read, once the id has its shape" },
  submit_lead: { kind: "limited", variable: "RATE_LIMIT_SUBMIT", bucket: "submit", send: _never },
  request_quote: { kind: "limited", variable: "RATE_LIMIT_SUBMIT", bucket: "submit", send: _never },
  estimate_quote: {
    kind: "limited",
    variable: "RATE_LIMIT_ESTIMATE",
    bucket: "estimate",
    send: _never,
  },
};

/**
 * The most parameters any URLSearchParams held that was built or read (`url.searchParams`)
 * while `run` ran: the server runs in this process, so this is how far a handler parsed a
 * query. Counted, not timed.
 */
async function largestQueryParsed(run: () => Promise<unknown>): Promise<number> {
  const Original = globalThis.URLSearchParams;
  const getter = Object.getOwnPropertyDescriptor(URL.prototype, "searchParams")!;
  let largest = 0;
  globalThis.URLSearchParams = class extends Original {
    constructor(...init: ConstructorParameters<typeof URLSearchParams>) {
      super(...init);
      largest = Math.max(largest, this.size);
    }
  };
  Object.defineProperty(URL.prototype, "searchParams", {
    ...getter,
    get(this: URL) {
      const params = getter.get!.call(this) as URLSearchParams;
      largest = Math.max(largest, params.size);
      return params;
    },
  });
  try {
    await run();
  } finally {
    globalThis.URLSearchParams = Original;
    Object.defineProperty(URL.prototype, "searchParams", getter);
  }
  return largest;
}

function _never(): Promise<Response> {
  throw new Error("tools are called through MCP");
}

/** `method pattern` of each route the service serves. */
async function routeKeys(): Promise<string[]> {
  await using app = await createApp();
  return buildRoutes(app.config, app.catalog).map((r) => `${r.method} ${r.pattern.pathname}`);
}

Deno.test("every route and every tool is classified as cheap or limited", async (t) => {
  await t.step("every route of the table, and no other", async () => {
    assert.deepEqual((await routeKeys()).sort(), Object.keys(ROUTES).sort());
  });
  await t.step("every tool of tools/list, and no other", async () => {
    await using app = await createApp();
    const res = await mcpPost(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, {
      "MCP-Protocol-Version": "2025-11-25",
    });
    const { tools } = mcpResult(await res.text());
    const names = tools.map((tool: { name: string }) => tool.name);
    assert.deepEqual(names.sort(), Object.keys(TOOLS).sort());
  });
});

Deno.test("a limited route answers 429 with Retry-After once its limit is spent", async (t) => {
  for (const [key, cost] of Object.entries(ROUTES)) {
    if (cost.kind !== "limited") continue;
    await t.step(`${key}: ${cost.variable}=1`, async () => {
      await using app = await createApp({ env: { [cost.variable]: "1" } });
      const first = await cost.send(app);
      assert.notEqual(first.status, 429, key);
      await first.body?.cancel();
      const second = await cost.send(app);
      assert.equal(second.status, 429, key);
      assert.ok(Number(second.headers.get("retry-after")) >= 1, key);
      assert.equal(second.headers.get("ratelimit-policy"), `"${cost.bucket}";q=1;w=60`);
      await second.body?.cancel();
    });
  }
});

Deno.test("a limited tool is a rate_limited tool error once its own limit is spent", async (t) => {
  for (const [name, cost] of Object.entries(TOOLS)) {
    if (cost.kind !== "limited") continue;
    await t.step(`${name}: ${cost.variable}=1`, async () => {
      await using app = await createApp({ env: { [cost.variable]: "1" } });
      const first = await mcpToolAnswer(app, name, {});
      assert.notEqual(first.result.structuredContent?.error, "rate_limited", name);
      const second = await mcpToolAnswer(app, name, {});
      assert.equal(second.result.isError, true, name);
      assert.equal(second.result.structuredContent.error, "rate_limited", name);
      assert.ok(Number(second.result.structuredContent.retry_after_s) >= 1, name);
    });
  }
});

Deno.test("a cheap route's worst input gets a bounded answer, over a real port", async (t) => {
  await using service = await listen({ env: { RATE_LIMIT_TOKEN: "0", RATE_LIMIT_REGISTER: "0" } });
  const client = await registerClient(service);
  const token = await issueToken(service, client);
  const headers = { Authorization: `Bearer ${token}` };
  const fetchOne = async (path: string) => {
    const started = performance.now();
    const res = await fetch(`${service.baseUrl}${path}`, { headers });
    const bytes = (await res.bytes()).byteLength;
    return { status: res.status, bytes, ms: performance.now() - started };
  };
  for (const [key, cost] of Object.entries(ROUTES)) {
    if (cost.kind !== "cheap") continue;
    const pattern = key.slice(key.indexOf(" ") + 1);
    await t.step(`${key} (${cost.why})`, async () => {
      const fill = (value: string) => pattern.replace(/:[a-z_]+/g, value);
      const plain = await fetchOne(
        `${fill(cost.sample ?? "")}${cost.query ? `?${cost.query}` : ""}`,
      );
      assert.ok(plain.status < 500, `${key} plain: ${plain.status}`);
      const worstPath = fill(cost.sample === undefined ? "" : LONG);
      let worst = plain;
      const parsed = await largestQueryParsed(async () => {
        worst = await fetchOne(withJunk(`${worstPath}${cost.query ? `?${cost.query}` : ""}`));
      });
      assert.ok(parsed <= QUERY_LIMITS.parameters, `${key} parsed ${parsed} parameters`);
      assert.ok([200, 400, 404].includes(worst.status), `${key} worst: ${worst.status}`);
      assert.ok(worst.bytes <= Math.max(plain.bytes, 1024) + 1024, `${key}: ${worst.bytes} bytes`);
      assert.ok(worst.ms < GENEROUS_MS, `${key}: ${worst.ms} ms`);
    });
  }
  await t.step("a path no route serves", async () => {
    const worst = await fetchOne(withJunk(`/api/v1/${LONG}`));
    assert.equal(worst.status, 404);
    assert.ok(worst.bytes < 2048);
  });
});

Deno.test("a cheap tool's worst input gets a bounded answer", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "0" } });
  const names = Object.fromEntries(Array.from({ length: 6_000 }, (_, i) => [`k${i}`, 1]));
  const strings: Record<string, Record<string, string>> = {
    check_coverage: { city: LONG + LONG },
    list_services: {},
    get_request_status: { request_id: LONG + LONG },
  };
  for (const [name, cost] of Object.entries(TOOLS)) {
    if (cost.kind !== "cheap") continue;
    await t.step(`${name} (${cost.why})`, async () => {
      const refused = await mcpToolAnswer(app, name, names);
      assert.match(
        String(refused.result.structuredContent.message),
        new RegExp(`^${name} takes at most ${QUERY_LIMITS.parameters} arguments`),
        "refused by their count, before the SDK or the tool reads them",
      );
      for (const args of [names, strings[name]!]) {
        const started = performance.now();
        const { text, result } = await mcpToolAnswer(app, name, args);
        const ms = performance.now() - started;
        assert.ok(result, name);
        assert.ok(text.length < 16 * 1024, `${name}: ${text.length} bytes`);
        assert.ok(ms < GENEROUS_MS, `${name}: ${ms} ms`);
      }
    });
  }
});
