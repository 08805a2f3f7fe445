/**
 * A 2026-07-28 request lacking several of its requirements (the `_meta` envelope, its
 * protocolVersion and clientCapabilities keys, the `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers) learns them all from one error (issue 39, point 8): the SDK's code and
 * data, `data.missing` listing each, and a message naming each with its value. Sending what
 * it lists is served. One missing requirement, or a value that is wrong, keeps the SDK's own
 * answer (docs/mcp.md, "Transport rules", says what the SDK leaves one at a time).
 */

import assert from "node:assert/strict";
import { createApp, mcpPost } from "../_helpers.ts";

const VERSION = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const ENVELOPE = {
  [VERSION]: "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "requirements", version: "1" },
  [CAPABILITIES]: {},
};
const HEADERS = {
  "MCP-Protocol-Version": "2026-07-28",
  "Mcp-Method": "tools/call",
  "Mcp-Name": "list_services",
};

type Meta = Record<string, unknown> | undefined;

/** A `tools/call` of list_services with this envelope (none when undefined). */
function call(meta: Meta) {
  return {
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "list_services", arguments: {}, ...(meta ? { _meta: meta } : {}) },
  };
}

/** Only the named headers of HEADERS. */
function only(...names: (keyof typeof HEADERS)[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, HEADERS[n]]));
}

const { [CAPABILITIES]: _, ...withoutCapabilities } = ENVELOPE;

/** What is sent, the code, and every requirement the one error must list. */
const CASES: [string, Meta, Record<string, string>, number, string[]][] = [
  ["the version header alone", undefined, only("MCP-Protocol-Version"), -32602, [
    "_meta",
    "Mcp-Method",
    "Mcp-Name",
  ]],
  ["an empty _meta", {}, only("MCP-Protocol-Version"), -32602, [
    `_meta.${VERSION}`,
    `_meta.${CAPABILITIES}`,
    "Mcp-Method",
    "Mcp-Name",
  ]],
  ["_meta without clientCapabilities, and no header", withoutCapabilities, {}, -32602, [
    `_meta.${CAPABILITIES}`,
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
  ]],
  ["a whole _meta and no header", ENVELOPE, {}, -32020, [
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
  ]],
  ["a whole _meta and the version header", ENVELOPE, only("MCP-Protocol-Version"), -32020, [
    "Mcp-Method",
    "Mcp-Name",
  ]],
];

/** The request with everything `missing` names added, as the error says to. */
function completed(meta: Meta, headers: Record<string, string>, missing: string[]) {
  const envelope: Record<string, unknown> = { ...meta };
  for (const name of missing) {
    if (name === "_meta") Object.assign(envelope, ENVELOPE);
    else if (name.startsWith("_meta.")) {
      const key = name.slice(6) as keyof typeof ENVELOPE;
      envelope[key] = ENVELOPE[key];
    } else headers = { ...headers, [name]: HEADERS[name as keyof typeof HEADERS] };
  }
  return [call(envelope), headers] as const;
}

Deno.test("a 2026-07-28 request lacking several requirements gets one error listing them all", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "0" } });
  for (const [what, meta, headers, code, missing] of CASES) {
    await t.step(what, async () => {
      const res = await mcpPost(app, call(meta), headers);
      assert.equal(res.status, 400);
      const { id, error } = await res.json();
      assert.equal(id, 3);
      assert.equal(error.code, code, "the SDK's code");
      assert.deepEqual(error.data.missing, missing);
      assert.ok(error.data.envelope ?? error.data.mismatch, "the SDK's data kept");
      assert.match(error.message, /^Invalid request for protocol revision 2026-07-28: it lacks /);
      assert.match(error.message, /Send them all in one request\.$/);
      for (const name of missing) {
        assert.ok(error.message.includes(name.replace(/^_meta\./, "")), name);
      }
      if (missing.includes("Mcp-Method")) {
        assert.match(error.message, /the Mcp-Method header \(tools\/call\)/);
      }
      if (missing.includes("Mcp-Name")) {
        assert.match(error.message, /the Mcp-Name header \(list_services\)/);
      }
      // What it lists is all it lacked: sent together, the call is served.
      const again = await mcpPost(app, ...completed(meta, headers, missing));
      assert.equal(again.status, 200, await again.clone().text());
      assert.equal((await again.json()).result.structuredContent.ok, true);
    });
  }
  await t.step("a method without a name lists no Mcp-Name", async () => {
    const res = await mcpPost(
      app,
      { jsonrpc: "2.0", id: 4, method: "tools/list", params: {} },
      only("MCP-Protocol-Version"),
    );
    assert.equal(res.status, 400);
    const { error } = await res.json();
    assert.deepEqual(error.data.missing, ["_meta", "Mcp-Method"]);
    assert.match(error.message, /the Mcp-Method header \(tools\/list\)/);
  });
});

Deno.test("one missing requirement, or a wrong value, keeps the SDK's own answer", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "0" } });
  await t.step("only Mcp-Name is missing", async () => {
    const res = await mcpPost(app, call(ENVELOPE), only("MCP-Protocol-Version", "Mcp-Method"));
    assert.equal(res.status, 400);
    const { error } = await res.json();
    assert.equal(error.code, -32020);
    assert.match(error.message, /^Bad Request: .*Mcp-Name header is absent/);
    assert.equal(error.data.missing, undefined);
  });
  await t.step("clientCapabilities is not an object: named alone, headers later", async () => {
    const res = await mcpPost(app, call({ ...ENVELOPE, [CAPABILITIES]: "all" }), {});
    assert.equal(res.status, 400);
    const { error } = await res.json();
    assert.equal(error.code, -32602);
    assert.match(error.message, /^Invalid _meta envelope .*clientCapabilities/);
    assert.equal(error.data.missing, undefined);
  });
});

Deno.test("docs/mcp.md says what one error lists, and what the SDK still answers one at a time", async () => {
  const text = (await Deno.readTextFile(new URL("../../docs/mcp.md", import.meta.url)))
    .replace(/\s+/g, " ");
  assert.match(text, /One that lacks several of them gets one `400` naming them all/);
  assert.match(text, /`data.missing` listing each \(`\["_meta", "Mcp-Method", "Mcp-Name"\]`\)/);
  assert.match(text, /sent together, the call is served/);
  assert.match(text, /A value that is wrong .* is still the SDK's own error, one at a time/);
});
