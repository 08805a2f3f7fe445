/**
 * @module
 * What the MCP endpoint answers itself rather than leave to the SDK or a tool: a JSON-RPC
 * batch (refused), a call with more arguments than its tool takes (refused by their count),
 * a call of a tool that does not exist (the SDK's refusal, explained), a 2026-07-28 request
 * lacking several of its requirements (the SDK's refusal of the first, completed); and the
 * shape of a failed call, a tool result with `isError`.
 */

import type { z } from "zod";
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import type { ToolErrorOutput } from "./output_schemas.ts";
import { HttpError } from "../http/errors.ts";
import { json } from "../http/json.ts";
import { mediaType } from "../http/body.ts";
import { notOfferedText, TOOLS } from "./tools.ts";

/**
 * True when a body is a JSON array, a JSON-RPC batch. MCP dropped batching in
 * 2025-06-18; refusing it keeps one request to one message, so the rate limit counts
 * calls, not envelopes (one request of a hundred calls once bought a hundred answers).
 */
export function isBatch(body: Uint8Array): boolean {
  // A UTF-8 byte-order mark first: the SDK's TextDecoder drops it, so must we.
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  for (const byte of bom ? body.subarray(3) : body) {
    if (byte === 0x5b) return true; // [
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  }
  return false;
}

const _TOOLS = new Map(TOOLS.map((t) => [t.name, t]));

/** A `tools/call` as read here, before the SDK parses the request again. */
interface ToolCall {
  id: string | number;
  name: string;
  args: unknown;
  /**
   * True when the SDK would take the request as it is: a stateless 2025-era call (the
   * SDK's own classification) with a served `MCP-Protocol-Version` or none, sent with the
   * transport's headers. A 2026-07-28 call has more to check first (its envelope, the
   * `Mcp-Method` and `Mcp-Name` headers), all of it the SDK's.
   */
  asIs: boolean;
}

/**
 * The `tools/call` a body holds, or undefined for anything else; `served` are the protocol
 * versions an `MCP-Protocol-Version` header may name.
 */
export function readToolCall(
  req: Request,
  body: Uint8Array,
  served: readonly string[],
): ToolCall | undefined {
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined; // the SDK answers malformed JSON in its own format
  }
  if (message === null || typeof message !== "object") return undefined;
  const { jsonrpc, method, params, id } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0" || method !== "tools/call") return undefined;
  if (typeof id !== "string" && !Number.isFinite(id)) return undefined;
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string") return undefined;
  const version = req.headers.get("mcp-protocol-version");
  const route = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: version ?? undefined,
    mcpMethodHeader: req.headers.get("mcp-method") ?? undefined,
    mcpNameHeader: req.headers.get("mcp-name") ?? undefined,
    body: message,
  });
  const accept = req.headers.get("accept") ?? "";
  const asIs = route.kind === "legacy" &&
    (version === null || served.includes(version)) &&
    mediaType(req) === "application/json" && accept.includes("application/json") &&
    accept.includes("text/event-stream");
  return { id: id as string | number, name, args, asIs };
}

/**
 * A call with more arguments than its tool takes, answered here as that tool's error, so
 * that thousands of names in 64 KiB cost one `JSON.parse` and a count, not the SDK's
 * validation and the tool's. Only for a call the SDK would take as it is: anything it
 * would refuse first (a header that disagrees with the body, an unserved version) is its
 * to refuse. The tool checks the count again for the calls not answered here.
 */
export function earlyAnswer(call: ToolCall): Response | undefined {
  const tool = _TOOLS.get(call.name);
  if (!call.asIs || !tool) return undefined;
  const tooMany = tooManyArguments(tool, call.args);
  return tooMany && json({ jsonrpc: "2.0", id: call.id, result: toolError(tooMany) });
}

/**
 * The SDK's answer to a call of a tool that does not exist (`dispatch_engineer`,
 * `place_order`), with a message an agent can act on instead of its own "Tool … not
 * found": the tools there are, and that ordering, dispatch and acceptance are not
 * offered. The SDK answers it after every check of the request, so a call it refuses
 * first (for its headers, say) keeps that refusal. Any other answer is passed on as it is.
 */
export async function explainUnknownTool(res: Response, call: ToolCall): Promise<Response> {
  if (_TOOLS.has(call.name)) return res;
  const text = await res.text();
  const data = res.headers.get("content-type")?.startsWith("text/event-stream")
    ? text.match(/^data: (.*)$/m)?.[1]
    : text;
  let message: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    message = data === undefined ? undefined : JSON.parse(data);
  } catch {
    message = undefined;
  }
  const error = message?.error;
  // "disabled": the SDK looks tools up in a plain object, where `constructor` is inherited.
  const sdkWords = [`Tool ${call.name} not found`, `Tool ${call.name} disabled`];
  if (error?.code !== -32602 || !sdkWords.includes(String(error.message))) {
    return new Response(text, res);
  }
  return json({ jsonrpc: "2.0", id: call.id, error: unknownTool(call.name) }, {
    status: res.status,
  });
}

/** The header mirroring each method's name field (SEP-2243), as the SDK requires it. */
const _NAME_HEADER_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * The SDK's 400 for a 2026-07-28 request that lacks one of its requirements (the `_meta`
 * envelope, its protocolVersion and clientCapabilities keys, the `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` headers), completed with every other one it lacks: the SDK
 * checks them in turn and names only the first, which cost a client a round trip each.
 * The code and `data` stay the SDK's; `data.missing` lists them all and the message names
 * each with its value. Only a refusal for something missing is completed: one for a value
 * that is wrong, or a request lacking one requirement, keeps the SDK's answer as it is.
 */
