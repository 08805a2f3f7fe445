import assert from "node:assert/strict";
import {
  Client,
  StreamableHTTPClientTransport,
  type VersionNegotiationMode,
} from "npm:@modelcontextprotocol/client@2.4.0";
import { Client as V1Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { getSubmission } from "../../src/store/submissions.ts";
import { initializeRequest, LEAD, QUOTE, TOOL_NAMES } from "../_fixtures.ts";
import { countSubmissions, createApp, listen, mcpPost, overHttp, post } from "../_helpers.ts";
import { reviewCli, reviewListJson, startService, startServiceOnTempKv } from "../_service.ts";

type ToolResult = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

type ToolErrorBody = {
  ok: false;
  error: string;
  message: string;
  issues: { path: string; message: string }[];
  retry_after_s?: number;
};

/** The structured error of a failed call, checked to be the same as its text. */
function toolError(r: ToolResult): ToolErrorBody {
  assert.equal(r.isError, true);
  const body = r.structuredContent as ToolErrorBody;
  assert.equal(body.ok, false);
  assert.equal(typeof body.error, "string");
  assert.equal(typeof body.message, "string");
  assert.ok(Array.isArray(body.issues));
  assert.deepEqual(JSON.parse(r.content[0]!.text!), body, "the text is the same JSON");
  return body;
}

/** The same checks for every client: list, call each tool, bad input, unknown tool. */
type ListedTool = { name: string; annotations?: Record<string, unknown>; outputSchema?: unknown };

async function exercise(
  t: Deno.TestContext,
  kv: Deno.Kv | undefined,
  call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>,
  list: () => Promise<ListedTool[]>,
) {
  await t.step("tools/list names the six tools with output schemas and annotations", async () => {
    const tools = await list();
    assert.deepEqual(tools.map((x) => x.name), TOOL_NAMES);
    for (const tool of tools) {
      assert.ok(tool.outputSchema, `${tool.name} has an outputSchema`);
      const reads = !["submit_lead", "request_quote"].includes(tool.name);
      assert.equal(tool.annotations?.readOnlyHint, reads, tool.name);
      assert.equal(tool.annotations?.destructiveHint, false, tool.name);
    }
  });
  await t.step("list_services returns {ok, services} as structured content and text", async () => {
    const r = await call("list_services", {});
    assert.equal(r.isError ?? false, false);
    assert.equal(r.structuredContent?.ok, true);
    assert.ok((r.structuredContent?.services as unknown[]).length >= 10);
    assert.deepEqual(JSON.parse(r.content[0]!.text!), r.structuredContent);
  });
  await t.step("check_coverage returns {ok, coverage}", async () => {
    const r = await call("check_coverage", { city: "Frankfurt am Main", country: "DE" });
    const coverage = r.structuredContent?.coverage as {
      covered: boolean;
      location: { id: string };
    };
    assert.equal(coverage.covered, true);
    assert.equal(coverage.location.id, "fra");
  });
  await t.step("submit_lead stores a lead pending human review", async () => {
    const r = await call("submit_lead", { ...LEAD, extra_field: "kept" });
    const out = r.structuredContent!;
    assert.equal(out.ok, true);
    assert.equal(out.requires_human_approval, true);
    assert.equal(out.billable_order_created, false);
    assert.match(String(out.request_id), /^lead_/);
    if (kv) {
      const stored = await getSubmission(kv, String(out.request_id));
      assert.equal(stored.value?.status, "pending");
    }
  });
  await t.step("request_quote returns a non-binding budget estimate", async () => {
    const r = await call("request_quote", QUOTE);
    const out = r.structuredContent!;
    assert.equal(out.billable_order_created, false);
    const estimate = out.budget_estimate as { non_binding: boolean; low: number; currency: string };
    assert.equal(estimate.non_binding, true);
    assert.equal(estimate.currency, "EUR");
    assert.ok(estimate.low > 0);
  });
  await t.step(
    "invalid arguments give an isError result with the structured error, also as text",
    async () => {
      const r = await call("submit_lead", { email: "not-an-email" });
      const err = toolError(r);
      assert.equal(err.error, "validation_failed");
      assert.deepEqual(err.issues, [
        { path: "email", message: "email must be a valid email address such as ops@example.com" },
        { path: "description", message: "description is required" },
      ]);
    },
  );
  await t.step("check_coverage refuses additional properties, in the same format", async () => {
    const err = toolError(await call("check_coverage", { city: "Paris", radius: 10 }));
    assert.equal(err.error, "validation_failed");
    assert.match(JSON.stringify(err.issues), /radius/);
  });
  await t.step("request_quote understands service names written any way", async () => {
    for (const written of ["remote_hands", "Remote Hands", "REMOTE-HANDS"]) {
      const r = await call("request_quote", { ...QUOTE, service_type: written });
      assert.equal(r.structuredContent?.service_id, "remote-hands", written);
    }
    const stack = await call("request_quote", { ...QUOTE, service_type: "rack & stack" });
    assert.equal(stack.structuredContent?.service_id, "rack-and-stack");
    const cabling = await call("request_quote", { ...QUOTE, service_type: "cabling" });
    assert.equal(cabling.structuredContent?.service_id, "structured-cabling");
  });
  await t.step(
    "request_quote refuses an unknown service, listing the ids and the closest",
    async () => {
      const err = toolError(
        await call("request_quote", { ...QUOTE, service_type: "teleportation" }),
      );
      const issue = err.issues.find((i) => i.path === "service_type")!;
      assert.doesNotMatch(issue.message, /did you mean/, "nothing is close to teleportation");
      assert.match(issue.message, /remote-hands, smart-hands, rack-and-stack/);
      assert.match(issue.message, /submit_lead takes the request in your own words/);
      const near = toolError(
        await call("request_quote", { ...QUOTE, service_type: "rak and stak" }),
      );
      assert.match(near.issues[0]!.message, /did you mean rack-and-stack\?/);
    },
  );
  await t.step(
    "three missing fields and an unknown service: four problems in one answer",
    async () => {
      const { company: _c, contact_name: _n, email: _e, ...rest } = QUOTE;
      const err = toolError(
        await call("request_quote", { ...rest, service_type: "teleportation" }),
      );
      assert.deepEqual(err.issues.map((i) => i.path).sort(), [
        "company",
        "contact_name",
        "email",
        "service_type",
      ]);
    },
  );
  await t.step("deeply nested arguments give an isError result, not a crash", async () => {
    let nested: unknown = [];
    for (let i = 0; i < 2_000; i++) nested = [nested];
    const err = toolError(await call("submit_lead", { ...LEAD, nested }));
    assert.match(err.issues[0]!.message, /nested deeper than 32 levels/);
  });
  await t.step(
    "check_coverage answers an ambiguous name and a wrong country usefully",
    async () => {
      const ambiguous = await call("check_coverage", { city: "San Jose" });
      const a = ambiguous.structuredContent?.coverage as Record<string, unknown>;
      assert.equal(a.match, "ambiguous");
      assert.match(String(a.summary), /San Jose, US \(covered\)/);
      const wrong = await call("check_coverage", { city: "Frankfurt", country: "US" });
      const w = wrong.structuredContent?.coverage as Record<string, unknown>;
      assert.equal(w.match, "other_country");
      assert.match(String(w.summary), /Frankfurt, DE is covered/);
    },
  );
  await t.step("an unknown tool is refused", async () => {
    await assert.rejects(call("create_billable_order", {}), /create_billable_order/);
  });
}

/** An SDK client that closes when its `await using` scope ends. */
function closing<C extends { close(): Promise<void> }>(client: C): C & AsyncDisposable {
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** A `@modelcontextprotocol/client@2` client connected to the MCP endpoint under `baseUrl`. */
async function connect(
  baseUrl: string,
  name = "test",
  mode: VersionNegotiationMode = { pin: "2026-07-28" },
): Promise<Client & AsyncDisposable> {
  const client = new Client({ name, version: "1" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/v1/mcp`)));
  return closing(client);
}

/** A v1 `@modelcontextprotocol/sdk` client connected over legacy streamable HTTP. */
async function connectV1(baseUrl: string, name: string): Promise<V1Client & AsyncDisposable> {
  const client = new V1Client({ name, version: "1" });
  await client.connect(new V1Transport(new URL(`${baseUrl}/api/v1/mcp`)));
  return closing(client);
}

Deno.test("MCP with @modelcontextprotocol/client@2 pinned to 2026-07-28", async (t) => {
  await using app = await listen();
  await using client = await connect(app.baseUrl);
  assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  // Static tools: advertised, but never as changing (Inspector's modern era hangs on that).
  assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
  await exerciseClient(t, app.kv, client);
});

Deno.test("MCP with @modelcontextprotocol/client@2 in auto negotiation settles on 2026-07-28", async () => {
  await using app = await listen();
  await using client = await connect(app.baseUrl, "test", "auto");
  assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  const r = await client.callTool({ name: "list_services", arguments: {} });
  assert.equal((r.structuredContent as { ok: boolean }).ok, true);
});

Deno.test("MCP with the v1 @modelcontextprotocol/sdk client over legacy streamable HTTP", async (t) => {
  await using app = await listen();
  await using client = await connectV1(app.baseUrl, "legacy");
  assert.equal(client.getServerVersion()?.name, "dc-field-services");
  await exerciseClient(t, app.kv, client);
});

/** {@linkcode exercise} through an SDK client, v1 or v2: both call and list tools alike. */
function exerciseClient(
  t: Deno.TestContext,
  kv: Deno.Kv | undefined,
  client: {
    callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
    listTools(): Promise<{ tools: ListedTool[] }>;
  },
) {
  return exercise(
    t,
    kv,
    (name, args) => client.callTool({ name, arguments: args }) as Promise<ToolResult>,
    async () => (await client.listTools()).tools,
  );
}

/** A raw legacy JSON-RPC POST over the wire, by default what a 2025 client sends first. */
function rpc(baseUrl: string, headers: Record<string, string> = {}, body?: unknown) {
  return mcpPost(overHttp(baseUrl), body ?? initializeRequest("raw"), headers);
}

Deno.test("the MCP endpoint is POST only: GET and DELETE are 405 with Allow: POST", async () => {
  await using app = await listen();
  for (const method of ["GET", "DELETE", "PUT"]) {
    const res = await fetch(`${app.baseUrl}/api/v1/mcp`, { method });
    assert.equal(res.status, 405, method);
    assert.match(res.headers.get("allow") ?? "", /^POST\b/);
    assert.ok(!(res.headers.get("allow") ?? "").includes("GET"));
    await res.body?.cancel();
  }
});

Deno.test("the MCP endpoint checks Origin: none and its own are served, a foreign one is 403", async (t) => {
  await using app = await listen({ env: { ALLOWED_ORIGINS: "https://agent.example" } });
  await t.step("no Origin (not a browser) is served", async () => {
    const res = await rpc(app.baseUrl);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("the service's own origin is served, with CORS for it", async () => {
    const res = await rpc(app.baseUrl, { Origin: app.baseUrl });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), app.baseUrl);
    assert.match(res.headers.get("vary") ?? "", /Origin/);
    await res.body?.cancel();
  });
  await t.step("an ALLOWED_ORIGINS origin is served", async () => {
    const res = await rpc(app.baseUrl, { Origin: "https://agent.example" });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "https://agent.example");
    await res.body?.cancel();
  });
  await t.step("a foreign origin (or a DNS-rebinding page) is 403", async () => {
    for (const origin of ["https://evil.example", "http://127.0.0.1:1", "null"]) {
      const res = await rpc(app.baseUrl, { Origin: origin });
      assert.equal(res.status, 403, origin);
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.equal((await res.json()).error, "forbidden_origin");
    }
  });
  await t.step("CORS preflight is answered for allowed origins only", async () => {
    const ok = await fetch(`${app.baseUrl}/api/v1/mcp`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://agent.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, mcp-protocol-version",
      },
    });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get("access-control-allow-origin"), "https://agent.example");
    assert.match(ok.headers.get("access-control-allow-methods") ?? "", /POST/);
    assert.match(ok.headers.get("access-control-allow-headers") ?? "", /mcp-protocol-version/);
    const bad = await fetch(`${app.baseUrl}/api/v1/mcp`, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
    });
    assert.equal(bad.status, 403);
    assert.equal(bad.headers.get("access-control-allow-origin"), null);
    await bad.body?.cancel();
  });
});

Deno.test("the MCP endpoint refuses bodies over 64 KiB with 413, chunked or declared", async () => {
  await using app = await listen();
  const big = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { pad: "x".repeat(70_000) },
  });
  const declared = await rpc(app.baseUrl, {}, big);
  assert.equal(declared.status, 413);
  await declared.body?.cancel();
  const bytes = new TextEncoder().encode(big);
  const chunked = await rpc(
    app.baseUrl,
    {},
    new ReadableStream({
      start(c) {
        for (let i = 0; i < bytes.length; i += 4096) c.enqueue(bytes.slice(i, i + 4096));
        c.close();
      },
    }),
  );
  assert.equal(chunked.status, 413);
  await chunked.body?.cancel();
});

Deno.test("MCP submissions count against RATE_LIMIT_SUBMIT with REST submissions", async () => {
  await using app = await listen({ env: { RATE_LIMIT_SUBMIT: "2" } });
  // Another request than the tools': the same one would be a replay (stored once, not counted).
  const rest = await post(overHttp(app.baseUrl), "/api/v1/intake", {
    ...LEAD,
    description: "Another request",
  });
  assert.equal(rest.status, 202);
  await rest.body?.cancel();
  {
    await using client = await connect(app.baseUrl);
    const first = await client.callTool({ name: "submit_lead", arguments: LEAD });
    assert.equal(first.isError ?? false, false);
    const second = await client.callTool({ name: "submit_lead", arguments: LEAD }) as ToolResult;
    const err = toolError(second);
    assert.equal(err.error, "rate_limited");
    assert.ok(err.retry_after_s! >= 1);
    // Reads are not limited.
    const read = await client.callTool({ name: "list_services", arguments: {} });
    assert.equal(read.isError ?? false, false);
  }
  assert.equal(await countSubmissions(app), 2);
});

Deno.test("MCP clients against the real service started with deno task start", async (t) => {
  // Each client makes a dozen submissions: more than one address may in a minute.
  await using service = await startService({ RATE_LIMIT_SUBMIT: "0" });
  for (const mode of [{ pin: "2026-07-28" }, "auto"] as const) {
    await t.step(`@modelcontextprotocol/client@2, ${JSON.stringify(mode)}`, async (t) => {
      await using client = await connect(service.baseUrl, "e2e", mode);
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      await exerciseClient(t, undefined, client);
    });
  }
  await t.step("the v1 @modelcontextprotocol/sdk client (legacy)", async (t) => {
    await using client = await connectV1(service.baseUrl, "e2e-legacy");
    await exerciseClient(t, undefined, client);
  });
});

Deno.test("an unexpected failure inside a tool is a generic isError result; details are only logged", async () => {
  const real = await Deno.openKv(":memory:");
  // A store whose writes fail with an internal detail the caller must never see.
  const broken = new Proxy(real, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          op.commit = () => Promise.reject(new Error("disk failure at /var/lib/dcfs/kv.sqlite3"));
          return op;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await using app = await listen({
    kv: broken,
    env: { RATE_LIMIT_SUBMIT: "0", RATE_LIMIT_SUBMIT_GLOBAL: "0", RATE_LIMIT_MCP: "0" },
  });
  const client = await connect(app.baseUrl);
  try {
    const r = await client.callTool({ name: "submit_lead", arguments: LEAD }) as ToolResult;
    const err = toolError(r);
    assert.deepEqual([err.error, err.message], ["internal_error", "internal error; retry later"]);
  } finally {
    await client.close();
    real.close();
  }
  const logged = app.logs.find((l) => l.level === "error");
  assert.equal(logged?.tool, "submit_lead");
  assert.match(String(logged?.request_id), /^[0-9a-f-]{36}$/, "correlated with the request");
  assert.match(String(logged?.error), /disk failure/);
});

Deno.test("MCP idempotency: a retry with the same idempotency_key returns the first result and stores nothing new", async (t) => {
  await using service = await startServiceOnTempKv();
  await using client = await connect(service.baseUrl, "retry");
  const args = { ...LEAD, idempotency_key: "3f1c9a52-6f0e-4c59-9b1e-2a7d4e8c1b10" };
  const first = await client.callTool({ name: "submit_lead", arguments: args }) as ToolResult;
  const again = await client.callTool({ name: "submit_lead", arguments: args }) as ToolResult;
  await t.step("the replay is the first answer, request id included", () => {
    assert.equal(first.isError ?? false, false);
    assert.equal(first.structuredContent?.replayed, false);
    assert.deepEqual(again.structuredContent, { ...first.structuredContent, replayed: true });
  });
  await t.step("deno task review list --json shows one record, without the key", async () => {
    const items = await reviewListJson(service.kvPath);
    assert.deepEqual(items.map((i) => i.request_id), [first.structuredContent!.request_id]);
    const shown = await reviewCli(service.kvPath, "show", String(items[0]!.request_id), "--json");
    assert.equal(JSON.parse(shown.stdout).request.idempotency_key, undefined);
  });
  await t.step("the same key with other arguments is an error result that says so", async () => {
    const other = await client.callTool({
      name: "submit_lead",
      arguments: { ...args, description: "Something else entirely" },
    }) as ToolResult;
    const err = toolError(other);
    assert.equal(err.error, "idempotency_key_reused");
    assert.equal(err.issues[0]!.path, "idempotency_key");
    assert.match(err.message, /send the same arguments .*or a new key for a new request/);
    assert.equal((await reviewListJson(service.kvPath)).length, 1);
  });
  await t.step("request_quote takes a key the same way", async () => {
    const quote = { ...QUOTE, idempotency_key: "quote-retry-1" };
    const a = await client.callTool({ name: "request_quote", arguments: quote }) as ToolResult;
    const b = await client.callTool({ name: "request_quote", arguments: quote }) as ToolResult;
    assert.equal(b.structuredContent?.request_id, a.structuredContent?.request_id);
    assert.equal((await reviewListJson(service.kvPath)).length, 2);
  });
  await t.step("a malformed key is a validation issue like any other", async () => {
    const err = toolError(
      await client.callTool({
        name: "submit_lead",
        arguments: { ...LEAD, idempotency_key: "has spaces" },
      }) as ToolResult,
    );
    assert.deepEqual(err.issues.map((i) => i.path), ["idempotency_key"]);
  });
});

Deno.test("refusals that explain: an unknown tool is -32602 naming the tools, the blocked actions and what to use", async (t) => {
  await using app = await createApp();
  for (const name of ["dispatch_engineer", "place_order", "accept_quote"]) {
    await t.step(name, async () => {
      const res = await mcpPost(app, {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name, arguments: {} },
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.id, 7);
      assert.equal(body.error.code, -32602);
      assert.match(body.error.message, new RegExp(`^Tool ${name} not found\\. The tools are: `));
      for (const tool of TOOL_NAMES) assert.match(body.error.message, new RegExp(tool));
      assert.match(body.error.message, /schedule_dispatch/);
      assert.match(body.error.message, /use request_quote/);
      assert.match(body.error.message, /No one can order work, dispatch engineers or accept/);
      assert.doesNotMatch(body.error.message, /anonymous/, "no caller could");
    });
  }
  await t.step("through the MCP SDK client, the message reaches the agent", async () => {
    await using served = await listen();
    await using client = await connect(served.baseUrl, "refusal");
    await assert.rejects(
      client.callTool({ name: "dispatch_engineer", arguments: {} }),
      (err: Error & { code?: number }) =>
        err.code === -32602 &&
        /dispatch_engineer not found.*No one can order work, dispatch engineers/.test(err.message),
    );
  });
});

Deno.test("a 404 under /api/v1/ says no one can order or dispatch here, and points to the OpenAPI document", async (t) => {
  await using app = await createApp();
  for (const path of ["/api/v1/orders", "/api/v1/dispatch"]) {
    await t.step(`POST ${path}`, async () => {
      const res = await app.request(path, { method: "POST" });
      assert.equal(res.status, 404);
      const body = await res.json();
      assert.equal(body.error, "not_found");
      assert.ok(body.message.startsWith(`no resource at ${path}. No one can order work, `));
      assert.match(
        body.message,
        /dispatch engineers or accept quotes through this service, with or without a token/,
      );
      assert.doesNotMatch(body.message, /anonymous/, "no caller could, not only anonymous ones");
      assert.match(body.message, /Every endpoint is in \/api\/v1\/openapi\.json\.$/);
    });
  }
  const other = await (await app.request("/nothing")).json();
  assert.equal(other.message, "no resource at /nothing");
  await t.step("docs/api.md and docs/mcp.md say so", async () => {
    const read = async (file: string) =>
      (await Deno.readTextFile(new URL(`../../docs/${file}`, import.meta.url))).replace(
        /\s+/g,
        " ",
      );
    assert.match(
      await read("api.md"),
      /no one can order, dispatch or accept a quote here, token or not/,
    );
    assert.match(
      await read("mcp.md"),
      /no one can order work, dispatch engineers or accept quotes through this service, with or without a token/,
    );
  });
});

Deno.test("an unknown tool sent without the transport's headers gets the SDK's refusal, not ours", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/mcp", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "place_order", arguments: {} },
  }, { Accept: "application/json" });
  assert.equal(res.status, 406);
  await res.body?.cancel();
});
