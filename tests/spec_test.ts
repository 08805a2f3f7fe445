/**
 * SPEC rules the rest of the suite checks under other names, each once here under its
 * section, through the public handler: what a caller of the SPEC can rely on.
 */

import assert from "node:assert/strict";
import { SCOPES } from "../src/oauth/scopes.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF, SPEC_TOOL_NAMES } from "./_fixtures.ts";
import {
  basic,
  createApp,
  issueToken,
  mcpPost,
  mcpResult,
  mcpToolCall,
  post,
  registerClient,
  type TestApp,
} from "./_helpers.ts";

/** The `required` of a tool's output schema in the descriptor (SPEC §2.6). */
async function outputRequired(app: TestApp, tool: string): Promise<string[]> {
  const d = await (await app.request("/.well-known/mcp.json")).json();
  return d.tools.find((t: { name: string }) => t.name === tool).output_schema.required;
}

/** SPEC §2.3's shape: `ok` a boolean and `key` of the given kind, both present. */
function assertShape(out: Record<string, unknown>, key: string, kind: "object" | "array") {
  assert.equal(typeof out.ok, "boolean", `ok: ${JSON.stringify(out).slice(0, 200)}`);
  assert.equal(Array.isArray(out[key]), kind === "array", key);
  assert.ok(out[key] !== null && typeof out[key] === "object", key);
}

Deno.test("SPEC §2.3, §4.6: check_coverage answers { ok, coverage } for every match kind, over REST and MCP", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const required = await outputRequired(app, "check_coverage");
  assert.deepEqual([...required].sort(), ["coverage", "ok"]);
  const asked: [string, string | undefined][] = [
    ["Frankfurt", undefined],
    ["LHR", undefined],
    ["Köln", undefined],
    ["San Jose", undefined],
    ["Frankfurt", "US"],
    ["NY", undefined],
    ["Frankfrut", undefined],
  ];
  const kinds = new Set<string>();
  for (const [city, country] of asked) {
    await t.step(`${city}${country ? `, ${country}` : ""}`, async () => {
      const q = new URLSearchParams({ city, ...(country ? { country } : {}) });
      const res = await app.request(`/api/v1/locations?${q}`);
      assert.equal(res.status, 200);
      const rest = await res.json();
      const tool = await mcpToolCall(app, "check_coverage", { city, country });
      assert.notEqual(tool.isError, true);
      for (const out of [rest, tool.structuredContent]) {
        assertShape(out, "coverage", "object");
        for (const field of required) assert.ok(field in out, field);
      }
      assert.deepEqual(tool.structuredContent.coverage, rest.coverage);
      kinds.add(rest.coverage.match);
    });
  }
  assert.deepEqual(
    [...kinds].sort(),
    ["ambiguous", "country", "covered", "known_uncovered", "nearby", "other_country", "unknown"],
    "every match kind was asked for",
  );
});

Deno.test("SPEC §2.3, §4.6: list_services answers { ok, services } over REST and MCP", async () => {
  await using app = await createApp();
  assert.deepEqual([...await outputRequired(app, "list_services")].sort(), ["ok", "services"]);
  const rest = await (await app.request("/api/v1/services")).json();
  const tool = await mcpToolCall(app, "list_services", {});
  for (const out of [rest, tool.structuredContent]) assertShape(out, "services", "array");
});

Deno.test("SPEC §1.5, §2.4, §2.5, §4.6: every submission, REST or MCP, awaits human review and creates nothing billable", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const cases = [
    { path: "/api/v1/intake", tool: "submit_lead", body: LEAD, estimate: false },
    { path: "/api/v1/quotes", tool: "request_quote", body: QUOTE, estimate: true },
  ];
  for (const { path, tool, body, estimate } of cases) {
    await t.step(`POST ${path}`, async () => {
      const res = await post(app, path, { ...body, description: `${body.description} (REST)` });
      assert.equal(res.status, 202);
      const out = await res.json();
      assert.equal(out.ok, true);
      assert.equal(typeof out.request_id, "string");
      assert.equal(out.status, "pending");
      assert.equal(out.requires_human_approval, true);
      assert.equal(out.billable_order_created, false);
      if (estimate) assertShape(out, "budget_estimate", "object");
    });
    await t.step(`MCP ${tool}`, async () => {
      const result = await mcpToolCall(app, tool, {
        ...body,
        description: `${body.description} (MCP)`,
      });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const out = result.structuredContent;
      for (const field of await outputRequired(app, tool)) assert.ok(field in out, field);
      assert.equal(out.ok, true);
      assert.equal(out.requires_human_approval, true);
      assert.equal(out.billable_order_created, false);
      if (estimate) assertShape(out, "budget_estimate", "object");
    });
  }
});

