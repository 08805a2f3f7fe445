/**
 * @module
 * Documents that never change while the process runs (the OpenAPI document, the tool
 * descriptor, llms.txt, the home page and its files, the console's files): identity, gzip or
 * Brotli as the request accepts (http/compression.ts), each variant with its own strong
 * `ETag`, and `If-None-Match` answered `304`.
 *
 * Each encoding is made once, at high effort. {@linkcode prepareDocuments} makes them all
 * after the server listens, one document a turn of the event loop, so requests are served
 * between them and none waits for a compression it did not ask for; a request that comes
 * first makes the one it needs, the same bytes. Brotli quality 10, not 11: measured on these
 * documents, 11 is 2 % smaller and 2.6 times the work (the OpenAPI document: 89 ms against
 * 34; all of them: 249 ms against 95; docs/performance.md, "What compression costs").
 */

import { createHash } from "node:crypto";
import type { Logger } from "./log.ts";
import type { ListBound } from "./header_list.ts";
import { listEntries } from "./header_list.ts";
import {
  chooseCoding,
  type Coding,
  encode,
  MIN_COMPRESSED_BYTES,
  varyOnEncoding,
} from "./compression.ts";

/** How much of `If-None-Match` is read: a tag here is about 30 characters, one per variant. */
export const IF_NONE_MATCH_READ: ListBound = { entries: 8, chars: 512 };

/** A document's GET handler, which can also make its encodings before any request needs them. */
export interface StaticDocument {
  (req: Request): Response;
  /** Builds the body and makes every encoding not made yet; how many it made. */
  prepare(): number;
}

/**
 * A GET handler for a document that never changes while the process runs: identity,
 * gzip or Brotli as the request accepts, each with its own strong `ETag`, and `304` for an
 * `If-None-Match` that names the variant it would send. `body` may be a function: it is
 * then called when first needed (a document that is costly to build). A body under
 * {@linkcode MIN_COMPRESSED_BYTES} is always sent as identity.
 */
export function staticDocument(
  body: string | (() => string),
  headers: Readonly<Record<string, string>>,
): StaticDocument {
  let document: _Variants | undefined;
  const variants = () => document ??= new _Variants(typeof body === "string" ? body : body());
  return Object.assign((req: Request) => variants().answer(req, headers), {
    prepare: () => variants().prepare(),
  });
}

/** Whether a route's handler is a {@linkcode StaticDocument}. */
export function isStaticDocument(handler: unknown): handler is StaticDocument {
  return typeof handler === "function" && "prepare" in handler;
}

/**
 * Makes every encoding of `documents`, one document a turn of the event loop (a macrotask),
 * so requests that arrive meanwhile are served between them; logs how many and how long.
 * Resolves with the number made.
 */
export async function prepareDocuments(
  documents: readonly StaticDocument[],
  log: Logger,
): Promise<number> {
  const started = performance.now();
  let encodings = 0;
  for (const document of documents) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    encodings += document.prepare();
  }
  const ms = Math.round(performance.now() - started);
  log({ level: "info", msg: "documents compressed", documents: documents.length, encodings, ms });
  return encodings;
}

/** The codings a document is sent in besides identity. */
const _CODINGS: readonly Coding[] = ["gzip", "br"];

/** One body and its encodings, each made once; a tag per variant. */
class _Variants {
  readonly #identity: Uint8Array<ArrayBuffer>;
  readonly #hash: string;
  readonly #encoded = new Map<Coding, Uint8Array<ArrayBuffer>>();

  constructor(body: string) {
    this.#identity = new TextEncoder().encode(body);
    this.#hash = createHash("sha256").update(this.#identity).digest("base64url").slice(0, 22);
  }

  get #big(): boolean {
    return this.#identity.byteLength >= MIN_COMPRESSED_BYTES;
  }

  prepare(): number {
    const missing = this.#big ? _CODINGS.filter((c) => !this.#encoded.has(c)) : [];
    for (const coding of missing) this.#bytes(coding);
    return missing.length;
  }

  answer(req: Request, fixed: Readonly<Record<string, string>>): Response {
    const coding = this.#big ? chooseCoding(req.headers.get("accept-encoding")) : undefined;
    const etag = `"${this.#hash}${coding ? `-${coding}` : ""}"`;
    const headers = new Headers(fixed);
    headers.set("ETag", etag);
    varyOnEncoding(headers);
    if (_notModified(req.headers.get("if-none-match"), etag)) {
      headers.delete("Content-Type");
      return new Response(null, { status: 304, headers });
    }
    if (!coding) return new Response(this.#identity, { headers });
    headers.set("Content-Encoding", coding);
    return new Response(this.#bytes(coding), { headers });
  }

  #bytes(coding: Coding): Uint8Array<ArrayBuffer> {
    let bytes = this.#encoded.get(coding);
    if (!bytes) this.#encoded.set(coding, bytes = encode(this.#identity, coding, true));
    return bytes;
  }
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
