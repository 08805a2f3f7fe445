/**
 * The rules that keep anonymous callers from spending everybody else's budget: global
 * caps count only what is about to be stored, browser pages from other origins cannot
 * write, and the MCP endpoint is limited per address and refuses batches.
 */
import assert from "node:assert/strict";
import { LEAD, QUOTE } from "./_fixtures.ts";
import { createApp, mcpToolCall, post, type TestApp } from "./_helpers.ts";

const send = (
  app: TestApp,
  path: string,
  body: string,
  address: string,
  headers: Record<string, string> = { "Content-Type": "application/json" },
) => app.request(path, { method: "POST", headers, body, address });

async function status(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.body?.cancel();
  return r.status;
}

const count = async (app: TestApp, prefix: string) =>
  (await Array.fromAsync(app.kv.list({ prefix: [prefix] }))).length;

Deno.test("RATE_LIMIT_SUBMIT_GLOBAL counts only submissions about to be stored: junk from many addresses locks nobody out", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT_GLOBAL: "2" } });
  await t.step("600 invalid bodies from 30 addresses are each refused on their own", async () => {
    const junk: [string, Record<string, string>][] = [
      ["{}", { "Content-Type": "application/json" }],
      ['{"email":"x"}', { "Content-Type": "application/json" }],
      ["not json", { "Content-Type": "application/json" }],
      [JSON.stringify(LEAD), { "Content-Type": "text/plain" }], // a cross-site "simple" POST
    ];
    const statuses = new Set<number>();
    for (let i = 0; i < 600; i++) {
      const [body, headers] = junk[i % junk.length]!;
      const path = i % 2 ? "/api/v1/intake" : "/api/v1/quotes";
      // 20 per address: the per-address limit (20) is reached, never passed.
      statuses.add(await status(send(app, path, body, `198.51.100.${i % 30}`, headers)));
    }
    assert.deepEqual([...statuses].sort(), [400, 415]);
  });
  await t.step("the next valid lead and quote from fresh addresses are accepted", async () => {
    assert.equal(
      await status(send(app, "/api/v1/intake", JSON.stringify(LEAD), "203.0.113.1")),
      202,
    );
    assert.equal(
      await status(send(app, "/api/v1/quotes", JSON.stringify(QUOTE), "203.0.113.2")),
      202,
    );
  });
  await t.step("an idempotent replay stores nothing and spends nothing", async () => {
    await using other = await createApp({ env: { RATE_LIMIT_SUBMIT_GLOBAL: "2" } });
    const headers = { "Content-Type": "application/json", "Idempotency-Key": "k-1" };
    for (let i = 0; i < 5; i++) {
      assert.equal(
        await status(send(other, "/api/v1/intake", JSON.stringify(LEAD), "203.0.113.9", headers)),
        202,
      );
    }
    assert.equal(
      await status(send(other, "/api/v1/intake", JSON.stringify(LEAD), "203.0.113.10")),
      202,
      "the replays did not use the second place",
    );
  });
  await t.step("the cap then holds for valid submissions", async () => {
    const res = await send(app, "/api/v1/intake", JSON.stringify(LEAD), "203.0.113.3");
    assert.equal(res.status, 429);
    assert.ok(res.headers.get("retry-after"));
    assert.match((await res.json()).message, /all callers together/);
    // The headers name the budget that refused it, not the caller's own (which has room).
    assert.equal(res.headers.get("ratelimit-policy"), '"submit_all";q=2;w=60');
    assert.match(res.headers.get("ratelimit") ?? "", /^"submit_all";r=0;t=\d+$/);
    assert.equal(await count(app, "submissions"), 2);
  });
});

Deno.test("RATE_LIMIT_REGISTER_GLOBAL caps registrations from all addresses together; invalid ones do not count", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER_GLOBAL: "3" } });
  const register = (body: string, address: string) =>
    status(send(app, "/agent/identity", body, address));
  for (let i = 0; i < 20; i++) {
    assert.equal(await register('{"type":"robot"}', `198.51.100.${i}`), 400);
  }
  const statuses = [];
  for (let i = 0; i < 5; i++) {
    statuses.push(await register('{"type":"anonymous"}', `203.0.113.${i}`));
  }
  assert.deepEqual(statuses, [201, 201, 201, 429, 429]);
  assert.equal(await count(app, "clients"), 3);
});

