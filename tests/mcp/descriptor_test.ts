import assert from "node:assert/strict";
import { buildCatalog, PLACES_FILE } from "../../src/catalog/catalog.ts";
import servicesFile from "../../data/services.v1.json" with { type: "json" };
import locationsFile from "../../data/locations.v1.json" with { type: "json" };
import holidaysFile from "../../data/holidays.v1.json" with { type: "json" };
import { TOOL_NAMES } from "../_fixtures.ts";
import { createApp, mcpToolCall } from "../_helpers.ts";

const placesFile = Deno.readFileSync(PLACES_FILE);

const SUBMITTING = new Set(["submit_lead", "request_quote"]);

Deno.test("GET /.well-known/mcp.json is the SPEC §2.6 tool descriptor, field by field", async (t) => {
  await using app = await createApp();
  const res = await app.request("/.well-known/mcp.json");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(res.headers.get("cache-control"), "public, max-age=60");
  const d = await res.json();

  await t.step("top-level fields", () => {
    assert.equal(d.ok, true);
    assert.equal(d.version, "1.0.0");
    assert.equal(d.protocol_version, "2026-07-28");
    assert.equal(d.transport, "streamable-http");
    assert.equal(d.transport_url, "https://api.test/api/v1/mcp");
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
    assert.deepEqual(d.tools.map((x: { name: string }) => x.name), TOOL_NAMES);
  });

  for (const tool of d.tools) {
    await t.step(`${tool.name}: every field and flag`, () => {
      for (
        const field of [
          "name",
          "description",
          "anonymous_allowed",
          "creates_billable_order",
          "input_schema",
          "http",
          "output_schema",
          "auth_required",
          "billable_action",
          "safety",
        ]
      ) assert.ok(field in tool, `${tool.name} has ${field}`);
      assert.equal(typeof tool.description, "string");
      assert.equal(tool.anonymous_allowed, true);
      assert.equal(tool.auth_required, false);
      assert.equal(tool.billable_action, false);
      assert.equal(tool.creates_billable_order, false);
      assert.deepEqual(Object.keys(tool.http).sort(), ["method", "path"]);
      assert.deepEqual(Object.keys(tool.safety).sort(), [
        "anonymous_allowed",
        "creates_billable_order",
        "dispatch_scheduled",
        "notes",
        "private_ticket_access",
        "requires_human_review",
      ]);
      assert.equal(tool.safety.anonymous_allowed, true);
      assert.equal(tool.safety.creates_billable_order, false);
      assert.equal(tool.safety.dispatch_scheduled, false);
      assert.equal(tool.safety.private_ticket_access, false);
      assert.equal(tool.safety.requires_human_review, SUBMITTING.has(tool.name));
      assert.match(tool.safety.notes, /no anonymous order-creation tool/i);
      assert.match(tool.safety.notes, /non-binding/);
      if (SUBMITTING.has(tool.name)) assert.equal(tool.requires_human_approval, true);
      else assert.equal("requires_human_approval" in tool, false);
      assert.equal(tool.input_schema.type, "object");
      assert.equal(tool.output_schema.type, "object");
    });
  }

  await t.step("http mappings", () => {
    const http = Object.fromEntries(
      d.tools.map((x: { name: string; http: unknown }) => [x.name, x.http]),
    );
    assert.deepEqual(http, {
      list_services: { method: "GET", path: "/api/v1/services" },
      check_coverage: { method: "GET", path: "/api/v1/locations" },
      submit_lead: { method: "POST", path: "/api/v1/intake" },
      request_quote: { method: "POST", path: "/api/v1/quotes" },
      estimate_quote: { method: "GET", path: "/api/v1/estimate" },
      get_request_status: { method: "GET", path: "/api/v1/requests/{request_id}" },
    });
  });

  await t.step("input schemas follow SPEC §2.4–2.5 and §4.6", () => {
    const by = Object.fromEntries(d.tools.map((x: { name: string }) => [x.name, x]));
    const list = by.list_services.input_schema;
    assert.deepEqual(list.properties ?? {}, {});
    assert.equal(list.additionalProperties, false);
    const cov = by.check_coverage.input_schema;
    assert.deepEqual(cov.required, ["city"]);
    assert.deepEqual(Object.keys(cov.properties).sort(), ["city", "country"]);
    assert.equal(cov.additionalProperties, false);
    const lead = by.submit_lead.input_schema;
    assert.deepEqual(lead.required.sort(), ["description", "email"]);
    assert.equal(lead.properties.email.format, "email");
    assert.notEqual(lead.additionalProperties, false);
    assert.deepEqual(Object.keys(lead.properties).sort(), [
      "agent_context_optional",
      "city",
      "company",
      "contact_name",
      "country",
      "description",
      "email",
      "idempotency_key",
      "phone",
      "service_type",
      "urgency",
    ]);
    const quote = by.request_quote.input_schema;
    assert.deepEqual(quote.required.sort(), [
      "city",
      "company",
      "contact_name",
      "description",
      "email",
      "service_type",
    ]);
    // SPEC §2.5's sixteen fields, and what the service adds: urgency, idempotency_key and
    // currency (optional, so a SPEC client's request is unchanged).
    assert.deepEqual(Object.keys(quote.properties).sort(), [
      "agent_context_optional",
      "attachments_optional",
      "city",
      "company",
      "contact_name",
      "country",
      "currency",
      "description",
      "email",
      "engineer_count",
      "estimated_hours",
      "idempotency_key",
      "out_of_hours",
      "phone",
      "requested_date",
      "requested_time",
      "service_type",
      "site_address",
      "urgency",
    ]);
    for (const name of ["phone", "country", "site_address", "requested_date", "requested_time"]) {
      assert.equal(quote.properties[name].type, "string", name);
    }
    assert.equal(quote.properties.engineer_count.type, "integer");
    assert.equal(quote.properties.estimated_hours.type, "number");
    assert.equal(quote.properties.out_of_hours.type, "boolean");
    assert.equal(quote.properties.attachments_optional.type, "array");
    assert.equal(quote.properties.attachments_optional.items.type, "string");
    assert.equal(quote.properties.agent_context_optional.type, "object");
    assert.equal(quote.properties.idempotency_key.type, "string");
    assert.equal("default" in quote.properties.engineer_count, false, "no silent default");
    assert.equal("default" in quote.properties.out_of_hours, false, "inferred, not defaulted");
    assert.notEqual(quote.additionalProperties, false);
  });

  await t.step("output schemas follow SPEC §2.3–2.5", () => {
    const out = Object.fromEntries(
      d.tools.map((
        x: { name: string; output_schema: { required: string[] } },
      ) => [x.name, x.output_schema.required.sort()]),
    );
    assert.deepEqual(out.list_services, ["ok", "services"]);
    assert.deepEqual(out.check_coverage, ["coverage", "ok"]);
    assert.deepEqual(out.submit_lead, [
      "billable_order_created",
      "ok",
      "request_id",
      "requires_human_approval",
    ]);
    assert.deepEqual(out.request_quote, [
      "billable_order_created",
      "budget_estimate",
      "ok",
      "request_id",
      "requires_human_approval",
    ]);
  });
});

