/**
 * @module
 * A URLPattern route table, compiled once (`compileRoutes`); for a path, the first
 * route with the request's method wins.
 * 404 and 405 (with `Allow`) are answered here, HEAD runs the GET handler
 * without a body, and OPTIONS (including CORS preflight) is answered centrally.
 */

import { countRefusal } from "../telemetry/metrics.ts";
import { errorResponse, type ErrorStyle, HttpError } from "./errors.ts";

type Handler<C> = (req: Request, ctx: C, params: Params) => Response | Promise<Response>;
export type Params = Readonly<Record<string, string | undefined>>;

/**
 * A route, with `M` the type of the metadata it carries (the service gives each route its
 * OpenAPI operation). The router never reads `doc`: it knows nothing of documentation.
 */
export interface Route<C, M = unknown> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  pattern: URLPattern;
  handler: Handler<C>;
  /** Error body layout for this route. */
  errors: ErrorStyle;
  /**
   * CORS: `true` answers any origin with `*` (public, credential-free reads); a
   * function allows exactly the origins it accepts, echoing them back, and refuses
   * a request from any other origin with 403 `forbidden_origin`.
   */
  cors: boolean | OriginPolicy;
  /** What the route is documented as; opaque here (the service uses an OpenAPI operation). */
  doc?: M;
  /** Applied to every answer of the route, before CORS (http/compression.ts). */
  compress?: Compress;
  /** The message of the path's 405, when it can say more than "not allowed" (what to use). */
  notAllowed?: string;
}

/** A step that may compress an answer, given the request it answers. */
type Compress = (req: Request, res: Response) => Response | Promise<Response>;

/** Decides whether a browser origin may call a route. */
export type OriginPolicy = (origin: string) => boolean;

/** Builds a route; `pathname` is a URLPattern pathname such as `/api/v1/items/:id`. */
export function route<C, M = unknown>(
  method: Route<C, M>["method"],
  pathname: string,
  handler: Handler<C>,
  options: Pick<Route<C, M>, "doc" | "compress" | "notAllowed"> & {
    errors?: ErrorStyle;
    cors?: boolean | OriginPolicy;
  } = {},
): Route<C, M> {
  return {
    method,
    pattern: new URLPattern({ pathname }),
    handler,
    errors: options.errors ?? "api",
    cors: options.cors ?? false,
    doc: options.doc,
    compress: options.compress,
    notAllowed: options.notAllowed,
  };
}

const CORS_ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key";
const CORS_EXPOSE_HEADERS =
  "WWW-Authenticate, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, Location";

/** The paths one pathname pattern answers, with what every request to them needs. */
interface PathGroup<C> {
  pattern: URLPattern;
  /** The routes whose pattern matches these paths, in table order. */
  routes: Route<C>[];
  allow: string;
  /** The 405's message: a route's `notAllowed`, or the plain one. */
  notAllowed: string;
  anyCors: boolean;
  policy: OriginPolicy | undefined;
}

/** A route table prepared for dispatch: built once, read by every request. */
export interface RouteTable<C> {
  /** Patterns without parameters or wildcards, by their exact pathname. */
  exact: Map<string, PathGroup<C>>;
  /** The rest, tried in table order with `URLPattern.exec`. */
  patterns: PathGroup<C>[];
}

/**
 * Groups the table by pathname pattern once, so a request costs one Map lookup for a
 * fixed path instead of a URLPattern match per route; URLPattern stays the matcher
 * for patterns with parameters. Every route of a group counts towards its `Allow`,
 * and the first route for the method wins. A parameter pattern that also matches a
 * fixed path would make the answer depend on table order, so it is refused here.
 */
export function compileRoutes<C>(routes: readonly Route<C>[]): RouteTable<C> {
  const byPattern = new Map<string, Route<C>[]>();
  for (const r of routes) {
    byPattern.set(r.pattern.pathname, [...byPattern.get(r.pattern.pathname) ?? [], r]);
  }
  const table: RouteTable<C> = { exact: new Map(), patterns: [] };
  for (const [pathname, members] of byPattern) {
    const group: PathGroup<C> = {
      pattern: members[0]!.pattern,
      routes: members,
      allow: _allowHeader(new Set(members.map((r) => r.method))),
      notAllowed: members.find((r) => r.notAllowed)?.notAllowed ??
        "this method is not allowed here",
      anyCors: members.some((r) => r.cors === true),
      policy: members.findLast((r) => typeof r.cors === "function")?.cors as
        | OriginPolicy
        | undefined,
    };
    if (_isFixed(pathname)) table.exact.set(pathname, group);
    else table.patterns.push(group);
  }
  for (const fixed of table.exact.keys()) {
    const clash = table.patterns.find((g) => g.pattern.test({ pathname: fixed }));
    if (clash) throw new Error(`route ${clash.pattern.pathname} also matches ${fixed}`);
  }
  return table;
}

function _isFixed(pathname: string): boolean {
  return /^[A-Za-z0-9/._~-]*$/.test(pathname) &&
    new URLPattern({ pathname }).test({ pathname });
}

