/**
 * @module
 * JSON responses, the headers of every response that carries a credential, and the
 * `Cache-Control` any other answer of the OAuth endpoints or the staff console is given.
 */

import { TextResponse } from "./compression.ts";
import { PATHS, STAFF_PATHS } from "./paths.ts";

/** The `Cache-Control` of each kind of answer (RFC 9111 §5.2.2). */
export const CACHE_CONTROL = Object.freeze({
  /** Answers about one request or one moment: submissions, estimates, statuses, health. */
  noStore: "no-store",
  /**
   * Answers that carry a credential, a form token or a session's value (the OAuth endpoints,
   * the staff console): never kept, and never compressed on the way (`no-transform`, RFC 9111
   * §5.2.2.6), by this service, by Deno's automatic compression or by Deno Deploy's. A
   * compressed length beside text a caller chose would tell the secret a guess at a time
   * (BREACH). Deno honours the directive only in small letters, as written here.
   */
  secret: "no-store, no-transform",
  /** The staff console's pages: as `secret`, and the member's alone. */
  staffPage: "no-store, private, no-transform",
  /** Protected reads: the caller's alone, and never kept. */
  private: "private, no-store",
  /** Documents and public reads, which change only with a deploy: five minutes. */
  public: "public, max-age=300",
  /** The tool descriptor, which agents re-read: a minute. */
  short: "public, max-age=60",
});

/**
 * Headers for every response that carries a credential or an OAuth error (RFC 6749 §5.1),
 * never compressed ({@linkcode CACHE_CONTROL}`.secret`).
 */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({
  "Cache-Control": CACHE_CONTROL.secret,
  "Pragma": "no-cache",
});

/** Status and headers of a JSON response; a `Content-Type` given here replaces the default. */
interface JsonInit {
  status?: number;
  headers?: Readonly<Record<string, string>>;
}

/** A JSON response of `body`, serialised here (for this answer alone). */
export function json(body: unknown, init: JsonInit = {}): Response {
  return _jsonResponse(JSON.stringify(body), init, false);
}

/**
 * A JSON response of text that is already serialised JSON and served again (the catalog's
 * bodies): a compressing route compresses it once and keeps it (http/compression.ts).
 */
export function jsonText(text: string, init: JsonInit = {}): Response {
  return _jsonResponse(text, init, true);
}

function _jsonResponse(text: string, init: JsonInit, held: boolean): Response {
  return new TextResponse(text, {
    status: init.status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...init.headers },
  }, held);
}

/** The OAuth endpoints, whose answers carry a client secret or a token. */
const _OAUTH = new Set<string>([PATHS.identity, PATHS.token, PATHS.revoke]);

/**
 * An answer of the OAuth endpoints or under `/staff/` that says nothing of caching gets
 * `no-store, no-transform`: the router's 404, 405 and OPTIONS there, and a ceremony's refusal,
 * are their answers too, kept by no cache and compressed by nothing (the console's public
 * assets, the same for everyone, say otherwise).
 */
export function secretNoStore({ headers }: Response, path: string): void {
  const staff = path.startsWith(STAFF_PATHS.prefix) || `${path}/` === STAFF_PATHS.prefix;
  if ((staff || _OAUTH.has(path)) && !headers.has("cache-control")) {
    headers.set("Cache-Control", CACHE_CONTROL.secret);
  }
}
