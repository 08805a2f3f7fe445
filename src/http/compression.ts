/**
 * @module
 * Compressed answers (RFC 9110 §8.4, §12.5.3): gzip or Brotli when the request's
 * `Accept-Encoding` takes one, identity otherwise, at a cost chosen by measurement
 * (docs/performance.md, "What compression costs"):
 *
 * - A body made once and served many times (a static document, http/static_document.ts; a
 *   text the handler holds, {@linkcode heldText}: the catalog) is compressed once, at high
 *   effort (gzip 9, Brotli 10), from {@linkcode MIN_COMPRESSED_BYTES} up, and kept: the
 *   documents in their handler, the held texts in their route's cache, bounded in bytes
 *   ({@linkcode HELD_BYTES}).
 * - Any other answer ({@linkcode dynamicCompression}) is compressed afresh, so only where it
 *   pays: from {@linkcode ANSWER_MIN_BYTES} up (every coverage, estimate and status answer is
 *   smaller, and goes out as it is), at low effort (gzip 4, Brotli 4), gzip on a tie: in Deno a
 *   Brotli compression leaves some 10 KiB of native memory until a major GC, gzip some 2.
 *
 * Every answer of a compressible route says `Vary: Accept-Encoding`, compressed or not.
 * An answer that already has a `Content-Encoding`, or says `no-transform` (every answer that
 * carries a secret, http/json.ts), is left as it is. Deno's own automatic compression (off by
 * default since Deno 2.9, on in 2.5.0) skips answers with a `Content-Encoding` or
 * `no-transform`, so nothing is compressed twice and no secret is compressed at all.
 */

import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { type ListBound, listEntries } from "./header_list.ts";

/** The content codings this service sends besides identity. */
export type Coding = "br" | "gzip";

/** Below this many bytes a body made once is sent as it is: compressing saves too little. */
export const MIN_COMPRESSED_BYTES = 1024;

/**
 * Below this many bytes an answer compressed afresh is sent as it is: with its headers it fits
 * the first flight of a connection (RFC 6928: 10 segments, some 14 KB), so compressing would
 * save bytes, not a round trip, for 0.1 ms of CPU and a few KiB of memory per answer.
 */
export const ANSWER_MIN_BYTES = 8 * 1024;

/** Per route, the held texts kept compressed: their characters and encodings, in bytes. */
const HELD_BYTES = 256 * 1024;

/** Types worth compressing: text, JSON (`+json` too), JavaScript, SVG. Not event streams. */
const _COMPRESSIBLE =
  /^(?:text\/(?!event-stream)|application\/(?:[\w.-]+\+)?json|text\/javascript|image\/svg\+xml)/i;

/** Statuses without a body to compress (and 206, whose range is of the identity body). */
const _NO_BODY = new Set([204, 206, 304]);

/**
 * How much of `Accept-Encoding` is read: a browser sends four entries in some 25 characters
 * (`gzip, deflate, br, zstd`). A coding named only past this is not seen.
 */
export const ACCEPT_ENCODING_READ: ListBound = { entries: 8, chars: 256 };

/**
 * The coding to send for an `Accept-Encoding`: the accepted one with the highest quality,
 * `prefer` on a tie; `undefined` for identity (no header, `identity`, or `q=0` for both).
 * `*` stands for any coding the header does not name; `x-gzip` is gzip (RFC 9110 §8.4.1.3),
 * and never undoes a `gzip;q=0`. A `q` that is no qvalue (`q=0.0001`, `q=-0`) refuses its
 * coding. Only the first entries are read ({@linkcode ACCEPT_ENCODING_READ}), so a 58 KB
 * header costs what a short one does; in a header cut there, `*` is not honoured, since a
 * refusal past the cut (`*, …, br;q=0`) would go unseen.
 */
export function chooseCoding(
  acceptEncoding: string | null,
  prefer: Coding = "br",
): Coding | undefined {
  const quality = new Map<string, number>();
  const entries = listEntries(acceptEncoding, ",", ACCEPT_ENCODING_READ);
  for (const part of entries) {
    const [name = "", ...params] = part.split(";");
    const lower = name.trim().toLowerCase();
    const coding = lower === "x-gzip" ? "gzip" : lower;
    if (coding === "" || quality.has(coding)) continue;
    const q = params.find((p) => /^\s*q\s*=/i.test(p));
    quality.set(coding, q === undefined ? 1 : _qvalue(q));
  }
  const cut = (acceptEncoding?.length ?? 0) > ACCEPT_ENCODING_READ.chars ||
    entries.length === ACCEPT_ENCODING_READ.entries;
  const any = cut ? 0 : quality.get("*");
  const of = (c: Coding) => quality.get(c) ?? any ?? 0;
  const br = of("br");
  const gzip = of("gzip");
  if (br <= 0 && gzip <= 0) return undefined;
  if (br === gzip) return prefer;
  return br > gzip ? "br" : "gzip";
}

