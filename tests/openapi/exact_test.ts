/**
 * @module
 * The points where the OpenAPI document and the service were found apart, by a Schemathesis
 * run (4.25, every check) and then by generated_test.ts, each through REST and, where the
 * field is an MCP tool's too, MCP: what the document says a field takes is what it takes.
 */

import assert from "node:assert/strict";
import {
  basic,
  createApp,
  mcpToolCall,
  mcpToolRequest,
  post,
  registerClient,
  type TestApp,
} from "../_helpers.ts";
import { JsonRpcAnswer, McpEventStream } from "../../src/openapi/components.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";

Deno.test("a number in any form JSON writes is read as a number: 1e-7, .5, 1E1 (REST and MCP)", async (t) => {
  await using app = await createApp();
  const cases: [string, number][] = [["1e-7", 1], [".5", 1], ["1E1", 10], ["2.5e0", 2.5]];
  await t.step("GET /api/v1/estimate", async () => {
    for (const [sent, hours] of cases) {
      const res = await app.request(
        `/api/v1/estimate?city=Zurich&service_type=remote-hands&estimated_hours=${sent}`,
      );
      assert.equal(res.status, 200, sent);
      assert.equal((await res.json()).budget_estimate.basis.hours, hours, sent);
    }
  });
  await t.step("estimate_quote", async () => {
    for (const [sent, hours] of cases) {
      const { structuredContent } = await mcpToolCall(app, "estimate_quote", {
        city: "Zurich",
        service_type: "remote-hands",
        estimated_hours: sent,
      });
      const estimate = structuredContent.budget_estimate as { basis: { hours: number } };
      assert.equal(estimate.basis.hours, hours, sent);
    }
  });
});

type Json = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Json>>; components: { schemas: Json } };

async function served(app: TestApp): Promise<Doc> {
  return await (await app.request("/api/v1/openapi.json")).json();
}

/** The operation's request body schema for a media type, its `$ref` followed. */
function requestSchema(doc: Doc, path: string, type = "application/json"): Json {
  const body = doc.paths[path]!.post!.requestBody as { content: Record<string, { schema: Json }> };
  const schema = body.content[type]!.schema;
  const ref = schema.$ref as string | undefined;
  return ref ? doc.components.schemas[ref.split("/").pop()!] as Json : schema;
}

Deno.test("POST /agent/identity: the schema requires nothing the service defaults, and names the one grant and method", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const schema = requestSchema(await served(app), "/agent/identity");
  const properties = schema.properties as Record<string, Json>;

  await t.step(
    "type is optional (anonymous when omitted), and an empty body registers",
    async () => {
      assert.equal(schema.required, undefined);
      const res = await post(app, "/agent/identity", {});
      assert.equal(res.status, 201);
      await res.body?.cancel();
    },
  );

  await t.step("grant_types holds client_credentials only; anything else is refused", async () => {
    assert.deepEqual((properties.grant_types!.items as Json).const, "client_credentials");
    const ok = await post(app, "/agent/identity", { grant_types: ["client_credentials"] });
    assert.equal(ok.status, 201);
    await ok.body?.cancel();
    const refused = await post(app, "/agent/identity", { grant_types: ["authorization_code"] });
    assert.equal(refused.status, 400);
    assert.equal((await refused.json()).error, "invalid_client_metadata");
  });

  await t.step(
    "token_endpoint_auth_method is client_secret_basic; anything else is refused",
    async () => {
      assert.equal(properties.token_endpoint_auth_method!.const, "client_secret_basic");
      const refused = await post(app, "/agent/identity", { token_endpoint_auth_method: "none" });
      assert.equal(refused.status, 400);
      assert.equal((await refused.json()).error, "invalid_client_metadata");
    },
  );

  await t.step("scope: what the pattern takes registers, what it refuses is refused", async () => {
    const pattern = new RegExp(properties.scope!.pattern as string, "u");
    const cases = [
      "",
      " ",
      "services:read",
      "coverage:read  locations:read ",
      "orders:write",
      "services:read,coverage:read",
      "services:readcoverage:read",
    ];
    for (const scope of cases) {
      const res = await post(app, "/agent/identity", { scope });
      assert.equal(res.status === 201, pattern.test(scope), JSON.stringify(scope));
      await res.body?.cancel();
    }
  });
});

