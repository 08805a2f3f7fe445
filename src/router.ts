/**
 * @module
 * A URLPattern route table read top to bottom; the first match wins.
 * 404 and 405 (with `Allow`) are answered here, HEAD runs the GET handler
 * without a body, and OPTIONS (including CORS preflight) is answered centrally.
 */

import { errorResponse, type ErrorStyle, HttpError } from "./http.ts";
import type { OperationDoc } from "./openapi.ts";

export type Handler<C> = (req: Request, ctx: C, params: Params) => Response | Promise<Response>;
export type Params = Readonly<Record<string, string | undefined>>;

export interface Route<C> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  pattern: URLPattern;
  handler: Handler<C>;
  /** Error body layout for this route. */
  errors: ErrorStyle;
  /**
   * CORS: `true` answers any origin with `*` (public, credential-free reads); a
   * function allows exactly the origins it accepts, echoing them back.
   */
  cors: boolean | OriginPolicy;
  /** Its OpenAPI operation; `openApiDocument` refuses a table with an undocumented route. */
  doc?: OperationDoc;
}

/** Decides whether a browser origin may call a route. */
export type OriginPolicy = (origin: string) => boolean;

/** Builds a route; `pathname` is a URLPattern pathname such as `/api/v1/items/:id`. */
export function route<C>(
  method: Route<C>["method"],
  pathname: string,
  handler: Handler<C>,
  options: { errors?: ErrorStyle; cors?: boolean | OriginPolicy; doc?: OperationDoc } = {},
): Route<C> {
  return {
    method,
    pattern: new URLPattern({ pathname }),
    handler,
    errors: options.errors ?? "api",
    cors: options.cors ?? false,
    doc: options.doc,
  };
}

const CORS_ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key";
const CORS_EXPOSE_HEADERS =
  "WWW-Authenticate, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, Location";

/** Dispatches one request through the table. Errors thrown as HttpError use the route's style. */
export async function dispatch<C>(
  routes: readonly Route<C>[],
  req: Request,
  ctx: C,
): Promise<Response> {
  const url = new URL(req.url);
  const lookup = req.method === "HEAD" ? "GET" : req.method;
  const allowed = new Set<string>();
  let found: { route: Route<C>; params: Params } | undefined;
  let anyCors = false;
  let policy: OriginPolicy | undefined;
  for (const r of routes) {
    const m = r.pattern.exec({ pathname: url.pathname });
    if (!m) continue;
    allowed.add(r.method);
    if (r.cors === true) anyCors = true;
    else if (r.cors) policy = r.cors;
    if (!found && r.method === lookup) found = { route: r, params: m.pathname.groups };
  }

  if (allowed.size === 0) {
    return errorResponse(new HttpError(404, "not_found", `no resource at ${url.pathname}`), "api");
  }
  const allow = _allowHeader(allowed);
  const origin = req.headers.get("origin");
  if (req.method === "OPTIONS") {
    const headers = new Headers({ Allow: allow });
    if (anyCors || (policy && origin !== null)) {
      if (!anyCors && !policy!(origin!)) {
        const err = new HttpError(
          403,
          "forbidden_origin",
          "this Origin may not call this resource",
        );
        return errorResponse(err, "api");
      }
      headers.set("Access-Control-Allow-Origin", anyCors ? "*" : origin!);
      if (!anyCors) headers.set("Vary", "Origin");
      headers.set("Access-Control-Allow-Methods", allow);
      headers.set(
        "Access-Control-Allow-Headers",
        anyCors
          ? CORS_ALLOW_HEADERS
          : req.headers.get("access-control-request-headers") ?? CORS_ALLOW_HEADERS,
      );
      headers.set("Access-Control-Max-Age", "600");
    }
    return new Response(null, { status: 204, headers });
  }
  if (!found) {
    const err = new HttpError(405, "method_not_allowed", `${req.method} is not allowed here`, {
      headers: { Allow: allow },
    });
    return errorResponse(err, "api");
  }

  let res: Response;
  try {
    res = await found.route.handler(req, ctx, found.params);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    res = errorResponse(err, found.route.errors);
  }
  const cors = found.route.cors;
  if (cors === true) {
    res.headers.set("Access-Control-Allow-Origin", "*");
    res.headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
  } else if (cors && origin !== null && cors(origin)) {
    res.headers.set("Access-Control-Allow-Origin", origin);
    res.headers.append("Vary", "Origin");
    res.headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
  }
  if (req.method === "HEAD") {
    // RFC 9110 §9.3.2: the GET's headers, Content-Length included, without the body.
    const length = (await res.arrayBuffer()).byteLength;
    res.headers.set("Content-Length", String(length));
    return new Response(null, { status: res.status, headers: res.headers });
  }
  return res;
}

function _allowHeader(methods: Set<string>): string {
  const all = new Set(methods);
  if (all.has("GET")) all.add("HEAD");
  all.add("OPTIONS");
  return [...all].join(", ");
}
