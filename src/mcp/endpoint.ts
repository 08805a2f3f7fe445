/**
 * @module
 * The anonymous MCP endpoint, `POST /api/v1/mcp` (streamable HTTP). SDK v2's
 * `createMcpHandler` serves protocol 2026-07-28 and stateless 2025-11-25 clients
 * from one per-request server factory; no session state, so any instance can
 * answer any request. Tools come from `tools.ts` and run in-process.
 *
 * Two pieces of glue. The request's Context reaches the factory as the `authInfo` given
 * to the handler's `fetch`, which the SDK hands through untouched on both eras. The tool
 * schemas are registered as plain Standard Schema objects whose JSON Schema is converted
 * from zod once per endpoint, not once per request's server: that conversion is most of
 * a request's CPU otherwise (in-process, tools/list 2.1 ms against 0.3 ms, a
 * check_coverage call 0.5 ms against 0.25 ms).
 */

import {
  type AuthInfo,
  createMcpHandler,
  McpServer,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { ToolErrorOutput } from "./output_schemas.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { Context } from "../context.ts";
import { SERVICE_NAME } from "../oauth/discovery.ts";
import { HttpError, unexpectedErrorFields } from "../http/errors.ts";
import { toolAnnotations, TOOLS } from "./tools.ts";
import {
  batchRefused,
  completeMissing,
  earlyAnswer,
  explainUnknownTool,
  isBatch,
  readToolCall,
  toolError,
  tooManyArguments,
} from "./refusals.ts";
import { formatOverPattern, listedInput, listedOutput } from "./json_schema.ts";
import { APP_TOOL_META, registerQuoteBuilder } from "./app/resource.ts";
import {
  MCP_MAX_BODY,
  PROTOCOL_VERSIONS,
  SERVER_CAPABILITIES,
  SERVER_VERSION,
} from "./protocol.ts";

const INSTRUCTIONS = `${SERVICE_NAME}: on-site field services for datacenters. ` +
  "Use list_services and check_coverage to explore; submit_lead and request_quote send a " +
  "request that a human reviews. No tool creates an order, schedules an engineer or bills " +
  "anything, and quote estimates are non-binding.";

/** The request handler for `POST /api/v1/mcp`, built once per service handler. */
export function createMcpEndpoint(catalog: Catalog) {
  const registered = _registered(catalog);
  const mcp = createMcpHandler(
    ({ authInfo }) => buildServer(_contextOf(authInfo), catalog, registered),
    // "auto": 2026-07-28 answers are one JSON body (no tool emits anything before its
    // result); legacy answers are one SSE event. "json" prints a warning at every start.
    { responseMode: "auto", maxRequestBodySize: MCP_MAX_BODY },
  );

  // routes.ts has already counted the request against RATE_LIMIT_MCP and read its body
  // under MCP_MAX_BODY (413 while streaming, before any parsing) before loading this module;
  // the SDK gets a request with the bytes, so it answers JSON-RPC errors in its own format.
  return async (req: Request, ctx: Context, body: Uint8Array<ArrayBuffer>): Promise<Response> => {
    if (isBatch(body)) return batchRefused();
    const call = readToolCall(req, body, PROTOCOL_VERSIONS);
    const early = call && earlyAnswer(call);
    if (early) return early;
    const forwarded = new Request(req.url, { method: "POST", headers: req.headers, body });
    const res = await mcp.fetch(forwarded, { authInfo: _withContext(ctx) });
    // A legacy client's answer is an event stream, returned before the tool has run: read
    // it whole (one event), so the request's rate counts settle once its tool has
    // finished. A JSON answer is returned with the tool's result, as it is.
    const stream = res.headers.get("content-type")?.startsWith("text/event-stream");
    const whole = stream && res.body ? new Response(await res.bytes(), res) : res;
    if (whole.status === 400) return await completeMissing(whole, req, body);
    if (req.headers.get("mcp-method") === "server/discover") return await _discovered(whole);
    return call ? await explainUnknownTool(whole, call) : whole;
  };
}

/**
 * A `server/discover` answer listing every revision served, as the Server Card does: the SDK
 * lists only the 2026-era ones (2025-11-25 is reached by `initialize`, not by discover) and
 * offers no setting for it, so the list is replaced here. Its own client picks a 2026-era
 * version from the list and ignores the rest. Any other answer is passed on as it is.
 */
async function _discovered(res: Response): Promise<Response> {
  if (!res.ok || !res.headers.get("content-type")?.startsWith("application/json")) return res;
  const text = await res.text();
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return new Response(text, res);
  }
  if (!Array.isArray(message?.result?.supportedVersions)) return new Response(text, res);
  message.result.supportedVersions = [...PROTOCOL_VERSIONS];
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(message), { status: res.status, headers });
}

/**
 * The request's Context as `authInfo`, the SDK's documented pass-through: `fetch` takes
 * it and the SDK hands it, untouched, to the server factory of either era (and to tool
 * handlers, which do not read it). The endpoint is anonymous, so it names no one: no
 * token, no client, no scope. The SDK reads scopes only for a tool or resource that
 * declares a scope challenge, and none does.
 */
function _withContext(ctx: Context): AuthInfo {
  return { token: "", clientId: "", scopes: [], extra: { ctx } };
}

