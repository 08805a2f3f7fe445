/**
 * @module
 * Discovery of the tool interface: the tool descriptor (SPEC §2.6) at
 * `/.well-known/mcp.json`, the MCP Server Card (SEP-2127) at
 * `/api/v1/mcp/server-card` (both name the quote builder app), and the catalogs that point to it
 * (`/.well-known/ai-catalog.json`, `/.well-known/mcp/catalog.json`).
 * All are generated from `tools.ts` and the zod schemas, once per handler.
 */

import type { Catalog } from "../catalog/catalog.ts";
import type { Config } from "../config.ts";
import { SERVICE_NAME } from "../oauth/discovery.ts";
import { PATHS } from "../http/paths.ts";
import { PROTOCOL_VERSIONS, SERVER_CAPABILITIES, SERVER_VERSION } from "./protocol.ts";
import { QUOTE_BUILDER, UI_EXTENSION } from "./app/resource.ts";
import { jsonSchema } from "./json_schema.ts";
import { BLOCKED_ANONYMOUS_ACTIONS, toolAnnotations, TOOLS } from "./tools.ts";

export const SERVER_CARD_TYPE = "application/mcp-server-card+json";

const SAFETY_NOTES = "No anonymous order-creation tool is exposed: submissions only queue a " +
  "request for human review, and quote estimates are non-binding.";

/** SPEC §2.6, field for field. */
export function toolDescriptor(config: Config, catalog: Catalog): Record<string, unknown> {
  return {
    ok: true,
    version: SERVER_VERSION,
    protocol_version: PROTOCOL_VERSIONS[0],
    transport: "streamable-http",
    transport_url: config.baseUrl + PATHS.mcp,
    mcp_status: "available",
    mcp_endpoint_publicly_exposed: true,
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      anonymous_allowed: true,
      creates_billable_order: false,
      input_schema: jsonSchema(tool.input(catalog), "input"),
      http: tool.http,
      output_schema: jsonSchema(tool.output, "output"),
      auth_required: false,
      billable_action: false,
      annotations: toolAnnotations(tool),
      ...(tool.submits ? { requires_human_approval: true } : {}),
      safety: {
        anonymous_allowed: true,
        requires_human_review: tool.submits,
        creates_billable_order: false,
        dispatch_scheduled: false,
        private_ticket_access: false,
        notes: SAFETY_NOTES,
      },
    })),
    blocked_anonymous_actions: [...BLOCKED_ANONYMOUS_ACTIONS],
    apps: [{
      uri: QUOTE_BUILDER.uri,
      mime_type: QUOTE_BUILDER.mimeType,
      extension: UI_EXTENSION,
      title: QUOTE_BUILDER.title,
      description: QUOTE_BUILDER.description,
      tools: TOOLS.filter((tool) => tool.app).map((tool) => tool.name),
    }],
  };
}

/** The server's reverse-DNS name, e.g. `com.example.api/dc-field-services`. */
function serverName(config: Config): string {
  return `${new URL(config.baseUrl).hostname.split(".").reverse().join(".")}/dc-field-services`;
}

/**
 * MCP Server Card (SEP-2127): identity, how to connect, the capabilities `initialize` announces
 * and the one static resource (the quote builder); not the tools, which the descriptor has.
 */
export function serverCard(config: Config): Record<string, unknown> {
  return {
    name: serverName(config),
    title: SERVICE_NAME,
    description: "Anonymous tools of a datacenter field-services provider: service catalog, " +
      "coverage check, lead intake and quote requests, each submission reviewed by a human.",
    version: SERVER_VERSION,
    websiteUrl: `${config.baseUrl}/`,
    remotes: [{
      type: "streamable-http",
      url: config.baseUrl + PATHS.mcp,
      supportedProtocolVersions: [...PROTOCOL_VERSIONS],
    }],
    capabilities: SERVER_CAPABILITIES,
    resources: [{ ...QUOTE_BUILDER }],
  };
}

/** An AI Catalog / MCP Catalog document listing the one Server Card. */
export function aiCatalog(config: Config): Record<string, unknown> {
  return {
    specVersion: "draft",
    entries: [{
      identifier: `urn:air:${new URL(config.baseUrl).hostname}:dc-field-services`,
      displayName: SERVICE_NAME,
      type: SERVER_CARD_TYPE,
      url: config.baseUrl + PATHS.serverCard,
    }],
  };
}
