/**
 * @module
 * The one error type, JSON responses, bounded body reading and strict form parsing.
 */

/** One problem with one input field, as listed in `issues` of an error body. */
export interface FieldIssue {
  path: string;
  message: string;
}

export interface HttpErrorOptions {
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
    this.issues = options.issues;
  }
}

/** How a route renders errors: OAuth `{error, error_description}` or API `{ok: false, …}`. */
export type ErrorStyle = "oauth" | "api";

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

/**
 * RFC 6749 §5.2: `error_description` may only hold %x20-21 / %x23-5B / %x5D-7E. Input
 * echoed in a description (a scope name, a parameter name) is folded into that set.
 */
export function oauthText(text: string): string {
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

export interface ReadBodyOptions {
  /** Largest accepted body in bytes; more gives 413. */
  maxBytes: number;
  /** Give up with 408 when the whole body has not arrived in this many ms. */
  timeoutMs?: number;
}

/**
 * Reads a request body while counting bytes, so a chunked body with no
 * `Content-Length` is cut off as soon as it passes the limit. A declared
 * `Content-Length` over the limit is refused before anything is read.
 */
export async function readBody(
  req: Request,
  options: ReadBodyOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const { maxBytes, timeoutMs = 10_000 } = options;
  const tooLarge = () =>
    new HttpError(413, "payload_too_large", `request body exceeds ${maxBytes} bytes`);
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  if (!req.body) return new Uint8Array();

  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HttpError(408, "request_timeout", "request body not received in time")),
      timeoutMs,
    );
  });
  try {
    while (true) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, "invalid_request", "request body could not be read");
  } finally {
    clearTimeout(timer);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const _utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8 strictly; invalid bytes are a client error, not a replacement character. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return _utf8.decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_request", "request body is not valid UTF-8");
  }
}

/** The media type of a request, lower-cased and without parameters ("" when absent). */
export function mediaType(req: Request): string {
  return (req.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

/** Form-url-decodes one component: `+` is a space, then percent-decoding (WHATWG urlencoded). */
export function formDecode(component: string): string {
  return decodeURIComponent(component.replaceAll("+", " "));
}

/**
 * Parses an `application/x-www-form-urlencoded` body strictly: a repeated
 * parameter is an error (RFC 6749 §3.1) unless listed in `repeatable`, so is a
 * malformed escape, and a parameter sent without a value is treated as omitted
 * (RFC 6749 §3.1).
 */
export function parseForm(
  bytes: Uint8Array,
  repeatable: readonly string[] = [],
): URLSearchParams {
  const params = new URLSearchParams();
  const seen = new Set<string>();
  for (const pair of decodeUtf8(bytes).split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    let name: string;
    let value: string;
    try {
      name = formDecode(eq === -1 ? pair : pair.slice(0, eq));
      value = eq === -1 ? "" : formDecode(pair.slice(eq + 1));
    } catch {
      throw new HttpError(400, "invalid_request", "request body has a malformed percent-escape");
    }
    if (seen.has(name) && !repeatable.includes(name)) {
      throw new HttpError(400, "invalid_request", `parameter "${name}" is repeated`);
    }
    seen.add(name);
    if (value !== "") params.append(name, value);
  }
  return params;
}

/** Parses a JSON body; the result is `unknown` and must go through a schema. */
export function parseJson(bytes: Uint8Array): unknown {
  const text = decodeUtf8(bytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_json", "request body is not valid JSON");
  }
}
