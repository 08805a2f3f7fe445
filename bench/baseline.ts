/**
 * @module
 * The cost floors for `bench/load.ts`, each a bare `Deno.serve` handler on the same
 * machine and the same kind of port. `FLOOR` picks one:
 *
 * - `json` (default), the baseline every ratio is taken against: answers every
 *   request with a small JSON object;
 * - `catalog-body`: the catalog document the service sends (3.5 KB) instead of the
 *   small object, with the same headers (a fresh `X-Request-Id` each): what the answer
 *   itself costs;
 * - `kv-read`: the same after one `kv.get` (what a protected read cannot avoid);
 * - `kv-write`: the same after one `kv.set` with `expireIn` (a durable write, as for a
 *   token or a submission);
 * - `kv-group-write`: the same write through the service's group commit
 *   (src/store/group_commit.ts): the most durable writes a second this design can make here,
 *   with nothing else done per request;
 * - `mcp-sdk`: the MCP SDK's `createMcpHandler` with one trivial tool, answering the
 *   same `tools/call` as the service.
 *
 * A request body is always read first, as the service does: an unread body of a few
 * hundred bytes stalls the connection it came on. `PORT`, `HOSTNAME` and `KV_PATH` as
 * for the service.
 */

import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { loadCatalog } from "../src/catalog/catalog.ts";
import { Store } from "../src/store/store.ts";

export const FLOORS = [
  "json",
  "catalog-body",
  "kv-read",
  "kv-write",
  "kv-group-write",
  "mcp-sdk",
] as const;
export type Floor = typeof FLOORS[number];

type Handler = (req: Request) => Response | Promise<Response>;

/** The headers the service sends with the catalog, but for the request id and Date. */
export const CATALOG_HEADERS = {
  "Content-Type": "application/json; charset=utf-8",
  "Cache-Control": "public, max-age=300",
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers":
    "WWW-Authenticate, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, Location",
  "X-Content-Type-Options": "nosniff",
};

async function floorHandler(floor: Floor): Promise<Handler> {
  const answer = () => Response.json({ ok: true });
  const drained = async (req: Request) => {
    if (req.body) await req.arrayBuffer();
  };
  if (floor === "json") return (req) => req.body ? req.arrayBuffer().then(answer) : answer();
  if (floor === "catalog-body") {
    const body = loadCatalog().servicesBody;
    return () =>
      new Response(body, { headers: { ...CATALOG_HEADERS, "X-Request-Id": crypto.randomUUID() } });
  }
  if (floor === "mcp-sdk") {
    const mcp = createMcpHandler(() => {
      const server = new McpServer({ name: "floor", version: "1.0.0" }, {
        capabilities: { tools: { listChanged: false } },
      });
      server.registerTool("list_services", {
        description: "A trivial tool",
        inputSchema: z.object({}).strict(),
      }, () => ({ content: [{ type: "text", text: '{"ok":true}' }] }));
      return server;
    }, { responseMode: "auto" });
    return (req) => mcp.fetch(req);
  }
  const opened = await Deno.openKv(Deno.env.get("KV_PATH"));
  const kv = floor === "kv-group-write" ? new Store(opened, { local: true }) : opened;
  const record = { client_id: "floor", scopes: ["services:read"], expires_at: 0 };
  await kv.set(["tokens", "floor"], record);
  if (floor === "kv-read") {
    return async (req) => (await drained(req), await kv.get(["tokens", "floor"]), answer());
  }
  return async (req) => {
    await drained(req);
    // Through atomic(): group commit takes part in atomic operations only, as the service's writes are.
    await kv.atomic().set(["tokens", crypto.randomUUID()], record, { expireIn: 900_000 }).commit();
    return answer();
  };
}

if (import.meta.main) {
  const floor = (Deno.env.get("FLOOR") ?? "json") as Floor;
  if (!FLOORS.includes(floor)) throw new Error(`FLOOR must be one of ${FLOORS.join(", ")}`);
  const handler = await floorHandler(floor);
  Deno.serve({
    port: Number(Deno.env.get("PORT") ?? 8001),
    hostname: Deno.env.get("HOSTNAME") ?? "127.0.0.1",
    onListen() {},
  }, handler);
}