Deno.test("registration, submissions, token and revocation from a foreign browser Origin are 403 forbidden_origin, store nothing and spend nothing", async (t) => {
  await using app = await createApp({
    env: {
      RATE_LIMIT_SUBMIT: "1",
      RATE_LIMIT_REGISTER: "1",
      ALLOWED_ORIGINS: "https://partner.example",
    },
  });
  const cases: [string, string, string][] = [
    ["/api/v1/intake", JSON.stringify(LEAD), "api"],
    ["/api/v1/quotes", JSON.stringify(QUOTE), "api"],
    ["/agent/identity", '{"type":"anonymous"}', "oauth"],
  ];
  const oauthForms: [string, string][] = [["/oauth2/token", "grant_type=client_credentials"], [
    "/oauth2/revoke",
    "token=x",
  ]];
  for (const [n, [path, body, style]] of cases.entries()) {
    await t.step(`${path}: a foreign Origin, also as a text/plain form post`, async () => {
      for (const origin of ["https://evil.example", "null", "http://api.test"]) {
        for (const type of ["application/json", "text/plain"]) {
          const res = await send(app, path, body, "192.0.2.50", {
            "Content-Type": type,
            "Origin": origin,
          });
          assert.equal(res.status, 403, `${origin} ${type}`);
          assert.equal(res.headers.get("access-control-allow-origin"), null);
          const json = await res.json();
          assert.equal(json.error, "forbidden_origin");
          if (style === "oauth") assert.ok(json.error_description);
          else assert.equal(json.ok, false);
        }
      }
    });
    await t.step(`${path}: the service's own origin is served`, async () => {
      const res = await send(app, path, body, `192.0.2.${10 + n}`, {
        "Content-Type": "application/json",
        "Origin": app.config.baseUrl,
      });
      assert.ok(res.status === 201 || res.status === 202, String(res.status));
      assert.equal(res.headers.get("access-control-allow-origin"), app.config.baseUrl);
      await res.body?.cancel();
    });
    await t.step(`${path}: an ALLOWED_ORIGINS origin is served with CORS`, async () => {
      const res = await send(app, path, body, `192.0.2.${20 + n}`, {
        "Content-Type": "application/json",
        "Origin": "https://partner.example",
      });
      assert.ok(res.status === 201 || res.status === 202, String(res.status));
      assert.equal(res.headers.get("access-control-allow-origin"), "https://partner.example");
      await res.body?.cancel();
    });
  }
  for (const [path, body] of oauthForms) {
    await t.step(
      `${path}: a cross-site form post is 403 before authentication or counting`,
      async () => {
        const res = await send(app, path, body, "192.0.2.53", {
          "Content-Type": "application/x-www-form-urlencoded",
          "Authorization": "Basic YWd0X3g6eQ==",
          "Origin": "https://evil.example",
        });
        assert.equal(res.status, 403);
        assert.equal((await res.json()).error, "forbidden_origin");
        assert.equal(res.headers.get("ratelimit"), null, "nothing was counted");
      },
    );
  }
  await t.step("the refused requests spent no one's budget and stored nothing", async () => {
    assert.equal(await count(app, "submissions"), 4);
    assert.equal(await count(app, "clients"), 2);
    // 192.0.2.50 sent only refused requests: its one place per minute is still free, for
    // submissions and for registrations alike.
    assert.equal(
      await status(send(app, "/api/v1/intake", JSON.stringify(LEAD), "192.0.2.50")),
      202,
    );
    assert.equal(
      await status(send(app, "/agent/identity", '{"type":"anonymous"}', "192.0.2.50")),
      201,
    );
  });
  await t.step("a preflight from a foreign origin is 403, from an allowed one 204", async () => {
    const preflight = (origin: string) =>
      app.request("/api/v1/intake", {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
      });
    assert.equal(await status(preflight("https://evil.example")), 403);
    assert.equal(await status(preflight("https://partner.example")), 204);
  });
});

Deno.test("RATE_LIMIT_MCP limits MCP requests per address", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "3" } });
  const call = (address: string) =>
    app.request("/api/v1/mcp", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      address,
    });
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push(await status(call("192.0.2.60")));
  assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  const limited = await call("192.0.2.60");
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  assert.match(limited.headers.get("ratelimit-policy") ?? "", /"mcp";q=3;w=60/);
  await limited.body?.cancel();
  assert.equal(await status(call("192.0.2.61")), 200, "another address has its own budget");
});

Deno.test("the MCP endpoint refuses JSON-RPC batches with -32600 and runs none of their calls", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const calls = Array.from({ length: 100 }, (_, i) => ({
    jsonrpc: "2.0",
    id: i,
    method: "tools/call",
    params: { name: "submit_lead", arguments: LEAD },
  }));
  const bom = "\uFEFF"; // sent as the UTF-8 bytes EF BB BF, which the SDK would strip
  for (
    const body of [
      JSON.stringify(calls),
      `  \n\t${JSON.stringify(calls.slice(0, 1))}`,
      "[]",
      `${bom}${JSON.stringify(calls)}`,
      `${bom} \r\n${JSON.stringify(calls.slice(0, 2))}`,
    ]
  ) {
    const res = await post(app, "/api/v1/mcp", body, {
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    });
    assert.equal(res.status, 400);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const answer = await res.json();
    assert.equal(answer.jsonrpc, "2.0");
    assert.equal(answer.id, null);
    assert.equal(answer.error.code, -32600);
    assert.match(answer.error.message, /batches are not supported/);
  }
  assert.equal(await count(app, "submissions"), 0);
});

