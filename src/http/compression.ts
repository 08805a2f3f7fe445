/**
 * @module
 * Compressed answers (RFC 9110 §8.4, §12.5.3): gzip or Brotli when the request's
 * `Accept-Encoding` takes one, identity otherwise. Two kinds:
 *
 * - {@linkcode staticDocument}: a body that never changes while the process runs (the
 *   OpenAPI document, the tool descriptor, llms.txt, the home page's files). Each encoding
 *   is made once, at the highest effort, on the first request that asks for it; every
 *   variant has its own strong `ETag`, and `If-None-Match` answers `304`.
 * - {@linkcode dynamicCompression}: any other answer of a route, compressed when its body is
 *   at least {@linkcode MIN_COMPRESSED_BYTES} and of a textual type. A body the handler gave
 *   as text ({@linkcode TextResponse}, such as the catalog reads) is compressed once and kept
 *   in a small cache keyed by that text; any other is compressed for each request.
 *
 * Every answer of a compressible route says `Vary: Accept-Encoding`, compressed or not.
 * An answer that already has a `Content-Encoding`, or says `no-transform`, is left as it is.
 * Deno's own automatic compression (`automaticCompression`, off by default since Deno 2.9)
 * skips answers with a `Content-Encoding`, so nothing is compressed twice.
 */

import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { type ListBound, listEntries } from "./header_list.ts";

/** The content codings this service sends besides identity, in its order of preference. */
type Coding = "br" | "gzip";

/** Below this many bytes a body is sent as it is: compressing it saves less than it costs. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Types worth compressing: text, JSON (`+json` too), JavaScript, SVG. Not event streams. */
const _COMPRESSIBLE =
  /^(?:text\/(?!event-stream)|application\/(?:[\w.-]+\+)?json|text\/javascript|image\/svg\+xml)/i;

/** Statuses without a body to compress (and 206, whose range is of the identity body). */
const _NO_BODY = new Set([204, 206, 304]);

/** Dynamic answers kept compressed, by their text: entries, and the largest body kept. */
const _CACHE_ENTRIES = 32;
const _CACHE_MAX_BODY = 64 * 1024;

/**
 * How much of `Accept-Encoding` is read: a browser sends four entries in some 25 characters
 * (`gzip, deflate, br, zstd`). A coding named only past this is not seen.
 */
export const ACCEPT_ENCODING_READ: ListBound = { entries: 8, chars: 256 };

/** How much of `If-None-Match` is read: a tag here is about 30 characters, one per variant. */
export const IF_NONE_MATCH_READ: ListBound = { entries: 8, chars: 512 };

/**
 * The coding to send for an `Accept-Encoding`: the accepted one with the highest quality,
 * Brotli on a tie; `undefined` for identity (no header, `identity`, or `q=0` for both).
 * `*` stands for any coding the header does not name; `x-gzip` is gzip (RFC 9110 §8.4.1.3).
 * Only the first entries are read ({@linkcode ACCEPT_ENCODING_READ}); the rest are as if
 * absent, so a 58 KB header costs what a short one does.
 */
export function chooseCoding(acceptEncoding: string | null): Coding | undefined {
  const quality = new Map<string, number>();
  for (const part of listEntries(acceptEncoding, ",", ACCEPT_ENCODING_READ)) {
    const [name = "", ...params] = part.split(";");
    const coding = name.trim().toLowerCase();
    if (coding === "" || quality.has(coding)) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1])
      .find((v) => v !== undefined);
    quality.set(coding === "x-gzip" ? "gzip" : coding, q === undefined ? 1 : Number(q));
  }
  const of = (c: Coding) => quality.get(c) ?? quality.get("*") ?? 0;
  const br = of("br");
  const gzip = of("gzip");
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? "br" : "gzip";
}

/** `bytes` in `coding`: at the highest effort for a document made once, a quick one otherwise. */
function _encode(
  bytes: Uint8Array<ArrayBuffer>,
  coding: Coding,
  once: boolean,
): Uint8Array<ArrayBuffer> {
  const out = coding === "gzip"
    ? gzipSync(bytes, { level: once ? 9 : 6 })
    : brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: once ? constants.BROTLI_MAX_QUALITY : 5,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    });
  return out as Uint8Array<ArrayBuffer>;
}

/**
 * Whether `If-None-Match` names `etag` or is `*` (weak comparison, RFC 9110 §13.1.2). Only
 * its first tags are read ({@linkcode IF_NONE_MATCH_READ}): a tag past them is not seen, and
 * the whole answer is sent, which is always correct.
 */
function _notModified(ifNoneMatch: string | null, etag: string): boolean {
  return listEntries(ifNoneMatch, ",", IF_NONE_MATCH_READ).some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === etag;
  });
}

