/**
 * @module
 * The one error type and its rendering in the OAuth and the API style.
 */

import { json, NO_STORE } from "./json.ts";

/** One problem with one input field, as listed in `issues` of an error body. */
export interface FieldIssue {
  path: string;
  message: string;
  /**
   * Only on an argument or property the endpoint does not take: the field it probably
   * means, or null (intake/argument_names.ts).
   */
  did_you_mean?: string | null;
}

interface HttpErrorOptions {
  /** Extra response headers, e.g. `WWW-Authenticate` or `Retry-After`. */
  headers?: HeadersInit;
  /** Per-field problems of a validation failure. */
  issues?: FieldIssue[];
}

/**
 * The one error type of the service. `code` is the machine-readable error string
 * (an RFC 6749 code on OAuth routes); the route's error style decides the body layout.
 */
export class HttpError extends Error {
  override name = "HttpError";
  readonly headers: Headers;
  readonly issues: FieldIssue[] | undefined;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.headers = new Headers(options.headers);
    // Bounded whatever the caller sent: 6,500 unknown keys are 6,500 problems, and an
    // answer listing them all (with each key echoed) was many times the size of the request.
    this.issues = options.issues?.slice(0, MAX_ISSUES).map((i) => ({
      path: clip(i.path, 80),
      message: clip(i.message, 400),
      ...(i.did_you_mean === undefined ? {} : { did_you_mean: i.did_you_mean }),
    }));
  }
}

/** Most issues an error body lists; its message says how many there were in all. */
export const MAX_ISSUES = 20;

/** `text` cut to `max` characters, with an ellipsis when cut: caller text echoed back. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** How a route renders errors: OAuth `{error, error_description}` or API `{ok: false, …}`. */
export type ErrorStyle = "oauth" | "api";

/**
 * RFC 6749 §5.2: `error_description` may only hold %x20-21 / %x23-5B / %x5D-7E. Input
 * echoed in a description (a scope name, a parameter name) is folded into that set.
 */
function oauthText(text: string): string {
  return text.replaceAll('"', "'").replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "?");
}

/**
 * The log fields of an unexpected failure (a REST 500, a failed MCP tool call). They
 * go to the log only; the caller gets a generic `internal_error`.
 */
export function unexpectedErrorFields(err: unknown): { error: string; stack?: string } {
  return err instanceof Error
    ? { error: `${err.name}: ${err.message}`, stack: err.stack }
    : { error: "non-error thrown" };
}

/** Renders an {@linkcode HttpError} in the given style. */
export function errorResponse(err: HttpError, style: ErrorStyle): Response {
  const headers = new Headers(err.headers);
  let body: Record<string, unknown>;
  if (style === "oauth") {
    for (const [k, v] of Object.entries(NO_STORE)) headers.set(k, v);
    body = { error: err.code, error_description: oauthText(err.message) };
  } else {
    body = { ok: false, error: err.code, message: err.message };
    if (err.issues) body.issues = err.issues;
  }
  return json(body, { status: err.status, headers: Object.fromEntries(headers) });
}

/**
 * The last resort for an error nothing mapped: a bare 500 that carries no internals. The
 * caller logs the error; it is never echoed.
 */
export function internalError(): Response {
  return errorResponse(new HttpError(500, "internal_error", "internal error"), "api");
}