Deno.test("own-property lookups only: inherited names are not found, and never echoed as functions", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  for (const name of ["constructor", "toString", "valueOf", "__proto__", "hasOwnProperty"]) {
    await t.step(`GET /assets/${name} is 404`, async () => {
      const res = await app.request(`/assets/${name}`);
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error, "not_found");
    });
    await t.step(`country=${name} is a plain 400`, async () => {
      const res = await app.request(`/api/v1/locations?city=Zurich&country=${name}`);
      assert.equal(res.status, 400);
      assert.doesNotMatch(await res.text(), /function|native code/);
    });
    await t.step(`out_of_hours: "${name}" is a plain 400`, async () => {
      const res = await post(app, "/api/v1/quotes", {
        company: "Example GmbH",
        contact_name: "Alex Example",
        email: "alex@example.com",
        city: "Zurich",
        service_type: "remote-hands",
        description: "Install 4 servers",
        out_of_hours: name,
      });
      assert.equal(res.status, 400);
      const text = await res.text();
      assert.doesNotMatch(text, /function|native code/);
      assert.match(text, /out_of_hours must be true or false/);
    });
    await t.step(`an MCP tool named ${name} is -32602`, async () => {
      const res = await post(app, "/api/v1/mcp", {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: {} },
      }, { Accept: "application/json, text/event-stream" });
      const body = await res.json();
      assert.equal(body.error.code, -32602);
      assert.match(body.error.message, /not found\. The tools are/);
    });
  }
});

Deno.test("bounded errors: 6,500 argument keys are refused by their count, 30 get 20 issues and a count", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "0", RATE_LIMIT_SUBMIT: "0" } });
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1]));
  const call = async (args: Record<string, unknown>) => {
    const request = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_services", arguments: args },
    });
    const res = await post(app, "/api/v1/mcp", request, {
      Accept: "application/json, text/event-stream",
    });
    const text = await res.text();
    const body = JSON.parse(text.startsWith("{") ? text : text.split("data: ")[1]!);
    const bytes = new TextEncoder().encode(text).byteLength;
    assert.ok(bytes < 16 * 1024, `${bytes} bytes answered for ${request.length} sent`);
    return body.result.structuredContent;
  };
  await t.step("list_services over MCP with 6,500 (F2): the limit, one issue", async () => {
    const error = await call(keys(6500));
    assert.equal(error.error, "validation_failed");
    assert.match(error.message, /^list_services takes at most 32 arguments/);
    assert.deepEqual(error.issues.map((i: { path: string }) => i.path), ["(arguments)"]);
  });
  await t.step("list_services over MCP with 30: 20 issues listed and a count", async () => {
    const error = await call(keys(30));
    assert.equal(error.error, "validation_failed");
    assert.equal(error.issues.length, 20);
    assert.match(error.message, /^30 fields failed validation: .* and 10 more/);
  });
  await t.step("a quote with a 60 KB service_type echoes a bounded part of it", async () => {
    const res = await post(app, "/api/v1/quotes", {
      company: "Example GmbH",
      contact_name: "Alex Example",
      email: "alex@example.com",
      city: "Zurich",
      service_type: "x".repeat(60_000),
      description: "Install 4 servers",
    });
    assert.equal(res.status, 400);
    assert.ok((await res.text()).length < 4 * 1024);
  });
});

Deno.test("a submission with more than 64 properties is refused by their count, before its names are read", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "0", RATE_LIMIT_SUBMIT: "0" } });
  const padded = (n: number) => {
    const body: Record<string, unknown> = { ...QUOTE };
    for (let i = Object.keys(body).length; i < n; i++) body[`k${i}`] = 1;
    return body;
  };
  await t.step("REST: 65 properties, one issue stating the limit", async () => {
    const res = await post(app, "/api/v1/quotes", padded(65));
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error, "validation_failed");
    assert.deepEqual(body.issues, [{
      path: "(body)",
      message: "a submission has at most 64 properties: its fields and at most 16 additional ones",
    }]);
  });
  await t.step("REST: 64 are read, and refused for their additional properties", async () => {
    const res = await post(app, "/api/v1/intake", { ...LEAD, ...padded(64) });
    assert.equal(res.status, 400);
    assert.match((await res.json()).message, /failed validation/);
  });
  await t.step("MCP: request_quote with 6,000 is a tool error stating the limit", async () => {
    const r = await mcpToolCall(app, "request_quote", padded(6_000));
    assert.equal(r.isError, true);
    assert.match(String(r.structuredContent.message), /^request_quote takes at most 64 arguments/);
  });
});
