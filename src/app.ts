/**
 * @module
 * `createHandler(deps)`: the one route table, common headers, error mapping and
 * the access log. The returned function serves `Deno.serve` and the tests alike.
 */

import { agentCoverage, agentLocations, agentServices } from "./agent.ts";
import { clientAddress } from "./client_address.ts";
import { groupCommit } from "./group_commit.ts";
import { createStoreCache } from "./store_cache.ts";
import type { Config } from "./config.ts";
import type { Context, Deps, Logger } from "./context.ts";
import { authorizationServerMetadata, PATHS, protectedResourceMetadata } from "./discovery.ts";
import { errorResponse, HttpError, json, jsonText, unexpectedErrorFields } from "./http.ts";
import { postLead, postQuote, publicLocations, publicServices, webForm } from "./intake.ts";
import { pingStore } from "./kv.ts";
import { registerClient } from "./oauth/registration.ts";
import { revokeToken } from "./oauth/revocation.ts";
import { issueToken } from "./oauth/token.ts";
import { createRateCounter } from "./rate_limit.ts";
import { createMcpEndpoint, MCP_PATH } from "./mcp.ts";
import {
  aiCatalog,
  SERVER_CARD_PATH,
  SERVER_CARD_TYPE,
  serverCard,
  toolDescriptor,
} from "./mcp_discovery.ts";
import { OPENAPI_PATH, openApiDocument, type OperationDoc } from "./openapi.ts";
import { ownOrigins } from "./origins.ts";
import { operationDocs } from "./openapi_operations.ts";
import {
  compileRoutes,
  type Handler as RouteHandler,
  matchRoute,
  respond,
  type Route,
  route,
  type RouteMatch,
} from "./router.ts";
import { homePage, webAsset } from "./web.ts";

export type Handler = (
  req: Request,
  info?: Deno.ServeHandlerInfo,
) => Response | Promise<Response>;

/** The service's handler, which also knows how many requests it is handling. */
export interface ServiceHandler extends Handler {
  /** Requests being handled now (admitted or being refused). */
  readonly inFlight: number;
  /** Resolves once no request is being handled, e.g. to finish a drain. */
  idle(): Promise<void>;
}

/**
 * Places beyond `MAX_IN_FLIGHT` kept for `GET /healthz`, so a health check of an
 * instance that is shedding load still answers: a liveness probe must not restart an
 * instance for being busy. Still a bound: at most this many more requests.
 */
export const HEALTH_RESERVE = 8;

const _utf8 = new TextEncoder();

/**
 * One JSON line per record on `out` (stdout), written in batches: the lines of one
 * event-loop turn go out in one write. `console.log`, or a write per request, cost
 * more than serving a catalog read. Warnings and errors are written at once; on a
 * crash only the info lines of the current turn can be lost.
 */
export function createJsonLineLogger(
  out: { writeSync(p: Uint8Array): number } = Deno.stdout,
): Logger {
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!pending) return;
    const bytes = _utf8.encode(pending);
    pending = "";
    for (let n = 0; n < bytes.length;) n += out.writeSync(bytes.subarray(n));
  };
  return (record) => {
    pending += JSON.stringify(record) + "\n";
    if (record.level !== "info" || pending.length >= 64 * 1024) flush();
    else timer ??= setTimeout(flush, 0);
  };
}

/**
 * An incoming `X-Request-Id` is kept (echoed and logged) only when it is a UUID (with or
 * without dashes, as nginx's `$request_id` writes it) or a ULID. Free text could carry
 * anything, such as `agt_…:dcfs_cs_…` pasted from a Basic header; these shapes cannot
 * hold one of our credentials or personal data. Anything else gets a fresh UUID.
 */
const _REQUEST_ID =
  /^(?:[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}|[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25})$/;