Deno.test("GET /api/v1/mcp/server-card is an MCP Server Card pointing at the endpoint", async () => {
  await using app = await createApp();
  const res = await app.request("/api/v1/mcp/server-card");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/mcp-server-card+json");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const card = await res.json();
  assert.equal(card.name, "test.api/dc-field-services");
  assert.equal(card.version, "1.0.0");
  assert.equal(typeof card.description, "string");
  assert.deepEqual(card.remotes, [{
    type: "streamable-http",
    url: "https://api.test/api/v1/mcp",
    supportedProtocolVersions: ["2026-07-28", "2025-11-25"],
  }]);
});

Deno.test("GET /.well-known/ai-catalog.json and /.well-known/mcp/catalog.json list the server card", async () => {
  await using app = await createApp();
  for (
    const [path, type] of [
      ["/.well-known/ai-catalog.json", "application/ai-catalog+json"],
      ["/.well-known/mcp/catalog.json", "application/json; charset=utf-8"],
    ]
  ) {
    const res = await app.request(path!);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), type);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const catalog = await res.json();
    assert.equal(catalog.specVersion, "draft");
    assert.deepEqual(catalog.entries, [{
      identifier: "urn:air:api.test:dc-field-services",
      displayName: "DC Field Services",
      type: "application/mcp-server-card+json",
      url: "https://api.test/api/v1/mcp/server-card",
    }]);
  }
});