/** A path's group in a route table, with the parameters the path gave. */
export interface RouteMatch<C> {
  group: PathGroup<C>;
  params: Params;
}

/** The group a pathname belongs to, with its parameters; `undefined` for a 404. */
export function matchRoute<C>(table: RouteTable<C>, pathname: string): RouteMatch<C> | undefined {
  const exact = table.exact.get(pathname);
  if (exact) return { group: exact, params: {} as Params };
  for (const group of table.patterns) {
    const m = group.pattern.exec({ pathname });
    if (m) return { group, params: m.pathname.groups as Params };
  }
  return undefined;
}

/**
 * Answers a request whose path matched: 405 with `Allow` for a method the path does not
 * serve, OPTIONS (CORS preflight included) centrally, 403 for an origin the route refuses,
 * and HEAD as the GET without its body. A handler that answers synchronously is answered
 * synchronously: an `async` frame and a promise per layer is a measurable share of a
 * public read's time (docs/performance.md, "The store layer"). An HttpError a handler
 * throws is rendered in the route's error style; anything else is thrown on.
 */
export function respond<C>(
  matched: RouteMatch<C>,
  req: Request,
  ctx: C,
): Response | Promise<Response> {
  if (req.method === "OPTIONS") return _options(matched.group, req);
  const lookup = req.method === "HEAD" ? "GET" : req.method;
  const route = matched.group.routes.find((r) => r.method === lookup);
  if (!route) {
    const err = new HttpError(405, "method_not_allowed", matched.group.notAllowed, {
      headers: { Allow: matched.group.allow },
    });
    // With the path's CORS grant, so a browser client on an allowed origin can read the 405
    // (a 2025-11-25 MCP client's GET of its event stream) instead of a CORS failure.
    const res = errorResponse(err, "api");
    const { anyCors, policy } = matched.group;
    _corsHeaders(res, anyCors || (policy ?? false), req.headers.get("origin"));
    return res;
  }
  // A route with an origin policy serves callers that are not browsers (no Origin) and
  // the origins it allows; any other page gets 403 before the handler runs, so it can
  // neither write nor spend anyone's rate limit (cross-site "simple" POSTs included).
  const origin = req.headers.get("origin");
  if (typeof route.cors === "function" && origin !== null && !route.cors(origin)) {
    return _forbiddenOrigin(route.errors);
  }
  const failed = (err: unknown) => {
    if (!(err instanceof HttpError)) throw err;
    return errorResponse(err, route.errors);
  };
  const finish = (res: Response): Response | Promise<Response> => {
    _corsHeaders(res, route.cors, origin);
    return req.method === "HEAD" ? _withoutBody(res) : res;
  };
  const compress = route.compress;
  const answer = compress
    ? (res: Response) => {
      const out = compress(req, res);
      return out instanceof Response ? finish(out) : out.then(finish);
    }
    : finish;
  let out: Response | Promise<Response>;
  try {
    out = route.handler(req, ctx, matched.params);
  } catch (err) {
    return answer(failed(err));
  }
  return out instanceof Response ? answer(out) : out.then(undefined, failed).then(answer);
}

/** OPTIONS: 204 with `Allow`, and the CORS grant of a preflight the path's routes allow. */
function _options<C>(group: PathGroup<C>, req: Request): Response {
  const { allow, anyCors, policy } = group;
  const origin = req.headers.get("origin");
  const headers = new Headers({ Allow: allow });
  if (anyCors || (policy && origin !== null)) {
    if (!anyCors && !policy!(origin!)) return _forbiddenOrigin("api");
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

/** The CORS headers of an answer: `*` on a public read, the origin itself where it is allowed. */
function _corsHeaders(res: Response, cors: Route<unknown>["cors"], origin: string | null): void {
  if (cors === true) {
    res.headers.set("Access-Control-Allow-Origin", "*");
    res.headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
  } else if (cors && origin !== null && cors(origin)) {
    res.headers.set("Access-Control-Allow-Origin", origin);
    res.headers.append("Vary", "Origin");
    res.headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
  }
}

function _forbiddenOrigin(style: ErrorStyle): Response {
  countRefusal("forbidden_origin");
  const err = new HttpError(403, "forbidden_origin", "this Origin may not call this resource");
  return errorResponse(err, style);
}

/**
 * RFC 9110 §9.3.2: the GET's headers, Content-Length included, without the body. A `304`
 * has no body to measure, and its length would not be the representation's: none is set.
 */
async function _withoutBody(res: Response): Promise<Response> {
  if (res.status === 304) return new Response(null, { status: 304, headers: res.headers });
  const length = (await res.arrayBuffer()).byteLength;
  res.headers.set("Content-Length", String(length));
  return new Response(null, { status: res.status, headers: res.headers });
}

function _allowHeader(methods: Set<string>): string {
  const all = new Set(methods);
  if (all.has("GET")) all.add("HEAD");
  all.add("OPTIONS");
  return [...all].join(", ");
}
