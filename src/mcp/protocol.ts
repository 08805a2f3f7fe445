/**
 * @module
 * What the MCP endpoint serves, named without its SDK: the protocol versions, the server's
 * capabilities and version, the largest request. The tool descriptor, the server card and the
 * OpenAPI document name them at start; the SDK itself (mcp/endpoint.ts) loads with the first
 * MCP request (routes.ts), which keeps its 4 to 6 MB out of an instance that serves none.
 */

import { UI_EXTENSION, UI_EXTENSION_SETTINGS } from "./app/resource.ts";

/** Largest accepted MCP request body. */
export const MCP_MAX_BODY = 64 * 1024;
export const SERVER_VERSION = "1.0.0";
/**
 * The protocol revisions served, and the only ones: the current one and the stateless
 * legacy fallback (the first 2025-era entry is the one an older `initialize` is answered
 * with; docs/mcp.md, "Protocol versions", says why no other is served).
 */
export const PROTOCOL_VERSIONS = ["2026-07-28", "2025-11-25"] as const;

/**
 * What every client is told the server offers (`initialize`, `server/discover`, and the
 * server card): static tools, one static resource (the quote builder), and the MCP Apps
 * extension, announced whatever the client declares: some hosts that render apps (claude.ai)
 * do not declare it (docs/mcp.md, "The quote builder").
 */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  extensions: { [UI_EXTENSION]: UI_EXTENSION_SETTINGS },
};