Deno.test("POST /forms/lead and /forms/quote: the document declares their bodies and every answer", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const doc = await served(app);
  for (const [path, body] of [["/forms/lead", LEAD], ["/forms/quote", QUOTE]] as const) {
    const op = doc.paths[path]!.post!;
    const responses = op.responses as Record<string, { content?: Record<string, unknown> }>;
    const types = (status: string) => Object.keys(responses[status]?.content ?? {});
    const form = new URLSearchParams(
      Object.entries(body).map(([k, v]) => [k, String(v)]),
    ).toString();

    await t.step(`${path}: a JSON body or a form`, () => {
      const content = (op.requestBody as { content: Json }).content;
      assert.deepEqual(Object.keys(content), [
        "application/json",
        "application/x-www-form-urlencoded",
      ]);
      const fields = Object.keys(
        requestSchema(doc, path, "application/x-www-form-urlencoded")
          .properties as Json,
      );
      assert.ok(fields.includes("email") && !fields.includes("agent_context_optional"));
    });

    await t.step(`${path}: JSON is answered as the REST endpoint, a form with a page`, async () => {
      const json = await post(app, path, body);
      assert.equal(json.status, 202);
      assert.match(json.headers.get("content-type")!, /^application\/json/);
      assert.ok(types("202").includes("application/json"));
      await json.body?.cancel();
      const page = await app.request(path, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: form,
      });
      assert.equal(page.status, 202);
      assert.match(page.headers.get("content-type")!, /^text\/html/);
      assert.ok(types("202").includes("text/html"));
      await page.body?.cancel();
    });

    await t.step(`${path}: 415 for another media type, 403 for a foreign Origin`, async () => {
      const plain = await app.request(path, {
        method: "POST",
        headers: { "Content-Type": "text/plain" },
        body: JSON.stringify(body),
      });
      assert.equal(plain.status, 415);
      assert.match(plain.headers.get("content-type")!, /^application\/json/);
      assert.equal((await plain.json()).error, "unsupported_media_type");
      const foreign = await post(app, path, body, { Origin: "https://elsewhere.example" });
      assert.equal(foreign.status, 403);
      assert.deepEqual(types("403"), ["application/json"]);
      assert.equal((await foreign.json()).error, "forbidden_origin");
    });

    await t.step(`${path}: 415 for a form sent with a Content-Encoding is a page`, async () => {
      const encoded = await app.request(path, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Encoding": "br" },
        body: form,
      });
      assert.equal(encoded.status, 415);
      assert.match(encoded.headers.get("content-type")!, /^text\/html/);
      assert.equal(encoded.headers.get("accept-encoding"), "identity");
      assert.deepEqual(types("415"), ["application/json", "text/html"]);
      await encoded.body?.cancel();
    });

    await t.step(`${path}: a form's Idempotency-Key is read as the JSON one is`, async () => {
      const bad = await app.request(path, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", "Idempotency-Key": "a b" },
        body: form,
      });
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /Idempotency-Key must be 1 to 255 visible ASCII characters/);
      assert.ok(types("400").includes("text/html"));
      const send = (fields: string) =>
        app.request(path, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", "Idempotency-Key": "f1" },
          body: fields,
        });
      // A body not sent before: the same body within 10 minutes would replay that answer, and
      // a key that stored nothing binds no body (docs/api.md, "Idempotent submissions").
      const first = await send(form.replace("description=", "description=Keyed+"));
      assert.equal(first.status, 202);
      assert.equal(first.headers.get("Idempotent-Replayed"), null);
      await first.body?.cancel();
      const other = await send(form.replace("description=", "description=Other+"));
      assert.equal(other.status, 409);
      assert.ok(types("409").includes("text/html"));
      await other.body?.cancel();
    });
  }
});

