/**
 * The quote builder as the MCP Apps extension (io.modelcontextprotocol/ui, 2026-01-26) asks,
 * in both protocol eras the endpoint serves, through the real SDK client over a real port:
 * the extension announced in `initialize` and `server/discover`; the `ui://` resource listed
 * by `resources/list` and read by `resources/read` with identical bytes every time; the link
 * `_meta.ui.resourceUri` on check_coverage and estimate_quote (never the deprecated flat key)
 * whatever the client declares; the tool's text answer complete on its own; the descriptor and
 * the server card naming the app; and the OpenAPI document without it.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { createApp, listen, mcpPost, mcpResult } from "../_helpers.ts";
import { initializeRequest, TOOL_NAMES } from "../_fixtures.ts";

const URI = "ui://dc-field-services/quote-builder";
const MIME = "text/html;profile=mcp-app";
const EXTENSION = "io.modelcontextprotocol/ui";
const LINKED = ["check_coverage", "estimate_quote"];

const ERAS = [
  { name: "2025-11-25", mode: "legacy" as const },
  { name: "2026-07-28", mode: { pin: "2026-07-28" } },
];

/** What a client may declare: the extension, nothing, or something else under extensions. */
const DECLARATIONS = [
  {
    name: "declaring the extension",
    capabilities: { extensions: { [EXTENSION]: { mimeTypes: [MIME] } } },
  },
  { name: "declaring nothing (as claude.ai)", capabilities: {} },
  { name: "declaring other extensions", capabilities: { extensions: { "com.example/x": {} } } },
];

function client(era: (typeof ERAS)[number], capabilities: object): Client {
  return new Client({ name: "app-protocol", version: "1" }, {
    versionNegotiation: { mode: era.mode },
    capabilities,
  });
}

Deno.test("the MCP App in both eras, whatever the client declares, over a real port", async (t) => {
  await using app = await listen();
  const url = new URL(`${app.baseUrl}/api/v1/mcp`);
  let firstText: string | undefined;
  for (const era of ERAS) {
    for (const declared of DECLARATIONS) {
      await t.step(`${era.name}, ${declared.name}`, async () => {
        const c = client(era, declared.capabilities);
        await c.connect(new StreamableHTTPClientTransport(url));
        try {
          assert.equal(c.getNegotiatedProtocolVersion(), era.name);
          const caps = c.getServerCapabilities()!;
          assert.deepEqual(caps.extensions?.[EXTENSION], { mimeTypes: [MIME] });
          assert.ok(caps.resources, "the resources capability");

          const { tools } = await c.listTools();
          assert.deepEqual(tools.map((tool) => tool.name), TOOL_NAMES);
          for (const tool of tools) {
            const meta = tool._meta as Record<string, unknown> | undefined;
            assert.equal(meta?.["ui/resourceUri"], undefined, "not the deprecated flat key");
            if (LINKED.includes(tool.name)) {
              assert.deepEqual(meta, { ui: { resourceUri: URI } }, `${tool.name} links the app`);
            } else {
              assert.equal(meta, undefined, `${tool.name} carries no _meta`);
            }
          }

          const { resources } = await c.listResources();
          assert.deepEqual(resources.map((r) => [r.uri, r.mimeType]), [[URI, MIME]]);
          assert.deepEqual(resources[0]!._meta, { ui: { csp: {}, prefersBorder: true } });

          const read = await c.readResource({ uri: URI });
          assert.equal(read.contents.length, 1);
          const [content] = read.contents as {
            uri: string;
            mimeType: string;
            text: string;
            _meta: unknown;
          }[];
          assert.equal(content!.uri, URI);
          assert.equal(content!.mimeType, MIME);
          assert.deepEqual(content!._meta, { ui: { csp: {}, prefersBorder: true } });
          assert.match(content!.text, /^<!doctype html>/i);
          firstText ??= content!.text;
          assert.equal(content!.text, firstText, "the same bytes in every era, for every client");
        } finally {
          await c.close();
        }
      });
    }
  }
});