/**
 * A GET handler for a document that never changes while the process runs: identity,
 * gzip or Brotli as the request accepts, each with its own strong `ETag`, and `304` for an
 * `If-None-Match` that names the variant it would send. `body` may be a function: it is
 * then called at the first request (a document that is costly to build). A body under
 * {@linkcode MIN_COMPRESSED_BYTES} is always sent as identity.
 */
export function staticDocument(
  body: string | (() => string),
  headers: Readonly<Record<string, string>>,
): (req: Request) => Response {
  let document: _Variants | undefined;
  return (req) => {
    document ??= new _Variants(typeof body === "string" ? body : body());
    return document.answer(req, headers);
  };
}

/** One body and its encodings, each made once; a tag per variant. */
class _Variants {
  readonly #identity: Uint8Array<ArrayBuffer>;
  readonly #hash: string;
  readonly #encoded = new Map<Coding, Uint8Array<ArrayBuffer>>();

  constructor(body: string) {
    this.#identity = new TextEncoder().encode(body);
    this.#hash = createHash("sha256").update(this.#identity).digest("base64url").slice(0, 22);
  }

  answer(req: Request, fixed: Readonly<Record<string, string>>): Response {
    const big = this.#identity.byteLength >= MIN_COMPRESSED_BYTES;
    const coding = big ? chooseCoding(req.headers.get("accept-encoding")) : undefined;
    const etag = `"${this.#hash}${coding ? `-${coding}` : ""}"`;
    const headers = new Headers(fixed);
    headers.set("ETag", etag);
    _varyOnEncoding(headers);
    if (_notModified(req.headers.get("if-none-match"), etag)) {
      headers.delete("Content-Type");
      return new Response(null, { status: 304, headers });
    }
    if (!coding) return new Response(this.#identity, { headers });
    let bytes = this.#encoded.get(coding);
    if (!bytes) this.#encoded.set(coding, bytes = _encode(this.#identity, coding, true));
    headers.set("Content-Encoding", coding);
    return new Response(bytes, { headers });
  }
}

/**
 * A response whose body is text the handler already holds (http/json.ts `jsonText`), so
 * {@linkcode dynamicCompression} can key its cache by that text without reading the body.
 */
export class TextResponse extends Response {
  constructor(readonly bodyText: string, init: ResponseInit) {
    super(bodyText, init);
  }
}

/**
 * The compression step of one route (the router runs it on every answer of a route that
 * has it): `Vary: Accept-Encoding` always, and the body compressed when the request takes
 * gzip or Brotli, the type is textual and the body is large enough. The cache is this
 * route's own and bounded ({@linkcode _CACHE_ENTRIES} bodies of at most 64 KiB).
 */
export function dynamicCompression(): (
  req: Request,
  res: Response,
) => Response | Promise<Response> {
  const cache = new Map<string, Map<Coding, Uint8Array<ArrayBuffer>>>();
  const cached = (text: string, coding: Coding): Uint8Array<ArrayBuffer> => {
    let variants = cache.get(text);
    if (variants) cache.delete(text); // re-inserted below: the newest is last
    else variants = new Map();
    let bytes = variants.get(coding);
    if (!bytes) {
      variants.set(coding, bytes = _encode(new TextEncoder().encode(text), coding, false));
    }
    if (text.length <= _CACHE_MAX_BODY) cache.set(text, variants);
    if (cache.size > _CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    return bytes;
  };
  return (req, res) => {
    _varyOnEncoding(res.headers);
    if (!_worthCompressing(res)) return res;
    const coding = chooseCoding(req.headers.get("accept-encoding"));
    if (!coding) return res;
    if (res instanceof TextResponse) {
      if (res.bodyText.length < MIN_COMPRESSED_BYTES) return res;
      return _encoded(res, cached(res.bodyText, coding), coding);
    }
    return res.bytes().then((body) =>
      body.byteLength < MIN_COMPRESSED_BYTES
        ? new Response(body, res)
        : _encoded(res, _encode(body, coding, false), coding)
    );
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

function _encoded(res: Response, bytes: Uint8Array<ArrayBuffer>, coding: Coding): Response {
  const headers = new Headers(res.headers);
  headers.set("Content-Encoding", coding);
  headers.delete("Content-Length");
  return new Response(bytes, { status: res.status, statusText: res.statusText, headers });
}

/** Adds `Accept-Encoding` to `Vary` unless it is there already. */
function _varyOnEncoding(headers: Headers): void {
  const vary = headers.get("vary");
  if (vary && /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) return;
  headers.append("Vary", "Accept-Encoding");
}
