/**
 * @module
 * Reading request bodies: bounded in size and time, never content-encoded, strict UTF-8,
 * strict forms, JSON.
 */

import { HttpError } from "./errors.ts";

interface ReadBodyOptions {
  /** Largest accepted body in bytes; more gives 413. */
  maxBytes: number;
  /** Give up with 408 when the whole body has not arrived in this many ms. */
  timeoutMs?: number;
}

/**
 * The refusal of a request that names a `Content-Encoding`. The service decodes no request
 * body: a compressed one would otherwise be read as text and refused as "not valid UTF-8",
 * which does not say what to change. Any value is refused, `identity` included: RFC 9110
 * §8.4.1 makes it no content coding (IANA registers it only as Accept-Encoding's word for "no
 * encoding"), so the header is checked for presence and never parsed. RFC 9110 §12.5.3: a 415
 * for a content coding names the codings accepted in `Accept-Encoding`; `identity` alone says
 * none is (a 415 for the media type does not carry it).
 */
export function encodedBodyRefused(): HttpError {
  return new HttpError(
    415,
    "unsupported_encoding",
    "request bodies are not accepted with a Content-Encoding: send the body uncompressed, " +
      "without that header",
    { headers: { "Accept-Encoding": "identity" } },
  );
}

/**
 * Reads a request body while counting bytes, so a chunked body with no
 * `Content-Length` is cut off as soon as it passes the limit. A declared
 * `Content-Length` over the limit is refused before anything is read, and so is a body
 * with a `Content-Encoding` ({@linkcode encodedBodyRefused}): every route that reads a
 * body reads it here.
 */
export async function readBody(
  req: Request,
  options: ReadBodyOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const { maxBytes, timeoutMs = 10_000 } = options;
  if (req.headers.has("content-encoding")) throw encodedBodyRefused();
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