Deno.test("Idempotency-Key: the header's pattern takes exactly what the submissions take", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const doc = await served(app);
  const v = "x".repeat(255);
  const cases = [
    "k",
    "abc-1",
    '"abc-1"',
    '"',
    '""',
    '"""',
    '"a',
    'a"',
    "a b",
    "é",
    v,
    `"${v}"`,
    `${v}x`,
    `"${v}x"`,
    `"${v}`,
    `${v.slice(1)}"`,
  ];
  for (const path of ["/api/v1/intake", "/api/v1/quotes", "/forms/lead", "/forms/quote"]) {
    await t.step(path, async () => {
      const header = (doc.paths[path]!.post!.parameters as Json[])
        .find((p) => p.name === "Idempotency-Key")!;
      const pattern = new RegExp((header.schema as Json).pattern as string, "u");
      const body = path.endsWith("quote") || path.endsWith("quotes") ? QUOTE : LEAD;
      for (const [n, key] of cases.entries()) {
        // One address a case: keys are per caller, and '"k"' is the key k.
        const res = await post(app, path, body, { "Idempotency-Key": key }, `198.51.100.${n}`);
        assert.equal(res.status === 202, pattern.test(key), `${path} ${JSON.stringify(key)}`);
        if (res.status !== 202) assert.equal((await res.json()).error, "invalid_idempotency_key");
        else await res.body?.cancel();
      }
    });
  }
});

Deno.test("currency: the pattern takes exactly the codes the service takes (REST and MCP)", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const doc = await served(app);
  const cases = ["EUR", "usd", " chf ", "Eur", "EURO", "EU", "12", "€", "E U R", ""];
  const estimate = (doc.paths["/api/v1/estimate"]!.get!.parameters as Json[])
    .find((p) => p.name === "currency")!.schema as Json;
  const quote = (requestSchema(doc, "/api/v1/quotes").properties as Record<string, Json>).currency!;
  assert.equal(estimate.pattern, quote.pattern);
  const pattern = new RegExp(estimate.pattern as string, "u");
  await t.step("GET /api/v1/estimate", async () => {
    for (const currency of cases.filter((c) => c !== "")) {
      const res = await app.request(
        `/api/v1/estimate?city=Zurich&service_type=remote-hands&currency=${
          encodeURIComponent(currency)
        }`,
      );
      assert.equal(res.status === 200, pattern.test(currency), JSON.stringify(currency));
      await res.body?.cancel();
    }
  });
  await t.step("estimate_quote", async () => {
    for (const currency of cases) {
      const { isError } = await mcpToolCall(app, "estimate_quote", {
        city: "Zurich",
        service_type: "remote-hands",
        currency,
      });
      assert.equal(!isError, pattern.test(currency), JSON.stringify(currency));
    }
  });
  await t.step("POST /api/v1/quotes", async () => {
    for (const [n, currency] of cases.entries()) {
      const res = await post(app, "/api/v1/quotes", { ...QUOTE, currency, description: `c${n}` });
      assert.equal(res.status === 202, pattern.test(currency), JSON.stringify(currency));
      await res.body?.cancel();
    }
  });
});

Deno.test("POST /api/v1/mcp: an event-stream answer is documented as events whose data is a JSON-RPC message", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const doc = await served(app);
  const ok = (doc.paths["/api/v1/mcp"]!.post!.responses as Record<string, Json>)["200"]!;
  const content = ok.content as Record<string, { schema: Json }>;
  assert.deepEqual(content["application/json"]!.schema, {
    $ref: "#/components/schemas/JsonRpcAnswer",
  });
  const events = doc.components.schemas.McpEventStream as Json;
  assert.deepEqual(content["text/event-stream"]!.schema, {
    $ref: "#/components/schemas/McpEventStream",
  });
  assert.equal(events.type, "array");
  const data = ((events.items as Json).properties as Record<string, Json>).data!;
  assert.equal(data.contentMediaType, "application/json");
  assert.deepEqual(data.contentSchema, { $ref: "#/components/schemas/JsonRpcAnswer" });

  const res = await mcpToolRequest(app, "list_services", {});
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const blocks = (await res.text()).split("\n\n").filter((b) => b.trim());
  const parsed = blocks.map((b) =>
    Object.fromEntries(
      b.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
    )
  );
  assert.ok(McpEventStream.safeParse(parsed).success, JSON.stringify(parsed).slice(0, 200));
  for (const event of parsed) {
    const message = JsonRpcAnswer.safeParse(JSON.parse(event.data!));
    assert.ok(message.success, event.data!.slice(0, 200));
  }
});