/** Builds the request handler. Everything that varies (KV, clock, config, catalog) is injected. */
export function createHandler(deps: Deps): ServiceHandler {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? createJsonLineLogger();
  const { config } = deps;
  // Every write of a request joins a group commit (see group_commit.ts); reads are direct.
  const kv = groupCommit(deps.kv);
  const rateCounter = createRateCounter(kv);
  const cache = createStoreCache(kv);
  const routes = compileRoutes(buildRoutes(config));

  const maxInFlight = config.maxInFlight;
  let inFlight = 0;
  const idle: (() => void)[] = [];

  // Synchronous when the route answers synchronously (see `respond` in router.ts).
  const handle = (req: Request, info: Deno.ServeHandlerInfo | undefined) => {
    const started = performance.now();
    // Deno builds req.url from the Host header and the request target. A Host that is
    // not a host (`x|y`, or `a\api\v1\intake?`, which moves the real target into the
    // query and picks another route) is refused before anything reads the URL.
    const path = _pathname(req);
    const incoming = req.headers.get("x-request-id");
    const requestId = incoming && _REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    let address: string | undefined;
    const ctx: Context = {
      kv,
      config,
      catalog: deps.catalog,
      now,
      log,
      requestId,
      // Parsed when a rate limit or an idempotency scope first asks: most reads never do.
      get address() {
        return address ??= clientAddress(req, info, config.trustProxy);
      },
      rateCounter,
      cache,
      headers: new Map(),
    };
    const matched = path === undefined ? undefined : matchRoute(routes, path);

    const failed = (err: unknown) => {
      // Never echoed: the caller sees a generic 500 that carries no internals.
      log({ level: "error", request_id: requestId, ...unexpectedErrorFields(err) });
      return errorResponse(new HttpError(500, "internal_error", "internal error"), "api");
    };
    const finish = (res: Response) => {
      for (const [k, v] of ctx.headers) res.headers.set(k, v);
      res.headers.set("X-Request-Id", requestId);
      res.headers.set("X-Content-Type-Options", "nosniff");
      log({
        level: "info",
        // Only what the service defines is logged, never what the caller typed: a method
        // outside HTTP's, or a path that matches no route, could hold a name or a number.
        method: KNOWN_METHODS.has(req.method) ? req.method : "(other)",
        path: path === undefined ? "(invalid url)" : _routeOf(matched, path),
        status: res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        request_id: requestId,
      });
      return res;
    };

    let out: Response | Promise<Response>;
    const cap = maxInFlight + (path === "/healthz" ? HEALTH_RESERVE : 0);
    try {
      if (path === undefined) {
        const err = new HttpError(400, "invalid_request", "the Host header is not a host name");
        out = errorResponse(err, "api");
      } else if (deps.draining?.()) {
        out = unavailable("unavailable", "the service is shutting down; retry shortly", true);
      } else if (maxInFlight > 0 && inFlight > cap) {
        // Admission control: a burst is refused at once, before its body is read, so it
        // can hold no more than MAX_IN_FLIGHT requests' worth of memory and store calls.
        out = unavailable("overloaded", "too many requests in flight; retry shortly", false);
      } else {
        out = respond(matched, req, ctx, path);
      }
    } catch (err) {
      out = failed(err);
    }
    return out instanceof Response ? finish(out) : out.then(undefined, failed).then(finish);
  };

  const done = () => {
    if (--inFlight === 0) { for (const wake of idle.splice(0)) wake(); }
  };
  const handler = (req: Request, info?: Deno.ServeHandlerInfo) => {
    inFlight++;
    let out: Response | Promise<Response>;
    try {
      out = handle(req, info);
    } catch (err) {
      done();
      throw err;
    }
    if (out instanceof Response) {
      done();
      return out;
    }
    return out.finally(done);
  };
  return Object.defineProperties(handler, {
    inFlight: { get: () => inFlight },
    idle: {
      value: () => inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => idle.push(r)),
    },
  }) as ServiceHandler;
}

/** The HTTP methods (RFC 9110 §9, RFC 5789) logged by name; any other is "(other)". */
const KNOWN_METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH",
]);

/**
 * A Host header: a name (underscores and a trailing dot allowed, as container names and
 * fully qualified names have them) or an IPv4 address, or an IPv6 literal, with an
 * optional port. Nothing that a URL parser reads as a path, query, fragment or userinfo.
 */
const _HOST = /^(?:[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The request's path, or undefined when its Host header is not a host or the URL is not one. */
function _pathname(req: Request): string | undefined {
  const host = req.headers.get("host");
  if (host !== null && !_HOST.test(host)) return undefined;
  try {
    return new URL(req.url).pathname;
  } catch {
    return undefined;
  }
}

/**
 * The path as logged: a fixed route's path; a route with parameters, its pattern
 * (`/assets/:name`, whatever name was asked for); no route, "(no route)".
 */
function _routeOf(matched: RouteMatch<Context> | undefined, path: string): string {
  if (!matched) return "(no route)";
  return Object.keys(matched.params).length ? matched.group.pattern.pathname : path;
}

/** RFC 9110 §15.6.4: 503 with `Retry-After`; `close` also ends the connection. */
function unavailable(code: string, message: string, close: boolean): Response {
  const headers: Record<string, string> = { "Retry-After": "1" };
  if (close) headers["Connection"] = "close";
  return errorResponse(new HttpError(503, code, message, { headers }), "api");
}

/**
 * The one route table, in dispatch order. Each route carries its OpenAPI operation
 * (`doc`), and the OpenAPI document is generated from this same array.
 */
export function buildRoutes(config: Config): Route<Context>[] {
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
  // Routes that write or spend a budget: no Origin, or one of ours (see origins.ts).
  const own = ownOrigins(config);

  const docs = operationDocs(config);
  // Built at the first request, then kept: converting every zod schema is the
  // costliest part of the table and most handlers (tests) never serve it.
  let openApi: string | undefined;

  // What the table's lines refer to, so that each route fits on one line.
  const healthz: RouteHandler<Context> = async (_req, ctx) => {
    try {
      await pingStore(ctx.kv);
    } catch {
      throw new HttpError(503, "unavailable", "the store does not answer");
    }
    return json({ ok: true }, { headers: { "Cache-Control": "no-store" } });
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
  const r = route<Context>;

  const routes: Route<Context>[] = [
    r("GET", "/healthz", healthz, { doc: docs.healthz }),
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
