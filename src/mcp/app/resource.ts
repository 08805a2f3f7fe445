/**
 * @module
 * The quote builder as an MCP App (the `io.modelcontextprotocol/ui` extension, stable
 * revision 2026-01-26): its `ui://` resource, the metadata that links `check_coverage` and
 * `estimate_quote` to it, and what the server announces. The document is built once per
 * catalog from the service's own files (`document.ts`) and is the same bytes for every
 * caller and every read: it holds no caller data, and asks the host for no outside domain
 * (`_meta.ui.csp` is empty), so it runs under the host's default CSP.
 */

import type { McpServer } from "@modelcontextprotocol/server";
import type { Catalog } from "../../catalog/catalog.ts";
import { quoteBuilderDocument } from "./document.ts";

/** The extension's identifier, the key of `capabilities.extensions`. */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
/** The MIME type of an MCP App's HTML. */
const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** The quote builder resource, as `resources/list` lists it. */
export const QUOTE_BUILDER = {
  uri: "ui://dc-field-services/quote-builder",
  name: "quote-builder",
  title: "Quote builder",
  description: "Shows check_coverage and estimate_quote answers with a map of covered cities; " +
    "the person can try another city or job (read-only calls) and ask the model for a " +
    "quote request. Submits nothing itself.",
  mimeType: APP_MIME_TYPE,
} as const;

/**
 * The resource's `_meta.ui`: no outside domain of any kind (the host's restrictive default
 * CSP applies), and a visible border, the host's default varying.
 */
const QUOTE_BUILDER_UI = { csp: {}, prefersBorder: true } as const;

/** What a linked tool carries in `_meta` (never the deprecated flat `ui/resourceUri`). */
export const APP_TOOL_META = { ui: { resourceUri: QUOTE_BUILDER.uri } } as const;

/** The server's extension settings, announced in `initialize` and `server/discover`. */
export const UI_EXTENSION_SETTINGS = { mimeTypes: [APP_MIME_TYPE] };

/**
 * How long a host may keep a read (2026-07-28 cache fields): the document changes only with
 * a deployment, and is the same for everyone.
 */
const _CACHE_HINT = { ttlMs: 60 * 60 * 1000, cacheScope: "public" } as const;

const _documents = new WeakMap<Catalog, string>();

/** The document for this catalog, built on first use and kept. */
function quoteBuilderHtml(catalog: Catalog): string {
  let text = _documents.get(catalog);
  if (text === undefined) {
    // The template's indentation (deno fmt formats it) is not part of the document.
    text = quoteBuilderDocument(catalog).trim();
    _documents.set(catalog, text);
  }
  return text;
}

/** Lists and serves the quote builder on one per-request server. */
export function registerQuoteBuilder(server: McpServer, catalog: Catalog): void {
  const { uri, name, title, description, mimeType } = QUOTE_BUILDER;
  server.registerResource(
    name,
    uri,
    { title, description, mimeType, _meta: { ui: QUOTE_BUILDER_UI }, cacheHint: _CACHE_HINT },
    () => ({
      contents: [{
        uri,
        mimeType,
        text: quoteBuilderHtml(catalog),
        _meta: { ui: QUOTE_BUILDER_UI },
      }],
    }),
  );
}
