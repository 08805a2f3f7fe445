/**
 * @module
 * The OpenAPI operations tagged "MCP".
 */

import { type Config, DEFAULT_RATE_LIMITS } from "../../config.ts";
import { MCP_MAX_BODY } from "../../mcp/protocol.ts";
import { aiCatalog, SERVER_CARD_TYPE, serverCard } from "../../mcp/descriptor.ts";
import type { OperationDoc } from "../document.ts";
import { z } from "zod";
import {
  AiCatalog,
  ApiErrorBody,
  JsonRpcAnswer,
  JsonRpcMessage,
  McpEventStream,
  ServerCard,
  ToolDescriptor,
} from "../components.ts";
import * as ex from "../examples.ts";
import { forbiddenOrigin, rateLimited, tooLarge, unsupportedBody } from "../responses.ts";

/** The operations tagged "MCP", by route; see routes.ts. */
export function mcpOperations(config: Config) {
  return {
    mcp: {
      operationId: "postMcpMessage",
      summary: "MCP streamable HTTP endpoint",
      description: "JSON-RPC 2.0 messages of the Model Context Protocol (2026-07-28, and " +
        "stateless 2025-11-25 clients); send `Accept: application/json, text/event-stream`. " +
        "Four anonymous tools: `list_services`, `check_coverage`, `submit_lead`, " +
        "`request_quote`. POST only; no sessions. A browser `Origin` must be the service's own " +
        "or listed in ALLOWED_ORIGINS.",
      tags: ["MCP"],
      requestBody: {
        contentType: "application/json",
        schema: JsonRpcMessage,
        examples: ex.MCP_EXAMPLES,
      },
      responses: {
        "200": {
          description: "The JSON-RPC response, as JSON or as server-sent events whose data " +
            "is a JSON-RPC message each",
          schema: JsonRpcAnswer,
          alternatives: { "text/event-stream": McpEventStream },
        },
        "202": { description: "A notification or response was accepted (no body)" },
        "400": {
          description: "Not a JSON-RPC message, or a JSON-RPC batch (an array), which MCP " +
            "2025-06-18 and later do not have: a JSON-RPC error object, -32600 for a batch",
          schema: JsonRpcAnswer,
        },
        ...forbiddenOrigin("api"),
        "406": {
          description: "The Accept header lacks application/json or text/event-stream",
          schema: JsonRpcAnswer,
        },
        "413": tooLarge("api", MCP_MAX_BODY),
        "415": {
          ...unsupportedBody("api"),
          description: "The body has a Content-Encoding (none is accepted; send it " +
            "uncompressed), or is not JSON (a JSON-RPC error)",
          schema: z.union([ApiErrorBody, JsonRpcAnswer]),
        },
        ...rateLimited("api", "mcp", DEFAULT_RATE_LIMITS.mcp),
      },
    },
    serverCard: {
      operationId: "getMcpServerCard",
      summary: "MCP server card",
      description: "Identity of the MCP server and how to connect (SEP-2127). Cacheable 5 minutes.",
      tags: ["MCP"],
      responses: {
        "200": {
          description: "The server card",
          schema: ServerCard,
          contentType: SERVER_CARD_TYPE,
          examples: { card: { summary: "This server", value: serverCard(config) } },
        },
      },
    },
    toolDescriptor: {
      operationId: "getToolDescriptor",
      summary: "Tool descriptor",
      description: "The four tools with their input and output JSON Schemas, REST mapping and " +
        "safety notes. Cacheable 1 minute.",
      tags: ["MCP"],
      responses: { "200": { description: "The descriptor", schema: ToolDescriptor } },
    },
    aiCatalog: {
      operationId: "getAiCatalog",
      summary: "AI catalog",
      description: "Lists the MCP server card. Cacheable 5 minutes.",
      tags: ["MCP"],
      responses: {
        "200": {
          description: "The catalog",
          schema: AiCatalog,
          contentType: "application/ai-catalog+json",
          examples: { catalog: { summary: "This service", value: aiCatalog(config) } },
        },
      },
    },
    mcpCatalog: {
      operationId: "getMcpCatalog",
      summary: "MCP catalog",
      description: "The AI catalog at the MCP catalog's well-known path, as plain JSON.",
      tags: ["MCP"],
      responses: {
        "200": {
          description: "The catalog",
          schema: AiCatalog,
          examples: { catalog: { summary: "This service", value: aiCatalog(config) } },
        },
      },
    },
  } satisfies Record<string, OperationDoc>;
}
