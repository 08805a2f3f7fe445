/**
 * @module
 * The one line logged for every request, and the labels its span and metrics carry. Only
 * what the service defines is logged, never what the caller typed: a method outside
 * HTTP's, or a path that matches no route, could hold a name or a number.
 */

import type { Logger } from "./log.ts";
import type { RouteMatch } from "./router.ts";

/** The HTTP methods (RFC 9110 §9, RFC 5789) logged by name; any other is "(other)". */
const _METHODS = new Set([
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

/** A request as logged: its method, and the path of the route that served it. */
interface RequestLabels {
  method: string;
  route: string;
}

/**
 * The labels of a request: its method, or "(other)"; a fixed route's path, a route with
 * parameters by its pattern (`/assets/:name`, whatever name was asked for), "(no route)",
 * or "(invalid url)" for a Host that is not a host (`path` undefined).
 */
export function requestLabels<C>(
  method: string,
  path: string | undefined,
  matched: RouteMatch<C> | undefined,
): RequestLabels {
  let route: string;
  if (path === undefined) route = "(invalid url)";
  else if (!matched) route = "(no route)";
  else route = Object.keys(matched.params).length ? matched.group.pattern.pathname : path;
  return { method: _METHODS.has(method) ? method : "(other)", route };
}

/** Logs the line of one answered request: method, path, status, ms and request id. */
export function logRequest(
  log: Logger,
  labels: RequestLabels,
  status: number,
  ms: number,
  requestId: string,
): void {
  log({
    level: "info",
    method: labels.method,
    path: labels.route,
    status,
    ms: Math.round(ms * 10) / 10,
    request_id: requestId,
  });
}
