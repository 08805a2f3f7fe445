/**
 * @module
 * `createHandler(deps)`: the route table of routes.ts behind admission control, with the
 * request id, the common headers, the last-resort 500 and the access log. The returned
 * function serves `Deno.serve` and the tests alike.
 */

import { DemandCounter } from "./catalog/demand.ts";
import { type Context, type Deps, RequestContext } from "./context.ts";
import { logRequest, requestLabels } from "./http/access_log.ts";
import {
  countedInFlight,
  createAdmission,
  type ServiceHandler,
  unavailable,
} from "./http/admission.ts";
import { errorResponse, HttpError, internalError, unexpectedErrorFields } from "./http/errors.ts";
import { secretNoStore } from "./http/json.ts";
import { createJsonLineLogger } from "./http/log.ts";
import { RateLimiter } from "./http/rate_limit.ts";
import { requestIdOf, requestPath } from "./http/request.ts";
import { prepareDocuments } from "./http/static_document.ts";
import { compileRoutes, matchRoute, respond } from "./http/router.ts";
import { notFound, serviceRoutes } from "./routes.ts";
import { createStoreCache } from "./store/cache.ts";
import { isLocalStore } from "./store/limits.ts";
import { Store } from "./store/store.ts";
import { activeSpan, endRequest } from "./telemetry/metrics.ts";

type Extras = { readonly demand: DemandCounter; prepareDocuments(): Promise<number> };

/**
 * Builds the request handler. Everything that varies (KV, clock, config, catalog) is
 * injected. It carries its demand counter, which the drain flushes, and the compression of
 * its static documents, which main.ts starts once the server listens.
 */
export function createHandler(deps: Deps): ServiceHandler & Extras {
  const log = deps.log ?? createJsonLineLogger();
  // Deadlines, retries while locked and group commit (store/store.ts).
  const kv = deps.kv instanceof Store
    ? deps.kv
    : new Store(deps.kv, { local: isLocalStore(deps.config.kvPath) });
  const now = deps.now ?? Date.now;
  const shared = {
    kv,
    config: deps.config,
    catalog: deps.catalog,
    now,
    log,
    limiter: new RateLimiter(kv),
    cache: createStoreCache(kv),
    demand: new DemandCounter(kv, { now, log }),
    submitted: deps.submitted ?? (() => {}),
  };
  const { table, documents } = serviceRoutes(deps.config, deps.catalog);
  const routes = compileRoutes(table);
  const admission = createAdmission(deps.config.maxInFlight);

  // Synchronous when the route answers synchronously (see `respond` in http/router.ts).
  const handle = (req: Request, info: Deno.ServeHandlerInfo | undefined) => {
    const started = performance.now();
    // The runtime's span of this request (telemetry on), named by its route at the end.
    const span = activeSpan();
    const path = requestPath(req);
    const ctx = new RequestContext(shared, req, info, requestIdOf(req));
    const matched = path === undefined ? undefined : matchRoute(routes, path);
    let holdsPlace = false;
    const finish = (res: Response) => {
      if (holdsPlace) admission.release(ctx);
      _commonHeaders(res, ctx);
      if (path !== undefined) secretNoStore(res, path);
      const labels = requestLabels(req.method, path, matched);
      const ms = performance.now() - started;
      logRequest(log, labels, res.status, ms, ctx.requestId);
      endRequest(span, {
        method: labels.method,
        route: labels.route,
        status: res.status,
        seconds: ms / 1000,
        requestId: ctx.requestId,
      });
      return res;
    };
    const failed = (err: unknown) => _internalError(ctx, err);
    let out: Response | Promise<Response>;
    try {
      if (path === undefined) out = _notAHost();
      else if (deps.draining?.()) out = _shuttingDown();
      else {
        const admitted = admission.admit(req, path, ctx);
        if (admitted instanceof Response) out = admitted;
        else {
          holdsPlace = admitted;
          out = matched ? respond(matched, req, ctx) : notFound(path);
        }
      }
    } catch (err) {
      out = failed(err);
    }
    if (out instanceof Response) return finish(out);
    const answer = out.then(undefined, failed);
    return (deps.cut ? _orCut(answer, deps.cut) : answer).then(finish);
  };

  return Object.assign(countedInFlight(handle, admission), {
    demand: shared.demand,
    prepareDocuments: () => prepareDocuments(documents, log),
  });
}

/** Headers every answer carries: those a handler left in the context, and the request id. */
function _commonHeaders(res: Response, ctx: Context): void {
  for (const [k, v] of ctx.headers) res.headers.set(k, v);
  res.headers.set("X-Request-Id", ctx.requestId);
  res.headers.set("X-Content-Type-Options", "nosniff");
}

/** The last resort: logged with the request id, never echoed; the caller gets a bare 500. */
function _internalError(ctx: Context, err: unknown): Response {
  ctx.log({ level: "error", request_id: ctx.requestId, ...unexpectedErrorFields(err) });
  return internalError();
}

function _notAHost(): Response {
  const err = new HttpError(400, "invalid_request", "the Host header is not a host name");
  return errorResponse(err, "api");
}

/**
 * `answer`, or 503 as soon as `cut` is aborted (the drain's grace ended, ops/drain.ts): the
 * request is answered, and what it was waiting for (a body, the store) goes on unheard.
 */
function _orCut(answer: Promise<Response>, cut: AbortSignal): Promise<Response> {
  return new Promise((resolve) => {
    const onCut = () => resolve(_shuttingDown());
    if (cut.aborted) return onCut();
    cut.addEventListener("abort", onCut, { once: true });
    void answer.then((res) => {
      cut.removeEventListener("abort", onCut);
      resolve(res);
    });
  });
}

function _shuttingDown(): Response {
  return unavailable("unavailable", "the service is shutting down; retry shortly", true);
}