Deno.test("server/discover (2026-07-28) and initialize (2025-11-25) announce the extension", async (t) => {
  await using app = await createApp();
  const settings = { mimeTypes: [MIME] };
  await t.step("initialize", async () => {
    const res = await mcpPost(app, initializeRequest("app-protocol"));
    const result = mcpResult(await res.text());
    assert.deepEqual(result.capabilities.extensions, { [EXTENSION]: settings });
    assert.deepEqual(result.capabilities.resources, { listChanged: false });
  });
  await t.step("server/discover", async () => {
    const res = await mcpPost(app, {
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover" });
    assert.equal(res.status, 200);
    const result = mcpResult(await res.text());
    assert.deepEqual(result.capabilities.extensions, { [EXTENSION]: settings });
  });
});

Deno.test("resources/read of anything but the app is refused; the app's bytes never vary", async (t) => {
  await using app = await createApp();
  const read = async (uri: string) =>
    mcpResult(
      await (await mcpPost(app, {
        jsonrpc: "2.0",
        id: 7,
        method: "resources/read",
        params: { uri },
      }, { "MCP-Protocol-Version": "2025-11-25" })).text(),
    );
  const texts = new Set<string>();
  for (let i = 0; i < 3; i++) texts.add((await read(URI)).contents[0].text);
  assert.equal(texts.size, 1);
  for (
    const uri of [`${URI}?city=x`, `${URI}/`, "ui://dc-field-services/other", "file:///etc/passwd"]
  ) {
    await t.step(uri, async () => {
      const res = await mcpPost(app, {
        jsonrpc: "2.0",
        id: 8,
        method: "resources/read",
        params: { uri },
      }, { "MCP-Protocol-Version": "2025-11-25" });
      const body = await res.text();
      const message = JSON.parse(body.slice(body.indexOf("{")));
      assert.equal(message.result, undefined, body.slice(0, 300));
      assert.equal(typeof message.error.code, "number");
      assert.doesNotMatch(body, /<!doctype/i);
    });
  }
});

Deno.test("a linked tool's text answer is complete on its own, for hosts that render no app", async () => {
  await using app = await createApp();
  const res = await mcpPost(app, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "estimate_quote",
      arguments: {
        city: "Ashburn",
        service_type: "remote hands",
        engineer_count: 2,
        estimated_hours: 6,
      },
    },
  }, { "MCP-Protocol-Version": "2025-11-25" });
  const result = mcpResult(await res.text());
  assert.equal(result.content.length, 1);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  assert.equal(result.structuredContent.budget_estimate.currency, "EUR");
});

Deno.test("the descriptor and the server card name the app; the OpenAPI document does not", async (t) => {
  await using app = await createApp();
  await t.step("/.well-known/mcp.json", async () => {
    const d = await (await app.request("/.well-known/mcp.json")).json();
    assert.deepEqual(d.apps, [{
      uri: URI,
      mime_type: MIME,
      extension: EXTENSION,
      title: "Quote builder",
      description: d.apps[0].description,
      tools: LINKED,
    }]);
    assert.match(d.apps[0].description, /Submits nothing/);
  });
  await t.step("/api/v1/mcp/server-card", async () => {
    const card = await (await app.request("/api/v1/mcp/server-card")).json();
    assert.deepEqual(card.capabilities.extensions, { [EXTENSION]: { mimeTypes: [MIME] } });
    assert.deepEqual(
      card.resources.map((r: { uri: string; mimeType: string }) => [r.uri, r.mimeType]),
      [[URI, MIME]],
    );
  });
  await t.step("/api/v1/openapi.json: no path, operation or schema of the app", async () => {
    const doc = await (await app.request("/api/v1/openapi.json")).json();
    const card = await (await app.request("/api/v1/mcp/server-card")).json();
    // The one place it shows: the server card's example, which is the live card.
    const content = doc.paths["/api/v1/mcp/server-card"].get.responses["200"].content;
    const examples = content["application/mcp-server-card+json"].examples;
    assert.deepEqual(examples.card.value, card);
    delete content["application/mcp-server-card+json"].examples;
    assert.doesNotMatch(
      JSON.stringify(doc),
      /ui:\/\/|mcp-app|io\.modelcontextprotocol\/ui|quote.builder|resources\/(?:list|read)/i,
    );
  });
});
