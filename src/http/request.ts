/**
 * @module
 * What the service reads of every request before routing it: its path, refused when the
 * Host header is not a host, and its request id, kept from the caller only when it cannot
 * carry a credential or personal data.
 */

/**
 * A Host header: a name (underscores and a trailing dot allowed, as container names and
 * fully qualified names have them) or an IPv4 address, or an IPv6 literal, with an
 * optional port. Nothing that a URL parser reads as a path, query, fragment or userinfo.
 */
const _HOST = /^(?:[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The request's path, or undefined when its Host header is not a host or the URL is not
 * one. Deno builds `req.url` from the Host header and the request target: a Host that is
 * not a host (`x|y`, or `a\api\v1\intake?`, which moves the real target into the query and
 * picks another route) is refused before anything reads the URL.
 */
export function requestPath(req: Request): string | undefined {
  const host = req.headers.get("host");
  if (host !== null && !_HOST.test(host)) return undefined;
  // Parsed without its query: the path is the same, and a 60 KB query costs nothing here.
  const url = req.url;
  const query = url.indexOf("?");
  try {
    return new URL(query < 0 ? url : url.slice(0, query)).pathname;
  } catch {
    return undefined;
  }
}

/**
 * An incoming `X-Request-Id` is kept (echoed and logged) only when it is a UUID (with or
 * without dashes, as nginx's `$request_id` writes it) or a ULID. Free text could carry
 * anything, such as `agt_…:dcfs_cs_…` pasted from a Basic header; these shapes cannot
 * hold one of our credentials or personal data.
 */
const _REQUEST_ID =
  /^(?:[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}|[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25})$/;

/** The request id: the caller's `X-Request-Id` in one of the kept shapes, else a new UUID. */
export function requestIdOf(req: Request): string {
  const incoming = req.headers.get("x-request-id");
  return incoming && _REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}
