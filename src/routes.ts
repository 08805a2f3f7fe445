/**
 * @module
 * The one route table, read top to bottom: each line is a method, a path, the handler
 * and the route's kind (a public read, a write, an OAuth endpoint) with its OpenAPI
 * operation. The OpenAPI document is generated from this same table.
 */

import { agentCoverage, agentLocations, agentServices } from "./catalog/agent_reads.ts";
import { publicLocations, publicServices } from "./catalog/public_reads.ts";
import type { Catalog } from "./catalog/catalog.ts";
import type { Config } from "./config.ts";
import type { Context } from "./context.ts";
import { errorResponse, HttpError } from "./http/errors.ts";
import { CACHE_CONTROL, jsonText } from "./http/json.ts";
import { ownOrigins } from "./http/origins.ts";
import { API_PREFIX, PATHS } from "./http/paths.ts";
import { type Route, route } from "./http/router.ts";
import { postLead, postQuote, webForm } from "./intake/handlers.ts";
import { getRequestStatus } from "./intake/status.ts";
import { aiCatalog, SERVER_CARD_TYPE, serverCard, toolDescriptor } from "./mcp/descriptor.ts";
import { createMcpEndpoint } from "./mcp/endpoint.ts";
import { notOfferedText } from "./mcp/tools.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./oauth/discovery.ts";
import { registerClient } from "./oauth/registration.ts";
import { revokeToken } from "./oauth/revocation.ts";
import { issueToken } from "./oauth/token.ts";
import { openApiDocument, type OperationDoc } from "./openapi/document.ts";
import { operationDocs } from "./openapi/operations.ts";
import { liveness, readinessEndpoint } from "./ops/readiness.ts";
import { getEstimate } from "./pricing/estimate.ts";
import { homePage, webAsset } from "./web/pages.ts";

type Headers = Record<string, string>;
const PUBLIC: Headers = { "Cache-Control": CACHE_CONTROL.public };
const SHORT: Headers = { "Cache-Control": CACHE_CONTROL.short };
const CARD: Headers = { ...PUBLIC, "Content-Type": SERVER_CARD_TYPE };
const AI_CATALOG: Headers = { ...PUBLIC, "Content-Type": "application/ai-catalog+json" };

/**
 * The one route table, in dispatch order. Each route carries its OpenAPI operation
 * (`doc`), and the OpenAPI document is generated from this same array.
 */
export function buildRoutes(config: Config, catalog: Catalog): Route<Context, OperationDoc>[] {
  const docs = operationDocs(config, catalog);
  // Routes that write or spend a budget: no Origin, or one of ours (see http/origins.ts).
  const own = ownOrigins(config);
  // The three kinds of route: a read anyone may make from any origin (CORS *), a write
  // from no browser or one of ours, and an OAuth endpoint (a write with OAuth errors).
  const read = (doc: OperationDoc) => ({ cors: true, doc });
  const write = (doc: OperationDoc) => ({ cors: own, doc });
  const oauth = (doc: OperationDoc) => ({ errors: "oauth" as const, cors: own, doc });
  const r = route<Context, OperationDoc>;

  const routes: Route<Context, OperationDoc>[] = [
    r("GET", PATHS.liveness, liveness, { doc: docs.healthz }),
    r("GET", PATHS.readiness, readinessEndpoint(), { doc: docs.readyz }),
    // Discovery (RFC 8414, RFC 9728)
    r(
      "GET",
      PATHS.authorizationServerMetadata,
      _serialised(authorizationServerMetadata(config), PUBLIC),
      read(docs.authorizationServerMetadata),
    ),
    r(
      "GET",
      PATHS.protectedResourceMetadata,
      _serialised(protectedResourceMetadata(config), PUBLIC),
      read(docs.protectedResourceMetadata),
    ),
    // OAuth
    r("POST", PATHS.identity, registerClient, oauth(docs.registerClient)),
    r("POST", PATHS.token, issueToken, oauth(docs.issueToken)),
    r("POST", PATHS.revoke, revokeToken, oauth(docs.revokeToken)),
    // Protected agent resource
    r("GET", PATHS.agentServices, agentServices, read(docs.agentServices)),
    r("GET", PATHS.agentLocations, agentLocations, read(docs.agentLocations)),
    r("GET", PATHS.agentCoverage, agentCoverage, read(docs.agentCoverage)),
    // Anonymous public endpoints
    r("GET", PATHS.services, publicServices, read(docs.publicServices)),
    r("GET", PATHS.locations, publicLocations, read(docs.publicLocations)),
    r("POST", PATHS.intake, postLead, write(docs.submitLead)),
    r("POST", PATHS.quotes, postQuote, write(docs.requestQuote)),
    r("GET", PATHS.estimate, getEstimate, read(docs.estimateQuote)),
    r("GET", PATHS.requestStatus, getRequestStatus, read(docs.requestStatus)),
    // Tool interface (MCP) and its discovery documents
    r("POST", PATHS.mcp, createMcpEndpoint(catalog), write(docs.mcp)),
    r("GET", PATHS.serverCard, _serialised(serverCard(config), CARD), read(docs.serverCard)),
    r(
      "GET",
      PATHS.toolDescriptor,
      _serialised(toolDescriptor(config, catalog), SHORT),
      read(docs.toolDescriptor),
    ),
    r("GET", PATHS.aiCatalog, _serialised(aiCatalog(config), AI_CATALOG), read(docs.aiCatalog)),
    r("GET", PATHS.mcpCatalog, _serialised(aiCatalog(config), PUBLIC), read(docs.mcpCatalog)),
    // Home page for people and browser agents, and its forms
    r("GET", PATHS.home, homePage, { doc: docs.homePage }),
    r("GET", PATHS.asset, webAsset, { doc: docs.webAsset }),
    r("POST", PATHS.leadForm, webForm("lead"), write(docs.leadForm)),
    r("POST", PATHS.quoteForm, webForm("quote"), write(docs.quoteForm)),
    // This document, generated from this very table
    r(
      "GET",
      PATHS.openApi,
      _openApi(() => openApiDocument(routes, config, catalog)),
      read(docs.openApi),
    ),
  ];
  return routes;
}

/** A document that never changes while the process runs, serialised once. */
function _serialised(document: unknown, headers: Headers): () => Response {
  const body = JSON.stringify(document);
  return () => jsonText(body, { headers });
}

/**
 * The OpenAPI document, built at the first request and then kept: converting every zod
 * schema is the costliest part of the table, and most handlers (tests) never serve it.
 */
function _openApi(document: () => unknown): () => Response {
  let body: string | undefined;
  return () => {
    body ??= JSON.stringify(document());
    return jsonText(body, { headers: PUBLIC });
  };
}

/**
 * The 404 of a path no route serves. Under `/api/v1/` it also says what this service does
 * not offer and where every endpoint is listed, so `POST /api/v1/orders` is an answer an
 * agent can act on.
 */
export function notFound(path: string): Response {
  const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  const more = path.startsWith(API_PREFIX)
    ? `. ${notOfferedText()} Every endpoint is in ${PATHS.openApi}.`
    : "";
  return errorResponse(new HttpError(404, "not_found", `no resource at ${shown}${more}`), "api");
}