Deno.test("SPEC §4.7: the four tools are served over streamable HTTP at {base_url}/api/v1/mcp", async () => {
  await using app = await createApp();
  const d = await (await app.request("/.well-known/mcp.json")).json();
  assert.equal(d.transport, "streamable-http");
  assert.equal(d.transport_url, `${app.config.baseUrl}/api/v1/mcp`);
  const res = await mcpPost(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, {
    "MCP-Protocol-Version": "2025-11-25",
  });
  assert.equal(res.status, 200);
  const names = mcpResult(await res.text()).tools.map((x: { name: string }) => x.name);
  for (const name of SPEC_TOOL_NAMES) assert.ok(names.includes(name), `${name} is listed`);
  assert.ok(!names.some((n: string) => /order|dispatch|accept|invoice/.test(n)), names.join());
});

Deno.test("SPEC §2.2, §5.2: a token is an opaque Bearer of 900 s for {base_url}; neither it nor the client secret is stored in plaintext", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const res = await app.request("/oauth2/token", {
    method: "POST",
    headers: {
      Authorization: basic(client.client_id, client.client_secret),
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      resource: app.config.baseUrl,
    }).toString(),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.token_type, "Bearer");
  assert.equal(body.expires_in, 900);
  assert.equal(body.access_token.split(".").length < 3, true, "not a JWT");
  const another = await issueToken(app, client);
  const stored: string[] = [];
  for await (const e of app.kv.list({ prefix: [] })) {
    stored.push(
      JSON.stringify(e.key),
      JSON.stringify(e.value, (_, v) => v instanceof Uint8Array ? [...v] : v),
    );
  }
  const all = stored.join("\n");
  for (const secret of [body.access_token, another, client.client_secret]) {
    assert.ok(!all.includes(secret), "a token or secret is stored as it was issued");
  }
});

Deno.test("SPEC §7, §8: registration, token and revocation are rate limited and refuse oversized bodies", async (t) => {
  await using app = await createApp({
    env: { RATE_LIMIT_REGISTER: "1", RATE_LIMIT_TOKEN: "1", RATE_LIMIT_REVOKE: "1" },
  });
  const form = {
    "Content-Type": "application/x-www-form-urlencoded",
    Authorization: basic("a", "b"),
  };
  const endpoints = [
    {
      path: "/agent/identity",
      headers: { "Content-Type": "application/json" },
      body: '{"type":"anonymous"}',
      pad: (s: string) => `{"type":"anonymous","x":"${s}"}`,
    },
    {
      path: "/oauth2/token",
      headers: form,
      body: "grant_type=client_credentials",
      pad: (s: string) => `grant_type=client_credentials&x=${s}`,
    },
    {
      path: "/oauth2/revoke",
      headers: form,
      body: "token=x",
      pad: (s: string) => `token=x&x=${s}`,
    },
  ];
  for (const { path, headers, body, pad } of endpoints) {
    await t.step(`${path}: oversized`, async () => {
      const res = await app.request(path, {
        method: "POST",
        headers,
        body: pad("a".repeat(1 << 20)),
        address: "192.0.2.10",
      });
      assert.equal(res.status, 413);
      await res.body?.cancel();
    });
    await t.step(`${path}: the second request of a caller within the window`, async () => {
      const send = () =>
        app.request(path, { method: "POST", headers, body, address: "192.0.2.20" });
      const first = await send();
      assert.notEqual(first.status, 429);
      await first.body?.cancel();
      const second = await send();
      assert.equal(second.status, 429);
      await second.body?.cancel();
    });
  }
});

Deno.test("SPEC §1.4, §4.1, §5.2: discovery needs no token", async () => {
  await using app = await createApp();
  for (
    const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
      "/.well-known/mcp.json",
      "/llms.txt",
      "/robots.txt",
    ]
  ) {
    const res = await app.request(path);
    assert.equal(res.status, 200, path);
    await res.body?.cancel();
  }
});