Deno.test("POST /oauth2/token and /oauth2/revoke: resource is the base URL, a token is not empty", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const doc = await served(app);
  const client = await registerClient(app);
  const form = (path: string, body: Record<string, string>) =>
    app.request(path, {
      method: "POST",
      headers: {
        Authorization: basic(client.client_id, client.client_secret),
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams(body).toString(),
    });
  await t.step("resource: the documented values are the accepted ones", async () => {
    const token = requestSchema(doc, "/oauth2/token", "application/x-www-form-urlencoded");
    const resource = (token.properties as Record<string, Json>).resource!;
    assert.deepEqual(resource.enum, ["https://api.test", "https://api.test/"]);
    for (const value of ["https://api.test", "https://api.test/", "https://other.test"]) {
      const res = await form("/oauth2/token", {
        grant_type: "client_credentials",
        resource: value,
      });
      assert.equal(res.status === 200, (resource.enum as string[]).includes(value), value);
      await res.body?.cancel();
    }
  });
  await t.step("revocation: an empty token is invalid per the schema and refused", async () => {
    const revoke = requestSchema(doc, "/oauth2/revoke", "application/x-www-form-urlencoded");
    assert.equal((revoke.properties as Record<string, Json>).token!.minLength, 1);
    const res = await form("/oauth2/revoke", { token: "" });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_request");
  });
});

Deno.test("text fields and phone: the patterns take exactly what the service takes (REST and MCP)", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const properties = requestSchema(await served(app), "/api/v1/quotes").properties as Record<
    string,
    Json
  >;
  const phone = new RegExp(properties.phone!.pattern as string, "u");
  const phones = [
    "+49 69 1234 5678",
    "12345",
    " 12345 ",
    "+ 1234",
    "1234 ",
    " 1234",
    "     ",
    "+    1",
    "(0)69/1234-5",
    "12 34",
    "1".repeat(40),
    "1".repeat(41),
    ` ${"1".repeat(40)} `,
  ];
  const company = new RegExp(properties.company!.pattern as string, "u");
  const companies = ["Acme", " Acme ", " ", "\t\n", "", "\u00a0"];
  const cases: [string, string, boolean][] = [
    ...phones.map((p): [string, string, boolean] => ["phone", p, phone.test(p)]),
    ...companies.map((c): [string, string, boolean] => ["company", c, company.test(c)]),
  ];
  await t.step("POST /api/v1/quotes", async () => {
    for (const [n, [field, value, valid]] of cases.entries()) {
      const res = await post(app, "/api/v1/quotes", {
        ...QUOTE,
        [field]: value,
        description: `${n}`,
      });
      assert.equal(res.status === 202, valid, `${field} ${JSON.stringify(value)}`);
      await res.body?.cancel();
    }
  });
  await t.step("request_quote", async () => {
    for (const [n, [field, value, valid]] of cases.entries()) {
      const { isError } = await mcpToolCall(app, "request_quote", {
        ...QUOTE,
        [field]: value,
        description: `mcp ${n}`,
      });
      assert.equal(!isError, valid, `${field} ${JSON.stringify(value)}`);
    }
  });
});

Deno.test("GET /api/v1/estimate: an empty optional parameter is not given, as allowEmptyValue says", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const doc = await served(app);
  const parameters = doc.paths["/api/v1/estimate"]!.get!.parameters as Json[];
  for (const p of parameters) {
    assert.equal(p.allowEmptyValue, p.required ? undefined : true, `${p.name}`);
  }
  const empty = parameters.filter((p) => !p.required).map((p) => `${p.name}=`).join("&");
  const res = await app.request(`/api/v1/estimate?city=Zurich&service_type=remote-hands&${empty}`);
  assert.equal(res.status, 200);
  await res.body?.cancel();
  for (
    const op of [doc.paths["/api/v1/locations"]!.get!, doc.paths["/api/v1/agent/coverage"]!.get!]
  ) {
    for (const p of op.parameters as Json[]) assert.equal(p.allowEmptyValue, undefined);
  }
  const country = await app.request("/api/v1/locations?city=Zurich&country=");
  assert.equal(country.status, 400);
  await country.body?.cancel();
});
