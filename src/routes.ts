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
import { readBody } from "./http/body.ts";
import { rateLimited } from "./http/rate_limit.ts";
import { dynamicCompression } from "./http/compression.ts";
import { isStaticDocument, type StaticDocument, staticDocument } from "./http/static_document.ts";
import { CACHE_CONTROL } from "./http/json.ts";
import { ownOrigins } from "./http/origins.ts";
import { API_PREFIX, PATHS } from "./http/paths.ts";
import { type Route, route } from "./http/router.ts";
import { postLead, postQuote, webForm } from "./intake/handlers.ts";
import { getRequestStatus } from "./intake/status.ts";
import { aiCatalog, SERVER_CARD_TYPE, serverCard, toolDescriptor } from "./mcp/descriptor.ts";
import { MCP_MAX_BODY } from "./mcp/protocol.ts";
import { notOfferedText } from "./mcp/tools.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./oauth/discovery.ts";
import { registerClient } from "./oauth/registration.ts";
import { revokeToken } from "./oauth/revocation.ts";
import { issueToken } from "./oauth/token.ts";
import { openApiDocument, type OperationDoc } from "./openapi/document.ts";
import { operationDocs } from "./openapi/operations.ts";
import { liveness, readinessEndpoint } from "./ops/readiness.ts";
import { ESTIMATE_BY_GET, getEstimate } from "./pricing/estimate.ts";
import { homePage, webAsset, webDocuments } from "./web/pages.ts";
import { staffDocuments } from "./staff/assets.ts";
import { staffRoutes } from "./staff/routes.ts";
import { LLMS_TXT_TYPE, llmsTxt, ROBOTS_TXT_TYPE, robotsTxt } from "./web/llms_txt.ts";

type Headers = Record<string, string>;
const JSON_TYPE: Headers = { "Content-Type": "application/json; charset=utf-8" };
const PUBLIC: Headers = { ...JSON_TYPE, "Cache-Control": CACHE_CONTROL.public };
const SHORT: Headers = { ...JSON_TYPE, "Cache-Control": CACHE_CONTROL.short };
const CARD: Headers = { ...PUBLIC, "Content-Type": SERVER_CARD_TYPE };
const AI_CATALOG: Headers = { ...PUBLIC, "Content-Type": "application/ai-catalog+json" };
const LLMS: Headers = { "Content-Type": LLMS_TXT_TYPE, "Cache-Control": CACHE_CONTROL.public };
const ROBOTS: Headers = { "Content-Type": ROBOTS_TXT_TYPE, "Cache-Control": CACHE_CONTROL.public };

/**
 * The one route table, in dispatch order. Each route carries its OpenAPI operation
 * (`doc`), and the OpenAPI document is generated from this same array.
 */
