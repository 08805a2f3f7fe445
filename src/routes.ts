/**
 * @module
 * The one route table, read top to bottom: each line is a method, a path, the handler
 * and the route's kind (a public read, a write, an OAuth endpoint) with its OpenAPI
 * operation. The OpenAPI document is generated from this same table.
 */

import { agentCoverage, agentLocations, agentServices } from "./catalog/agent_reads.ts";
import type { Config } from "./config.ts";
import type { Context } from "./context.ts";
import {
  authorizationServerMetadata,
  PATHS,
  protectedResourceMetadata,
} from "./oauth/discovery.ts";
import { errorResponse, HttpError } from "./http/errors.ts";
import { json, jsonText } from "./http/json.ts";
import { postLead, postQuote, webForm } from "./intake/handlers.ts";
import { getEstimate } from "./pricing/estimate.ts";
import { getRequestStatus } from "./intake/status.ts";
import { publicLocations, publicServices } from "./catalog/public_reads.ts";
import { readinessCheck } from "./ops/readiness.ts";
import { registerClient } from "./oauth/registration.ts";
import { revokeToken } from "./oauth/revocation.ts";
import { issueToken } from "./oauth/token.ts";
import { createMcpEndpoint, MCP_PATH } from "./mcp/endpoint.ts";
import { notOfferedText } from "./mcp/tools.ts";
import {
  aiCatalog,
  SERVER_CARD_PATH,
  SERVER_CARD_TYPE,
  serverCard,
  toolDescriptor,
} from "./mcp/descriptor.ts";
import { OPENAPI_PATH, openApiDocument, type OperationDoc } from "./openapi/document.ts";
import { ownOrigins } from "./http/origins.ts";
import { operationDocs } from "./openapi/operations.ts";
import { type Handler as RouteHandler, type Route, route } from "./http/router.ts";
import { homePage, webAsset } from "./web/pages.ts";

/**
 * The one route table, in dispatch order. Each route carries its OpenAPI operation
 * (`doc`), and the OpenAPI document is generated from this same array.
 */