/**
 * Every property of a JSON Schema, with its path: object properties, array items, the
 * branches of anyOf/oneOf/allOf, whatever the nesting.
 */
function* properties(schema: unknown, path: string): Generator<[string, Record<string, unknown>]> {
  if (schema === null || typeof schema !== "object") return;
  const s = schema as Record<string, unknown>;
  for (const [name, value] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    yield [`${path}.${name}`, value as Record<string, unknown>];
    yield* properties(value, `${path}.${name}`);
  }
  if (s.items) yield* properties(s.items, `${path}[]`);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const branch of (s[key] ?? []) as unknown[]) yield* properties(branch, path);
  }
}

/** The `result` of an MCP `tools/list`, as a stateless 2025-11-25 client gets it. */
async function toolsList(app: Awaited<ReturnType<typeof createApp>>) {
  const res = await app.request("/api/v1/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const text = await res.text();
  return JSON.parse(text.startsWith("{") ? text : text.split("data: ")[1]!).result as {
    tools: Record<string, unknown>[];
  };
}

/** A property is described when it, or the branch that carries its type, has a description. */
function described(property: Record<string, unknown>): boolean {
  if (typeof property.description === "string" && property.description.length >= 10) return true;
  const branches = [...(property.anyOf ?? []) as Record<string, unknown>[]];
  return branches.some((b) => typeof b.description === "string" && b.description.length >= 10);
}

Deno.test("every property of every tool is described: inputs in tools/list and the descriptor, outputs in the descriptor", async (t) => {
  await using app = await createApp();
  const descriptor = await (await app.request("/.well-known/mcp.json")).json();
  const listed = (await toolsList(app)).tools as { name: string; [k: string]: unknown }[];
  // tools/list carries output shapes with one description each (see src/mcp/json_schema.ts).
  const sources: [string, { name: string; [k: string]: unknown }[], string[], number][] = [
    ["tools/list", listed, ["inputSchema"], 35],
    ["/.well-known/mcp.json", descriptor.tools, ["input_schema", "output_schema"], 80],
  ];
  for (const [source, tools, ios, least] of sources) {
    await t.step(source, () => {
      assert.equal(tools.length, 6);
      const missing: string[] = [];
      let count = 0;
      for (const tool of tools) {
        assert.ok(String(tool.description).length > 40, `${tool.name} describes when to use it`);
        for (const io of ios) {
          for (const [path, property] of properties(tool[io], `${tool.name}.${io}`)) {
            count++;
            if (!described(property)) missing.push(path);
          }
        }
      }
      assert.deepEqual(missing, [], `${missing.length} of ${count} properties lack a description`);
      assert.ok(count > least, `only ${count} properties walked`);
    });
  }
  await t.step("tools/list: each output shape says what its fields mean in one description", () => {
    for (const tool of listed) {
      const schema = tool.outputSchema as { description?: string; properties: object };
      assert.ok(String(schema.description).length > 40, `${tool.name} output is described`);
      assert.match(String(schema.description), /When ok is false the call failed/);
    }
  });
});

Deno.test("tools/list is at most 16 KB for all tools together", async () => {
  await using app = await createApp();
  const result = await toolsList(app);
  const bytes = new TextEncoder().encode(JSON.stringify(result)).byteLength;
  assert.ok(bytes <= 16 * 1024, `tools/list is ${bytes} bytes`);
  assert.equal(result.tools.length, 6);
});

Deno.test("no schema pattern refuses what its description promises: country takes a name", async (t) => {
  await using app = await createApp();
  const d = await (await app.request("/.well-known/mcp.json")).json();
  for (const tool of d.tools) {
    const country = tool.input_schema.properties?.country;
    if (!country) continue;
    await t.step(tool.name, () => {
      assert.equal(country.pattern, undefined, "no pattern");
      assert.match(country.description, /English name|Germany/);
    });
  }
  await t.step("and the tools take it", async () => {
    const c = await mcpToolCall(app, "check_coverage", { city: "Frankfurt", country: "Germany" });
    assert.equal((c.structuredContent.coverage as { covered: boolean }).covered, true);
  });
});

Deno.test("request_quote's service_type names the ids of the catalog the handler was given", async (t) => {
  const renamed = structuredClone(servicesFile);
  renamed.services = renamed.services.map((s) => ({ ...s, id: `x-${s.id}` }));
  const locations = structuredClone(locationsFile);
  locations.locations = locations.locations.map((l) => ({
    ...l,
    services: l.services.map((id) => `x-${id}`),
  }));
  const injected = buildCatalog({
    services: renamed,
    locations,
    places: placesFile,
    holidays: holidaysFile,
  });
  await using app = await createApp({ catalog: injected });
  const ids = injected.services.map((s) => s.id).join(", ");
  const described = (schema: { properties: Record<string, { description: string }> }) =>
    schema.properties.service_type!.description;

  await t.step("in tools/list", async () => {
    const tools = (await toolsList(app)).tools as { name: string; inputSchema: never }[];
    const quote = tools.find((tool) => tool.name === "request_quote")!;
    assert.match(described(quote.inputSchema), new RegExp(`one of ${ids};`));
  });
  await t.step("in the tool descriptor", async () => {
    const d = await (await app.request("/.well-known/mcp.json")).json();
    const quote = d.tools.find((tool: { name: string }) => tool.name === "request_quote");
    assert.match(described(quote.input_schema), new RegExp(`one of ${ids};`));
  });
  await t.step("in the OpenAPI document", async () => {
    const doc = await (await app.request("/api/v1/openapi.json")).json();
    assert.match(described(doc.components.schemas.QuoteInput), new RegExp(`one of ${ids};`));
  });
  await t.step("and a quote for an injected id is priced", async () => {
    const res = await mcpToolCall(app, "estimate_quote", {
      city: "Frankfurt",
      service_type: "x-remote-hands",
    });
    assert.equal(res.isError, undefined);
    assert.equal(res.structuredContent.service_id, "x-remote-hands");
  });
});

Deno.test("the pricing tools state the pricing rules: zone, span, holidays, currency, tax, notice, review", async () => {
  await using app = await createApp();
  const { tools } = await toolsList(app);
  const described = (name: string) => String(tools.find((t) => t.name === name)?.description);
  const estimate = described("estimate_quote");
  assert.match(estimate, /site's local time/);
  assert.match(estimate, /each hour outside 08:00-18:00 Monday to Friday/);
  assert.match(estimate, /public holiday/);
  assert.match(estimate, /EUR, tax excluded/);
  assert.match(estimate, /notice/);
  assert.match(estimate, /limited per address/);
  const quote = described("request_quote");
  assert.match(quote, /same pricing/);
  assert.match(quote, /expected_review: sooner for urgency emergency/);
  // The fields say what the hours are and when an emergency starts, in both tools.
  for (const name of ["estimate_quote", "request_quote"]) {
    const fields = (tools.find((t) => t.name === name)!.inputSchema as {
      properties: Record<string, { description: string }>;
    }).properties;
    assert.match(
      fields.estimated_hours!.description,
      /per engineer, not the total; days of at most 10 h/,
    );
    assert.match(fields.urgency!.description, /emergency.*no date or time.*priced from now/);
  }
});
