/**
 * @module
 * `createHandler(deps)`: admission, common headers, error mapping and the access log
 * around the route table of routes.ts. The returned function serves `Deno.serve` and the tests alike.
 */

import type { Context, Deps } from "./context.ts";
import { clientAddress } from "./http/client_address.ts";
import { errorResponse, HttpError, unexpectedErrorFields } from "./http/errors.ts";
import { createJsonLineLogger } from "./http/log.ts";
import { createRateCounter } from "./http/rate_limit.ts";
import { compileRoutes, matchRoute, respond, type RouteMatch } from "./http/router.ts";
import { buildRoutes, notFound } from "./routes.ts";
import { createStoreCache } from "./store/cache.ts";
import { groupCommit } from "./store/group_commit.ts";
import { activeSpan, countRefusal, endRequest } from "./telemetry/metrics.ts";

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

/**
 * Admission beyond the one cap, so that callers at their limits cannot starve others:
 * one address (an IPv6 /64, see client_address.ts) holds at most this share of
 * `MAX_IN_FLIGHT`, and requests that write (POST) at most `1 - READ_RESERVE` of it, so
 * reads always find places.
 */
export const ADDRESS_SHARE = 1 / 4;
export const READ_RESERVE = 1 / 4;
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
  // Every write of a request joins a group commit (see store/group_commit.ts); reads are direct.
  const kv = groupCommit(deps.kv);
  const rateCounter = createRateCounter(kv);
  const cache = createStoreCache(kv);
  const routes = compileRoutes(buildRoutes(config));
  const submitted = deps.submitted ?? (() => {});

  const maxInFlight = config.maxInFlight;
  // With a small MAX_IN_FLIGHT the share would be a place or two: at least 8 (or all).
  const addressCap = Math.max(Math.min(maxInFlight, 8), Math.ceil(maxInFlight * ADDRESS_SHARE));
  const writeCap = Math.max(1, maxInFlight - Math.floor(maxInFlight * READ_RESERVE));
  let inFlight = 0;
  /** Requests admitted and not yet answered, per address. */
  const byAddress = new Map<string, number>();
  const idle: (() => void)[] = [];

  // Synchronous when the route answers synchronously (see `respond` in http/router.ts).
  const handle = (req: Request, info: Deno.ServeHandlerInfo | undefined) => {
    const started = performance.now();
    // The runtime's span of this request (telemetry on), named by its route at the end.
    const span = activeSpan();
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
      submitted,
    };
    const matched = path === undefined ? undefined : matchRoute(routes, path);

    const failed = (err: unknown) => {
      // Never echoed: the caller sees a generic 500 that carries no internals.
      log({ level: "error", request_id: requestId, ...unexpectedErrorFields(err) });
      return errorResponse(new HttpError(500, "internal_error", "internal error"), "api");
    };
    let admitted: string | undefined;
    const finish = (res: Response) => {
      if (admitted !== undefined) {
        const n = byAddress.get(admitted)! - 1;
        if (n === 0) byAddress.delete(admitted);
        else byAddress.set(admitted, n);
      }
      for (const [k, v] of ctx.headers) res.headers.set(k, v);
      res.headers.set("X-Request-Id", requestId);
      res.headers.set("X-Content-Type-Options", "nosniff");
      // Only what the service defines is logged, never what the caller typed: a method
      // outside HTTP's, or a path that matches no route, could hold a name or a number.
      const method = KNOWN_METHODS.has(req.method) ? req.method : "(other)";
      const route = path === undefined ? "(invalid url)" : _routeOf(matched, path);
      const ms = performance.now() - started;
      log({
        level: "info",
        method,
        path: route,
        status: res.status,
        ms: Math.round(ms * 10) / 10,
        request_id: requestId,
      });
      endRequest(span, { method, route, status: res.status, seconds: ms / 1000, requestId });
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
      } else if (maxInFlight > 0 && path !== "/healthz" && !_admit(req, ctx.address)) {
        out = unavailable(
          "overloaded",
          "too many requests in flight from this address, or writes; retry shortly",
          false,
        );
      } else {
        if (maxInFlight > 0 && path !== "/healthz") {
          admitted = ctx.address;
          byAddress.set(admitted, (byAddress.get(admitted) ?? 0) + 1);
        }
        out = matched ? respond(matched, req, ctx, path) : notFound(path);
      }
    } catch (err) {
      out = failed(err);
    }
    return out instanceof Response ? finish(out) : out.then(undefined, failed).then(finish);
  };

  /** Whether a request may take a place: its address's share, and for a write, not the reads'. */
  const _admit = (req: Request, address: string) =>
    (byAddress.get(address) ?? 0) < addressCap &&
    (inFlight <= writeCap || req.method === "GET" || req.method === "HEAD" ||
      req.method === "OPTIONS");

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
  if (code === "overloaded") countRefusal("overloaded");
  const headers: Record<string, string> = { "Retry-After": "1" };
  if (close) headers["Connection"] = "close";
  return errorResponse(new HttpError(503, code, message, { headers }), "api");
}
