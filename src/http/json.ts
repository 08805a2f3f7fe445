/**
 * @module
 * JSON responses, and the headers of every response that carries a credential.
 */

/** Headers for every response that carries a credential or an OAuth error (RFC 6749 §5.1). */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({
  "Cache-Control": "no-store",
  "Pragma": "no-cache",
});

/** Status and headers of a JSON response; a `Content-Type` given here replaces the default. */
export interface JsonInit {
  status?: number;
  headers?: Readonly<Record<string, string>>;
}

/** A JSON response of `body`, serialised here. */
export function json(body: unknown, init: JsonInit = {}): Response {
  return jsonText(JSON.stringify(body), init);
}

/** A JSON response of text that is already serialised JSON (catalog bodies, metadata). */
export function jsonText(text: string, init: JsonInit = {}): Response {
  return new Response(text, {
    status: init.status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...init.headers },
  });
}
