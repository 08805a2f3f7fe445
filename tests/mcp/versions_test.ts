/**
 * MCP protocol versions: the endpoint serves exactly the revisions its Server Card lists
 * (2026-07-28 and 2025-11-25), and `server/discover` lists the same. An `initialize` naming
 * any other is answered with 2025-11-25 (MCP lifecycle, "Version Negotiation"), and a later
 * request whose `MCP-Protocol-Version` header names one it does not serve is 400 (MCP
 * transports, "Protocol Version Header"). docs/mcp.md, "Protocol versions", says why.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { PROTOCOL_VERSIONS } from "../../src/mcp/protocol.ts";
import { initializeRequest, TOOL_NAMES } from "../_fixtures.ts";
import { createApp, listen, mcpPost } from "../_helpers.ts";

/** The revisions before 2025-11-25 that clients still send. */
const OLDER = ["2024-11-05", "2025-03-26", "2025-06-18"];
const LEGACY = "2025-11-25";

/** The one JSON-RPC message of an answer, whether a JSON body or a one-event stream. */
async function message(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const data = res.headers.get("content-type")?.startsWith("text/event-stream")
    ? text.split("\n").find((line) => line.startsWith("data: "))?.slice(6)
    : text;
  assert.ok(data, `one JSON-RPC message in ${text.slice(0, 200)}`);
  return JSON.parse(data);
}

function initialize(version: string) {
  const request = initializeRequest("versions");
  return { ...request, params: { ...request.params as object, protocolVersion: version } };
}

const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

Deno.test("the Server Card lists exactly the protocol versions the endpoint serves", async () => {
  await using app = await createApp();
  const res = await app.request("/api/v1/mcp/server-card");
  assert.equal(res.status, 200);
  const card = await res.json() as { remotes: { supportedProtocolVersions: string[] }[] };
  assert.deepEqual(card.remotes[0]!.supportedProtocolVersions, ["2026-07-28", LEGACY]);
  assert.deepEqual(card.remotes[0]!.supportedProtocolVersions, [...PROTOCOL_VERSIONS]);
});

Deno.test("server/discover lists the protocol versions the Server Card lists, 2026-07-28 first", async (t) => {
  await using app = await createApp();
  const card = await (await app.request("/api/v1/mcp/server-card")).json();
  const res = await mcpPost(app, {
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "versions", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover" });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const { result } = await message(res) as { result: { supportedVersions: string[] } };
  assert.deepEqual(result.supportedVersions, card.remotes[0].supportedProtocolVersions);
  assert.deepEqual(result.supportedVersions, ["2026-07-28", LEGACY]);
  await t.step("docs/mcp.md says so", async () => {
    const text = (await Deno.readTextFile(new URL("../../docs/mcp.md", import.meta.url)))
      .replace(/\s+/g, " ");
    assert.match(
      text,
      /`server\/discover` lists the same two \(`supportedVersions`, 2026-07-28 first\)/,
    );
  });
  await t.step("and the SDK client still settles on 2026-07-28 from it", async () => {
    await using served = await listen();
    const client = new Client({ name: "versions", version: "1" }, {
      versionNegotiation: { mode: "auto" },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.baseUrl}/api/v1/mcp`)),
    );
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    } finally {
      await client.close();
    }
  });
});

Deno.test("MCP initialize: a served version is answered with itself, any other with 2025-11-25", async (t) => {
  await using app = await createApp();
  await t.step("2025-11-25 is answered with 2025-11-25", async () => {
    const res = await mcpPost(app, initialize(LEGACY));
    assert.equal(res.status, 200);
    const { result } = await message(res) as { result: { protocolVersion: string } };
    assert.equal(result.protocolVersion, LEGACY);
  });
  // 2026-07-28 is reached by server/discover and per-request _meta, never by initialize.
  for (const version of [...OLDER, "2026-07-28", "2099-01-01"]) {
    await t.step(`${version} is answered with 2025-11-25, not echoed`, async () => {
      const res = await mcpPost(app, initialize(version));
      assert.equal(res.status, 200);
      const { result } = await message(res) as { result: { protocolVersion: string } };
      assert.equal(result.protocolVersion, LEGACY);
    });
  }
});

Deno.test("MCP-Protocol-Version on a later request: a served version is served, another is 400", async (t) => {
  await using app = await createApp();
  await t.step("2025-11-25 is served", async () => {
    const res = await mcpPost(app, TOOLS_LIST, { "MCP-Protocol-Version": LEGACY });
    assert.equal(res.status, 200);
    const { result } = await message(res) as { result: { tools: { name: string }[] } };
    assert.deepEqual(result.tools.map((tool) => tool.name), TOOL_NAMES);
  });
  await t.step("no header (a client older than the header) is served", async () => {
    const res = await mcpPost(app, TOOLS_LIST);
    assert.equal(res.status, 200);
    const { result } = await message(res) as { result: { tools: unknown[] } };
    assert.equal(result.tools.length, TOOL_NAMES.length);
  });
  for (const version of OLDER) {
    await t.step(`${version} is 400, naming the versions served`, async () => {
      const res = await mcpPost(app, TOOLS_LIST, { "MCP-Protocol-Version": version });
      assert.equal(res.status, 400);
      const { error } = await message(res) as { error: { code: number; message: string } };
      assert.equal(error.code, -32000);
      assert.match(error.message, new RegExp(`Unsupported protocol version: ${version}`));
      assert.match(error.message, /2026-07-28, 2025-11-25/);
    });
  }
  await t.step("an unknown revision is 400 too", async () => {
    const res = await mcpPost(app, TOOLS_LIST, { "MCP-Protocol-Version": "2099-01-01" });
    assert.equal(res.status, 400);
    const { error } = await message(res) as { error: { code: number } };
    assert.equal(typeof error.code, "number");
  });
});

/** An SDK client on the initialize handshake, offering `versions` (the first one first). */
function legacyClient(versions: string[]): Client {
  return new Client({ name: "versions", version: "1" }, {
    versionNegotiation: { mode: "legacy" },
    supportedProtocolVersions: versions,
  });
}

Deno.test("@modelcontextprotocol/client@2 offering an older version, over a real port", async (t) => {
  await using app = await listen();
  const url = new URL(`${app.baseUrl}/api/v1/mcp`);
  await t.step("a client that also knows 2025-11-25 goes on with it", async () => {
    const client = legacyClient(["2025-06-18", LEGACY]);
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), LEGACY);
      // Its later requests carry MCP-Protocol-Version: 2025-11-25 and are served.
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), TOOL_NAMES);
    } finally {
      await client.close();
    }
  });
  await t.step(
    "a client that knows only 2025-06-18 disconnects, as the lifecycle says",
    async () => {
      const client = legacyClient(["2025-06-18"]);
      await assert.rejects(
        client.connect(new StreamableHTTPClientTransport(url)),
        /protocol version is not supported: 2025-11-25/,
      );
      await client.close();
    },
  );
});