export function buildRoutes(config: Config, catalog: Catalog): Route<Context, OperationDoc>[] {
  const docs = operationDocs(config, catalog);
  // Routes that write or spend a budget: no Origin, or one of ours (see http/origins.ts).
  const own = ownOrigins(config);
  // The kinds of route: a read anyone may make from any origin (CORS *), compressed when
  // large; a document that never changes (CORS *; made and compressed once, see
  // http/static_document.ts); a write from no browser or one of ours; and an OAuth endpoint
  // (a write with OAuth errors).
  const large = dynamicCompression;
  const read = (doc: OperationDoc) => ({ cors: true, doc, compress: large() });
  const fixed = (doc: OperationDoc) => ({ cors: true, doc });
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
      fixed(docs.authorizationServerMetadata),
    ),
    r(
      "GET",
      PATHS.protectedResourceMetadata,
      _serialised(protectedResourceMetadata(config), PUBLIC),
      fixed(docs.protectedResourceMetadata),
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
    r("GET", PATHS.estimate, getEstimate, {
      ...read(docs.estimateQuote),
      notAllowed: ESTIMATE_BY_GET,
    }),
    r("GET", PATHS.requestStatus, getRequestStatus, read(docs.requestStatus)),
    // Tool interface (MCP) and its discovery documents
    // tools/list is 16 KB: a JSON answer is compressed like a read's (not an event stream).
    r("POST", PATHS.mcp, _mcpEndpoint(catalog), { ...write(docs.mcp), compress: large() }),
    r("GET", PATHS.serverCard, _serialised(serverCard(config), CARD), fixed(docs.serverCard)),
    r(
      "GET",
      PATHS.toolDescriptor,
      _serialised(toolDescriptor(config, catalog), SHORT),
      fixed(docs.toolDescriptor),
    ),
    r("GET", PATHS.aiCatalog, _serialised(aiCatalog(config), AI_CATALOG), fixed(docs.aiCatalog)),
    r("GET", PATHS.mcpCatalog, _serialised(aiCatalog(config), PUBLIC), fixed(docs.mcpCatalog)),
    // For language models and crawlers
    r("GET", PATHS.llmsTxt, staticDocument(llmsTxt(config), LLMS), fixed(docs.llmsTxt)),
    r("GET", PATHS.robotsTxt, staticDocument(robotsTxt(), ROBOTS), fixed(docs.robotsTxt)),
    // Home page for people and browser agents, and its forms
    r("GET", PATHS.home, homePage, { doc: docs.homePage }),
    r("GET", PATHS.asset, webAsset, { doc: docs.webAsset }),
    r("POST", PATHS.leadForm, webForm("lead"), write(docs.leadForm)),
    r("POST", PATHS.quoteForm, webForm("quote"), write(docs.quoteForm)),
    // This document, generated from this very table
    r(
      "GET",
      PATHS.openApi,
      // Built when first needed (at start, by prepareDocuments, in a handler that serves).
      staticDocument(() => JSON.stringify(openApiDocument(routes, config, catalog)), PUBLIC),
      fixed(docs.openApi),
    ),
  ];
  return routes;
}

/**
 * Every route the handler serves, the staff console's after the service's (outside its
 * OpenAPI document), and every static document it serves: the table's, the home page's at
 * `BASE_URL` and the files', which `prepareDocuments` compresses at start.
 */
export function serviceRoutes(
  config: Config,
  catalog: Catalog,
): { table: Route<Context>[]; documents: StaticDocument[] } {
  const staff = config.staffConsole;
  const table = [...buildRoutes(config, catalog), ...(staff ? staffRoutes() : [])];
  const documents = [...table.map((r) => r.handler), ...webDocuments(catalog, config.baseUrl)]
    .concat(staff ? staffDocuments() : []).filter(isStaticDocument);
  return { table, documents };
}

/**
 * `POST /api/v1/mcp`, its SDK imported with the first MCP request (mcp/protocol.ts says why).
 * The request is counted against RATE_LIMIT_MCP (in the commit of a submission it carries, or
 * alone when it ends: http/rate_limit.ts) and its body read under its limit first, so a 413
 * or a 429 never waits for the import; every request after it is served by the endpoint that
 * import built.
 */
function _mcpEndpoint(catalog: Catalog): (req: Request, ctx: Context) => Promise<Response> {
  type Endpoint = (req: Request, ctx: Context, body: Uint8Array<ArrayBuffer>) => Promise<Response>;
  let endpoint: Promise<Endpoint> | undefined;
  return (req, ctx) =>
    rateLimited(ctx, "mcp", ctx.config.rateLimits.mcp, async () => {
      const body = await readBody(req, { maxBytes: MCP_MAX_BODY });
      endpoint ??= import("./mcp/endpoint.ts").then((m) => m.createMcpEndpoint(catalog))
        .catch((err) => {
          endpoint = undefined; // a failed load is tried again by the next request
          throw err;
        });
      return await (await endpoint)(req, ctx, body);
    });
}

/** A JSON document that never changes while the process runs, serialised once. */
function _serialised(document: unknown, headers: Headers): (req: Request) => Response {
  return staticDocument(JSON.stringify(document), headers);
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