function _contextOf(authInfo: AuthInfo | undefined): Context {
  const ctx = authInfo?.extra?.ctx;
  if (!ctx) throw new Error("MCP request without a service context");
  return ctx as Context;
}

type Registered = {
  tool: (typeof TOOLS)[number];
  input: StandardSchemaWithJSON;
  output: StandardSchemaWithJSON;
  annotations: ReturnType<typeof toolAnnotations>;
}[];

/**
 * The tools as the SDK registers them, made once per endpoint (so once per catalog
 * served) for the servers of every request. The SDK builds a server per request and asks
 * each tool's schemas for JSON Schema at every tools/list and tools/call; these answer with
 * the conversion made the first time. Input is not validated by the SDK: it would report
 * schema problems in its own words and stop there, leaving the catalog's for a second
 * call. Each tool validates everything itself, in one pass. Outputs are still checked by
 * the SDK against their zod schemas.
 */
function _registered(catalog: Catalog): Registered {
  return TOOLS.map((tool) => ({
    tool,
    input: _listed(tool.input(catalog), "input", (value) => ({ value })),
    output: _listed(tool.output, "output", tool.output["~standard"].validate),
    annotations: toolAnnotations(tool),
  }));
}

type JsonObject = Record<string, unknown>;

/** The members a failed call's `structuredContent` always has (see ToolErrorOutput). */
const ERROR_REQUIRED = (z.toJSONSchema(ToolErrorOutput, { io: "output" }) as JsonObject)
  .required as string[];

/**
 * A tool's output schema as `tools/list` advertises it: the success shape (SPEC §2.3–2.5)
 * or, when `ok` is false, the error shape. Clients such as the MCP Inspector validate
 * `structuredContent` against the output schema even for an `isError` result, so a
 * failure's structured body must fit too: the object is open, and `ok: false` switches
 * the required members to the error's (`error`, `message`, `issues`).
 */
function admitToolErrors(success: JsonObject): JsonObject {
  return {
    ...success,
    description: `${success.description ?? ""} When ok is false the call failed (isError): ` +
      "error (a code), message and issues say why.",
    required: ["ok"],
    if: { properties: { ok: { const: false } }, required: ["ok"] },
    then: { required: ERROR_REQUIRED },
    else: { required: success.required ?? [] },
  };
}

/**
 * A tool schema for the SDK: `validate` as given, and the JSON Schema `tools/list` carries
 * of `schema` (json_schema.ts), converted the first time the SDK asks. The SDK asks for
 * the draft 2020-12 JSON Schema of an input as `input` and of an output as `output`.
 */
function _listed(
  schema: z.ZodType,
  io: "input" | "output",
  validate: StandardSchemaWithJSON["~standard"]["validate"],
): StandardSchemaWithJSON {
  let listed: JsonObject | undefined;
  const jsonSchema = () => {
    if (!listed) {
      const converted = formatOverPattern(
        schema["~standard"].jsonSchema[io]({ target: "draft-2020-12" }),
      );
      // What tools/list carries is every agent's context: see json_schema.ts.
      listed = io === "output" ? admitToolErrors(listedOutput(converted)) : listedInput(converted);
    }
    return listed;
  };
  return {
    "~standard": {
      version: 1,
      vendor: "zod",
      validate,
      jsonSchema: { input: jsonSchema, output: jsonSchema },
    },
  };
}

function buildServer(ctx: Context, catalog: Catalog, registered: Registered): McpServer {
  const server = new McpServer(
    { name: "dc-field-services", title: SERVICE_NAME, version: SERVER_VERSION },
    // Declaring the (static) tools capability up front lets modern-era clients such as
    // Inspector's `--protocol-era modern` finish discovery without waiting for a change.
    {
      instructions: INSTRUCTIONS,
      capabilities: SERVER_CAPABILITIES,
      // The SDK's default also echoes 2025-06-18, 2025-03-26 and 2024-11-05 (MCP lifecycle:
      // a version the server does not serve is answered with one it does), and its legacy
      // transport refuses an MCP-Protocol-Version header outside this list with 400.
      supportedProtocolVersions: [...PROTOCOL_VERSIONS],
    },
  );
  for (const { tool, input, output, annotations } of registered) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: input,
      outputSchema: output,
      annotations,
      ...(tool.app ? { _meta: APP_TOOL_META } : {}),
    }, async (args: unknown) => {
      try {
        // Also here: a call the early answer did not read (the SDK took it otherwise).
        const tooMany = tooManyArguments(tool, args);
        if (tooMany) return toolError(tooMany);
        const result = await tool.run(ctx, args);
        return {
          content: [{ type: "text" as const, text: JSON.stringify(result) }],
          structuredContent: result,
        };
      } catch (err) {
        if (err instanceof HttpError) return toolError(err);
        // Like a REST 500: logged here, never echoed to the caller.
        ctx.log({
          level: "error",
          request_id: ctx.requestId,
          tool: tool.name,
          ...unexpectedErrorFields(err),
        });
        return toolError(new HttpError(500, "internal_error", "internal error; retry later"));
      }
    });
  }
  registerQuoteBuilder(server, catalog);
  return server;
}
