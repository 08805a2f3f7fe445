/**
 * The 2026-07-28 routing headers (SEP-2243): a `tools/call` whose `Mcp-Method` or
 * `Mcp-Name` header disagrees with its body is `400` with JSON-RPC -32020 HeaderMismatch,
 * whatever the tool: one that exists, one that does not, and one called with more
 * arguments than it takes. The endpoint's own answers (the unknown tool's message, the
 * argument count) come only after the SDK has checked the request.
 */

import assert from "node:assert/strict";
import { createApp, mcpPost } from "../_helpers.ts";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "headers", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

const MANY = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 1]));

/** A 2026-07-28 `tools/call` with the routing headers given. */
function call(name: string, args: Record<string, unknown>, method: string, header: string) {
  const message = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args, _meta: ENVELOPE },
  };
  return [message, {
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
    "Mcp-Name": header,
  }] as const;
}

const CASES = [
  ["a tool that exists", "list_services", {}],
  ["a tool that does not exist", "dispatch_engineer", {}],
  ["too many arguments", "list_services", MANY],
] as const;

Deno.test("a tools/call whose routing headers disagree with its body is 400 -32020", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "0" } });
  for (const [what, name, args] of CASES) {
    await t.step(`Mcp-Method names another method: ${what}`, async () => {
      const res = await mcpPost(app, ...call(name, args, "tools/list", name));
      assert.equal(res.status, 400);
      const { error } = await res.json();
      assert.equal(error.code, -32020);
      assert.match(error.message, /Mcp-Method header names tools\/list/);
    });
    await t.step(`Mcp-Name names another tool: ${what}`, async () => {
      const res = await mcpPost(app, ...call(name, args, "tools/call", "check_coverage"));
      assert.equal(res.status, 400);
      const { error } = await res.json();
      assert.equal(error.code, -32020);
      assert.match(error.message, /Mcp-Name header names "check_coverage"/);
    });
  }
});

Deno.test("with agreeing headers, the endpoint's own answers stand on 2026-07-28", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "0" } });
  await t.step("an unknown tool: -32602 naming the tools and what is not offered", async () => {
    const res = await mcpPost(
      app,
      ...call("dispatch_engineer", {}, "tools/call", "dispatch_engineer"),
    );
    assert.equal(res.status, 200);
    const { error } = await res.json();
    assert.equal(error.code, -32602);
    assert.match(
      error.message,
      /^Tool dispatch_engineer not found\. The tools are: check_coverage/,
    );
    assert.match(error.message, /No one can order work, dispatch engineers or accept quotes/);
    assert.doesNotMatch(error.message, /anonymous/);
  });
  await t.step("too many arguments: the tool's error stating the limit", async () => {
    const res = await mcpPost(app, ...call("list_services", MANY, "tools/call", "list_services"));
    assert.equal(res.status, 200);
    const { result } = await res.json();
    assert.equal(result.isError, true);
    assert.match(result.structuredContent.message, /^list_services takes at most 32 arguments/);
  });
});