export async function completeMissing(res: Response, req: Request, body: Uint8Array) {
  if (res.status !== 400 || !res.headers.get("content-type")?.startsWith("application/json")) {
    return res;
  }
  const text = await res.text();
  const answer = _parsed(new TextDecoder().decode(body), text);
  const error = answer?.reply.error as { message?: unknown; data?: Record<string, unknown> };
  const missing = answer && _lacking(req, answer.request);
  if (!error || !missing || missing.length < 2 || !_refusedForMissing(error.data)) {
    return new Response(text, res);
  }
  const message = "Invalid request for protocol revision 2026-07-28: it lacks " +
    `${missing.map((m) => m.words).join("; ")}. Send them all in one request.`;
  const data = { ...error.data, missing: missing.map((m) => m.name) };
  return json({ ...answer.reply, error: { ...error, message, data } }, { status: 400 });
}

/** The request and the SDK's answer, both JSON objects; undefined otherwise. */
function _parsed(request: string, reply: string) {
  try {
    const [req, res] = [JSON.parse(request), JSON.parse(reply)];
    const object = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
    return object(req) && object(res) && object(res.error)
      ? { request: req as Record<string, unknown>, reply: res as Record<string, unknown> }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the SDK refused for something absent: an envelope key or a routing header. */
function _refusedForMissing(data: Record<string, unknown> | undefined): boolean {
  const envelope = data?.envelope as { missing?: unknown; problem?: unknown } | undefined;
  const mismatch = data?.mismatch as { header?: unknown } | undefined;
  return Array.isArray(envelope?.missing) || envelope?.problem === "missing" ||
    mismatch?.header === "(missing)";
}

/** Every requirement of a 2026-07-28 request that `message` and `req` lack, in the SDK's order. */
function _lacking(req: Request, message: Record<string, unknown>) {
  const method = typeof message.method === "string" ? _shown(message.method) : "";
  const params = (message.params ?? {}) as Record<string, unknown>;
  const meta = params._meta as Record<string, unknown> | undefined;
  const version = typeof meta?.[PROTOCOL_VERSION_META_KEY] === "string"
    ? _shown(meta[PROTOCOL_VERSION_META_KEY] as string)
    : req.headers.get("mcp-protocol-version") ?? "2026-07-28";
  const out: { name: string; words: string }[] = [];
  const keys = [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY];
  if (meta === null || typeof meta !== "object") {
    out.push({ name: "_meta", words: `params._meta, with ${keys.join(" and ")}` });
  } else {
    for (const key of keys.filter((k) => !(k in meta))) {
      out.push({ name: `_meta.${key}`, words: `${key} in params._meta` });
    }
  }
  const header = (name: string, value: string) => {
    if (!req.headers.has(name)) out.push({ name, words: `the ${name} header (${value})` });
  };
  header("MCP-Protocol-Version", version);
  header("Mcp-Method", method);
  const field = _NAME_HEADER_SOURCE[method];
  const value = field === undefined ? undefined : params[field];
  if (typeof value === "string") header("Mcp-Name", _shown(value));
  return out;
}

/** A caller's text as a message may show it: printable ASCII, at most 64 characters. */
function _shown(text: string): string {
  return text.replace(/[^\x20-\x7E]/g, "?").slice(0, 64);
}

/** JSON-RPC -32602 for a tool that does not exist. */
function unknownTool(name: string) {
  const shown = _shown(name);
  return {
    code: -32602,
    message: `Tool ${shown} not found. The tools are: ${[..._TOOLS.keys()].join(", ")}. ` +
      notOfferedText(),
  };
}

/** `400 validation_failed` for arguments with more names than `tool` takes; counts no further. */
export function tooManyArguments(
  tool: (typeof TOOLS)[number],
  args: unknown,
): HttpError | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  let count = 0;
  for (const _ in args) {
    if (++count > tool.maxArguments) {
      const message = `${tool.name} takes at most ${tool.maxArguments} arguments; this call ` +
        "has more. Send only the tool's fields (its input schema lists them).";
      return new HttpError(400, "validation_failed", message, {
        issues: [{ path: "(arguments)", message }],
      });
    }
  }
  return undefined;
}

/** JSON-RPC 2.0 §5.1 -32600 Invalid Request, with id null: no member can be answered. */
export function batchRefused(): Response {
  return json({
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32600,
      message: "Invalid Request: JSON-RPC batches are not supported; send one message per request",
    },
  }, { status: 400 });
}

/** A failed call as a tool result an agent can act on (MCP: `isError`, not a protocol error). */
export function toolError(err: HttpError) {
  const retryAfter = err.headers.get("retry-after");
  const body: z.infer<typeof ToolErrorOutput> = {
    ok: false as const,
    error: err.code,
    message: err.message,
    issues: (err.issues ?? []).map((i) => ({ ...i })),
    ...(retryAfter ? { retry_after_s: Number(retryAfter) } : {}),
  };
  // The same JSON as text, for clients that read only content (as with results).
  return {
    isError: true,
    content: [{ type: "text" as const, text: JSON.stringify(body) }],
    structuredContent: body,
  };
}