export function buildRoutes(config: Config): Route<Context, OperationDoc>[] {
  // Documents that never change while the process runs are serialised once.
  const asMetadata = JSON.stringify(authorizationServerMetadata(config));
  const prMetadata = JSON.stringify(protectedResourceMetadata(config));
  const publicCache = { "Cache-Control": "public, max-age=300" };
  const shortCache = { "Cache-Control": "public, max-age=60" };
  const descriptor = JSON.stringify(toolDescriptor(config));
  const card = JSON.stringify(serverCard(config));
  const cardHeaders = { ...publicCache, "Content-Type": SERVER_CARD_TYPE };
  const catalogDoc = JSON.stringify(aiCatalog(config));
  const mcpEndpoint = createMcpEndpoint();
  // Routes that write or spend a budget: no Origin, or one of ours (see http/origins.ts).
  const own = ownOrigins(config);

  const docs = operationDocs(config);
  // Built at the first request, then kept: converting every zod schema is the
  // costliest part of the table and most handlers (tests) never serve it.
  let openApi: string | undefined;

  // What the table's lines refer to, so that each route fits on one line.
  // Liveness is the process alone: it answers at once after start, whatever the store is
  // doing (Deno KV clears expired keys before its first read). Readiness asks the store.
  const healthz = () => json({ ok: true }, { headers: { "Cache-Control": "no-store" } });
  const ready = readinessCheck();
  const readyz: RouteHandler<Context> = async (_req, ctx) => {
    const state = await ready(ctx.kv, ctx.now);
    return json(state, {
      status: state.ready ? 200 : 503,
      headers: { "Cache-Control": "no-store" },
    });
  };
  const text = (body: string, headers: Record<string, string>) => () => jsonText(body, { headers });
  const openApiDoc = () => {
    openApi ??= JSON.stringify(openApiDocument(routes, config));
    return jsonText(openApi, { headers: publicCache });
  };
  const aiHeaders = { ...publicCache, "Content-Type": "application/ai-catalog+json" };
  // The three kinds of route: a read anyone may make from any origin (CORS *), a write
  // from no browser or one of ours, and an OAuth endpoint (a write with OAuth errors).
  const read = (doc: OperationDoc) => ({ cors: true, doc });
  const write = (doc: OperationDoc) => ({ cors: own, doc });
  const oauth = (doc: OperationDoc) => ({ errors: "oauth" as const, cors: own, doc });
  const r = route<Context, OperationDoc>;

  const routes: Route<Context, OperationDoc>[] = [
    r("GET", "/healthz", healthz, { doc: docs.healthz }),
    r("GET", "/readyz", readyz, { doc: docs.readyz }),
    // Discovery (RFC 8414, RFC 9728)
    r("GET", PATHS.asMetadata, text(asMetadata, publicCache), read(docs.asMetadata)),
    r("GET", PATHS.prMetadata, text(prMetadata, publicCache), read(docs.prMetadata)),
    // OAuth
    r("POST", PATHS.identity, registerClient, oauth(docs.registerClient)),
    r("POST", PATHS.token, issueToken, oauth(docs.issueToken)),
    r("POST", PATHS.revoke, revokeToken, oauth(docs.revokeToken)),
    // Protected agent resource
    r("GET", "/api/v1/agent/services", agentServices, read(docs.agentServices)),
    r("GET", "/api/v1/agent/locations", agentLocations, read(docs.agentLocations)),
    r("GET", "/api/v1/agent/coverage", agentCoverage, read(docs.agentCoverage)),
    // Anonymous public endpoints
    r("GET", "/api/v1/services", publicServices, read(docs.publicServices)),
    r("GET", "/api/v1/locations", publicLocations, read(docs.publicLocations)),
    r("POST", "/api/v1/intake", postLead, write(docs.submitLead)),
    r("POST", "/api/v1/quotes", postQuote, write(docs.requestQuote)),
    r("GET", "/api/v1/estimate", getEstimate, read(docs.estimateQuote)),
    r("GET", "/api/v1/requests/:request_id", getRequestStatus, read(docs.requestStatus)),
    // Tool interface (MCP) and its discovery documents
    r("POST", MCP_PATH, mcpEndpoint, write(docs.mcp)),
    r("GET", SERVER_CARD_PATH, text(card, cardHeaders), read(docs.serverCard)),
    r("GET", "/.well-known/mcp.json", text(descriptor, shortCache), read(docs.toolDescriptor)),
    r("GET", "/.well-known/ai-catalog.json", text(catalogDoc, aiHeaders), read(docs.aiCatalog)),
    r("GET", "/.well-known/mcp/catalog.json", text(catalogDoc, publicCache), read(docs.mcpCatalog)),
    // Home page for people and browser agents, and its forms
    r("GET", "/", homePage, { doc: docs.homePage }),
    r("GET", "/assets/:name", webAsset, { doc: docs.webAsset }),
    r("POST", "/forms/lead", webForm("lead"), write(docs.leadForm)),
    r("POST", "/forms/quote", webForm("quote"), write(docs.quoteForm)),
    // This document, generated from this very table
    r("GET", OPENAPI_PATH, openApiDoc, read(docs.openApi)),
  ];
  return routes;
}

/**
 * The 404 of a path no route serves. Under `/api/v1/` it also says what this service does
 * not offer and where every endpoint is listed, so `POST /api/v1/orders` is an answer an
 * agent can act on.
 */
export function notFound(path: string): Response {
  const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  const more = path.startsWith("/api/v1/")
    ? `. ${notOfferedText()} Every endpoint is in ${OPENAPI_PATH}.`
    : "";
  return errorResponse(new HttpError(404, "not_found", `no resource at ${shown}${more}`), "api");
}