Deno.test("SPEC §1.5, §1.6: a console approval is a human decision only; a staff session is no OAuth credential and adds no scope", async () => {
  const { signedIn, staffGet, staffPost } = await import("./staff/_staff.ts");
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const id = (await (await post(app, "/api/v1/quotes", QUOTE)).json()).request_id;
  const ada = await signedIn(app, "Ada");
  const page = await (await staffGet(app, ada, `/staff/submissions/${id}`)).text();
  const versionstamp = /name="versionstamp" value="([^"]+)"/.exec(page)![1]!;
  const res = await staffPost(app, ada, `/staff/submissions/${id}/decision`, {
    versionstamp,
    decision: "approve",
  });
  assert.equal(res.status, 303);
  const status = await (await app.request(`/api/v1/requests/${id}`)).json();
  assert.equal(status.status, "approved");
  assert.notEqual(status.decided_at, null);
  // The approval wrote the decision and its audit entry: no order, invoice or dispatch record.
  const prefixes = new Set<string>();
  for await (const e of app.kv.list({ prefix: [] })) prefixes.add(String(e.key[0]));
  const allowed = new Set([
    "email_index_key",
    "idempotency",
    "rate_counters",
    "review_due",
    "review_new",
    "review_outbox",
    "staff_audit",
    "staff_audit_of",
    "staff_member_passkeys",
    "staff_member_sessions",
    "staff_members",
    "staff_passkeys",
    "staff_sessions",
    "submission_idempotency",
    "submission_payloads",
    "submissions",
    "submissions_by_email",
    "submissions_by_time",
    "submissions_decided",
  ]);
  assert.deepEqual([...prefixes].filter((p) => !allowed.has(p)), []);
  assert.ok(prefixes.has("submissions_decided") && prefixes.has("staff_audit"));
  // §1.6: the three read scopes, nothing else; the staff cookie opens no agent read.
  const meta = await (await app.request("/.well-known/oauth-authorization-server")).json();
  assert.deepEqual([...meta.scopes_supported].sort(), [...SCOPES].sort());
  const agent = await app.request("/api/v1/agent/services", { headers: { Cookie: ada.cookie } });
  assert.equal(agent.status, 401);
});

Deno.test("SPEC §1.4, §2.6, §4.7: the quote builder app is anonymous discovery, keeps every descriptor field, and links no submitting tool", async (t) => {
  await using app = await createApp();
  const legacy = { "MCP-Protocol-Version": "2025-11-25" };
  const uri = "ui://dc-field-services/quote-builder";
  await t.step("§1.4: resources/list and resources/read need no token", async () => {
    const list = await mcpPost(app, { jsonrpc: "2.0", id: 1, method: "resources/list" }, legacy);
    assert.equal(list.status, 200);
    assert.deepEqual(mcpResult(await list.text()).resources.map((r: { uri: string }) => r.uri), [
      uri,
    ]);
    const read = await mcpPost(app, {
      jsonrpc: "2.0",
      id: 2,
      method: "resources/read",
      params: { uri },
    }, legacy);
    assert.equal(read.status, 200);
    assert.equal(mcpResult(await read.text()).contents[0].uri, uri);
  });
  const d = await (await app.request("/.well-known/mcp.json")).json();
  await t.step("§2.6: every top-level field keeps its value beside the added apps", () => {
    assert.equal(d.ok, true);
    assert.equal(d.version, "1.0.0");
    assert.equal(d.protocol_version, "2026-07-28");
    assert.equal(d.transport, "streamable-http");
    assert.equal(d.transport_url, `${app.config.baseUrl}/api/v1/mcp`);
    assert.equal(d.mcp_status, "available");
    assert.equal(d.mcp_endpoint_publicly_exposed, true);
    assert.deepEqual(d.blocked_anonymous_actions, [
      "accept_quotes",
      "create_billable_orders",
      "schedule_dispatch",
      "access_private_tickets",
      "access_attachments",
      "close_jobs",
    ]);
    assert.deepEqual(d.apps.map((a: { uri: string }) => a.uri), [uri]);
  });
  await t.step("§4.7: the app links only tools that neither submit nor bill", async () => {
    const res = await mcpPost(app, { jsonrpc: "2.0", id: 3, method: "tools/list" }, legacy);
    const tools = mcpResult(await res.text()).tools as {
      name: string;
      annotations: { readOnlyHint: boolean };
      _meta?: { ui?: { resourceUri?: string } };
    }[];
    const linked = tools.filter((tool) => tool._meta?.ui?.resourceUri === uri);
    assert.deepEqual(linked.map((tool) => tool.name), d.apps[0].tools);
    for (const tool of linked) {
      assert.equal(tool.annotations.readOnlyHint, true, tool.name);
      const entry = d.tools.find((x: { name: string }) => x.name === tool.name);
      assert.equal(entry.safety.requires_human_review, false, tool.name);
      assert.equal(entry.creates_billable_order, false, tool.name);
    }
    assert.ok(!linked.some((tool) => ["submit_lead", "request_quote"].includes(tool.name)));
  });
});