/** A `q=` parameter's weight (RFC 9110 §12.4.2), 0 when it is not a qvalue. */
function _qvalue(param: string): number {
  const value = /^\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/i.exec(param)?.[1];
  return value === undefined ? 0 : Number(value);
}

/**
 * `bytes` in `coding`: at high effort for a body made once (`once`), at low effort for an
 * answer compressed afresh.
 */
export function encode(
  bytes: Uint8Array<ArrayBuffer>,
  coding: Coding,
  once: boolean,
): Uint8Array<ArrayBuffer> {
  const out = coding === "gzip"
    ? gzipSync(bytes, { level: once ? 9 : 4 })
    : brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: once ? 10 : 4,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    });
  return out as Uint8Array<ArrayBuffer>;
}

/**
 * A response whose body is text the handler already holds (http/json.ts `jsonText`), so
 * {@linkcode dynamicCompression} can key its cache by that text without reading the body.
 * `held`: the same text is served again (the catalog), so it is compressed once and kept.
 */
export class TextResponse extends Response {
  constructor(readonly bodyText: string, init: ResponseInit, readonly held = false) {
    super(bodyText, init);
  }
}

/**
 * The compression step of one route (the router runs it on every answer of a route that
 * has it): `Vary: Accept-Encoding` always, and the body compressed when the request takes
 * gzip or Brotli, the type is textual and the body is large enough: a held text from
 * {@linkcode MIN_COMPRESSED_BYTES}, compressed once into this route's cache; any other body
 * from {@linkcode ANSWER_MIN_BYTES}, compressed for this answer alone.
 */
export function dynamicCompression(): (
  req: Request,
  res: Response,
) => Response | Promise<Response> {
  const held = heldTexts(HELD_BYTES);
  return (req, res) => {
    varyOnEncoding(res.headers);
    if (!_worthCompressing(res)) return res;
    const accepted = req.headers.get("accept-encoding");
    if (res instanceof TextResponse && res.held) {
      const coding = chooseCoding(accepted);
      if (!coding || res.bodyText.length < MIN_COMPRESSED_BYTES) return res;
      return _encoded(res, held(res.bodyText, coding), coding);
    }
    const coding = chooseCoding(accepted, "gzip");
    if (!coding) return res;
    if (res instanceof TextResponse && res.bodyText.length < ANSWER_MIN_BYTES / 3) return res;
    return res.bytes().then((body) =>
      body.byteLength < ANSWER_MIN_BYTES
        ? new Response(body, res)
        : _encoded(res, encode(body, coding, false), coding)
    );
  };
}

/**
 * A cache of held texts and their encodings, made once each: at most `bound` bytes (a text's
 * characters and its encodings); past it the oldest texts are dropped. A text larger than
 * the bound alone is encoded each time and not kept.
 */
export function heldTexts(bound: number): (text: string, coding: Coding) => Uint8Array {
  const cache = new Map<string, Map<Coding, Uint8Array<ArrayBuffer>>>();
  let size = 0;
  const bytesOf = (text: string, variants: Map<Coding, Uint8Array>) =>
    text.length + [...variants.values()].reduce((n, b) => n + b.byteLength, 0);
  return (text, coding) => {
    const variants = cache.get(text) ?? new Map<Coding, Uint8Array<ArrayBuffer>>();
    let bytes = variants.get(coding);
    if (bytes) return bytes;
    bytes = encode(new TextEncoder().encode(text), coding, true);
    if (cache.has(text)) size -= bytesOf(text, variants);
    cache.delete(text);
    variants.set(coding, bytes);
    const added = bytesOf(text, variants);
    if (added > bound) return bytes;
    for (const [old, oldVariants] of cache) {
      if (size + added <= bound) break;
      size -= bytesOf(old, oldVariants);
      cache.delete(old);
    }
    cache.set(text, variants);
    size += added;
    return bytes;
  };
}

/**
 * Whether an answer may be compressed. Its `body` is not looked at: reading that getter
 * turns a text body into a stream, whose length Deno then no longer knows (chunked).
 */
function _worthCompressing(res: Response): boolean {
  return !_NO_BODY.has(res.status) &&
    !res.headers.has("content-encoding") &&
    _COMPRESSIBLE.test(res.headers.get("content-type") ?? "") &&
    !/\bno-transform\b/i.test(res.headers.get("cache-control") ?? "");
}

function _encoded(res: Response, bytes: Uint8Array, coding: Coding): Response {
  const headers = new Headers(res.headers);
  headers.set("Content-Encoding", coding);
  headers.delete("Content-Length");
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    status: res.status,
    statusText: res.statusText,
    headers,
  });
}

/** Adds `Accept-Encoding` to `Vary` unless it is there already. */
export function varyOnEncoding(headers: Headers): void {
  const vary = headers.get("vary");
  if (vary && /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) return;
  headers.append("Vary", "Accept-Encoding");
}
