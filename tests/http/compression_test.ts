/**
 * Compressed answers (src/http/compression.ts, src/http/static_document.ts): the choice of
 * coding from `Accept-Encoding`, the static documents (each variant its own ETag, 304, all made
 * before a request needs them), held texts compressed once in a cache bounded in bytes, other
 * answers only from 8 KiB, HEAD, CORS and Cache-Control kept; in-process through the handler,
 * and through a real port, where each answer is decompressed and compared byte for byte with
 * the identity one.
 */

import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  ANSWER_MIN_BYTES,
  chooseCoding,
  heldTexts,
  MIN_COMPRESSED_BYTES,
} from "../../src/http/compression.ts";
import { createApp, listen } from "../_helpers.ts";

/** The large static documents, and large dynamic reads. */
const STATIC = ["/api/v1/openapi.json", "/.well-known/mcp.json", "/", "/assets/styles.css"];
const LARGE_READS = ["/api/v1/services", "/api/v1/locations"];

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "compression", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function decode(bytes: Uint8Array, coding: string | null): Uint8Array {
  if (coding === "gzip") return new Uint8Array(gunzipSync(bytes));
  if (coding === "br") return new Uint8Array(brotliDecompressSync(bytes));
  assert.equal(coding, null);
  return bytes;
}

Deno.test("chooseCoding reads Accept-Encoding as RFC 9110 §12.5.3 says", async (t) => {
  const cases: [string | null, string | undefined][] = [
    [null, undefined],
    ["", undefined],
    ["identity", undefined],
    ["gzip", "gzip"],
    ["x-gzip", "gzip"],
    ["br", "br"],
    ["gzip, br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["gzip;q=0", undefined],
    ["gzip;q=0, br;q=0", undefined],
    ["GZIP;Q=0.8", "gzip"],
    ["*", "br"],
    ["*;q=0", undefined],
    ["br;q=0, *", "gzip"],
    ["deflate, compress", undefined],
    ["gzip;q=1.0, identity; q=0.5, *;q=0", "gzip"],
    // A weight that is no qvalue refuses its coding (identity is always safe to send).
    ["gzip;q=2", undefined],
    ["gzip, br;q=0.0001", "gzip"],
    ["br;q=0.0000, gzip;q=0.5", "gzip"],
    ["br;q=-0, gzip;q=0.1", "gzip"],
    // An alias never undoes a refusal.
    ["gzip;q=0, x-gzip", undefined],
  ];
  for (const [header, expected] of cases) {
    await t.step(`${JSON.stringify(header)} → ${expected ?? "identity"}`, () => {
      assert.equal(chooseCoding(header), expected);
    });
  }
  await t.step(
    "an answer compressed afresh takes gzip on a tie, and what the client prefers",
    () => {
      assert.equal(chooseCoding("gzip, deflate, br, zstd", "gzip"), "gzip");
      assert.equal(chooseCoding("*", "gzip"), "gzip");
      assert.equal(chooseCoding("br", "gzip"), "br");
      assert.equal(chooseCoding("br;q=1, gzip;q=0.5", "gzip"), "br");
    },
  );
});

Deno.test("a static document: each coding decodes to the identity bytes, with its own ETag", async (t) => {
  await using app = await createApp();
  for (const path of STATIC) {
    await t.step(path, async () => {
      const plain = await app.request(path);
      const identity = await plain.bytes();
      assert.ok(identity.byteLength >= MIN_COMPRESSED_BYTES);
      assert.equal(plain.headers.get("content-encoding"), null);
      assert.equal(plain.headers.get("vary"), "Accept-Encoding");
      const tags = new Set([plain.headers.get("etag")]);
      for (const coding of ["gzip", "br"]) {
        const res = await app.request(path, { headers: { "Accept-Encoding": coding } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-encoding"), coding);
        assert.equal(res.headers.get("vary"), "Accept-Encoding");
        assert.equal(res.headers.get("cache-control"), plain.headers.get("cache-control"));
        assert.equal(res.headers.get("content-type"), plain.headers.get("content-type"));
        const body = await res.bytes();
        assert.ok(body.byteLength < identity.byteLength / 2, `${coding}: ${body.byteLength}`);
        assert.deepEqual(decode(body, coding), identity);
        tags.add(res.headers.get("etag"));
      }
      assert.equal(tags.size, 3, "one strong ETag per variant");
      for (const tag of tags) assert.match(tag ?? "", /^"[\w-]+"$/);
    });
  }
});

Deno.test("If-None-Match answers 304 for the variant it names, and 200 for another", async () => {
  await using app = await createApp();
  const path = "/.well-known/mcp.json";
  const gzip = await app.request(path, { headers: { "Accept-Encoding": "gzip" } });
  await gzip.body?.cancel();
  const tag = gzip.headers.get("etag")!;
  const again = await app.request(path, {
    headers: { "Accept-Encoding": "gzip", "If-None-Match": `"other", W/${tag}` },
  });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  assert.equal(again.headers.get("etag"), tag);
  assert.equal(again.headers.get("vary"), "Accept-Encoding");
  assert.equal(again.headers.get("cache-control"), "public, max-age=60");
  assert.equal(again.headers.get("access-control-allow-origin"), "*");
  // The same tag from a client that now takes only identity: a different variant, sent whole.
  const identity = await app.request(path, { headers: { "If-None-Match": tag } });
  assert.equal(identity.status, 200);
  assert.equal(identity.headers.get("content-encoding"), null);
  assert.ok((await identity.bytes()).byteLength > 10_000);
  const star = await app.request(path, { method: "HEAD", headers: { "If-None-Match": "*" } });
  assert.equal(star.status, 304);
  assert.equal(star.headers.get("content-length"), null);
});

Deno.test("a large read is compressed when accepted; a small one and q=0 are not", async (t) => {
  await using app = await createApp();
  for (const path of LARGE_READS) {
    await t.step(path, async () => {
      const identity = await (await app.request(path)).bytes();
      assert.ok(identity.byteLength >= MIN_COMPRESSED_BYTES);
      for (const coding of ["gzip", "br"]) {
        // Twice: the second answer comes from the route's cache, and must be the same.
        for (let i = 0; i < 2; i++) {
          const res = await app.request(path, { headers: { "Accept-Encoding": coding } });
          assert.equal(res.headers.get("content-encoding"), coding);
          assert.equal(res.headers.get("vary"), "Accept-Encoding");
          assert.equal(res.headers.get("cache-control"), "public, max-age=300");
          assert.equal(res.headers.get("access-control-allow-origin"), "*");
          assert.deepEqual(decode(await res.bytes(), coding), identity);
        }
      }
      const refused = await app.request(path, { headers: { "Accept-Encoding": "gzip;q=0" } });
      assert.equal(refused.headers.get("content-encoding"), null);
      assert.equal(refused.headers.get("vary"), "Accept-Encoding");
      assert.deepEqual(await refused.bytes(), identity);
    });
  }
  await t.step("a small answer of the same route is sent as it is, still with Vary", async () => {
    const res = await app.request("/api/v1/locations?city=Oslo", {
      headers: { "Accept-Encoding": "gzip, br" },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), null);
    assert.equal(res.headers.get("vary"), "Accept-Encoding");
    assert.ok((await res.bytes()).byteLength < MIN_COMPRESSED_BYTES);
  });
  await t.step("a document under the threshold is never compressed", async () => {
    const res = await app.request("/.well-known/ai-catalog.json", {
      headers: { "Accept-Encoding": "gzip, br" },
    });
    assert.equal(res.headers.get("content-encoding"), null);
    assert.ok((await res.bytes()).byteLength < MIN_COMPRESSED_BYTES);
  });
});

Deno.test("MCP tools/list is compressed as JSON, and not as an event stream", async () => {
  await using app = await createApp();
  const send = (encoding: string, version = "2026-07-28") =>
    app.request("/api/v1/mcp", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Accept-Encoding": encoding,
        "Mcp-Protocol-Version": version,
        "Mcp-Method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: version === "2026-07-28" ? { _meta: ENVELOPE } : undefined,
      }),
    });
  const plain = await send("identity");
  const identity = await plain.bytes();
  assert.equal(plain.status, 200, new TextDecoder().decode(identity));
  const gzip = await send("gzip");
  assert.equal(gzip.headers.get("content-encoding"), "gzip");
  assert.match(gzip.headers.get("vary") ?? "", /Accept-Encoding/);
  const body = await gzip.bytes();
  assert.ok(body.byteLength < identity.byteLength / 2);
  assert.deepEqual(decode(body, "gzip"), identity);
  // The 2025-11-25 answer is one server-sent event: a stream is never held back to compress.
  const legacy = await send("gzip", "2025-11-25");
  assert.match(legacy.headers.get("content-type") ?? "", /^text\/event-stream/);
  assert.equal(legacy.headers.get("content-encoding"), null);
  assert.match(await legacy.text(), /check_coverage/);
});

Deno.test("over the wire: Content-Length, HEAD and the decoded bytes", async (t) => {
  await using app = await listen();
  const raw = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${app.baseUrl}${path}`, init);
    return { res, bytes: await res.bytes() };
  };
  for (const path of [...STATIC, ...LARGE_READS, "/llms.txt"]) {
    await t.step(path, async () => {
      const plain = await raw(path, { headers: { "Accept-Encoding": "identity" } });
      assert.equal(plain.res.headers.get("content-encoding"), null);
      assert.equal(plain.res.headers.get("content-length"), String(plain.bytes.byteLength));
      for (const coding of ["gzip", "br"]) {
        const headers = { "Accept-Encoding": coding };
        const res = await fetch(`${app.baseUrl}${path}`, { headers });
        assert.equal(res.headers.get("content-encoding"), coding);
        const length = Number(res.headers.get("content-length"));
        assert.ok(length > 0 && length < plain.bytes.byteLength, `${coding}: ${length}`);
        // fetch decodes as it reads: what it hands over must be the identity bytes.
        assert.deepEqual(await res.bytes(), plain.bytes);
        const head = await fetch(`${app.baseUrl}${path}`, { method: "HEAD", headers });
        await head.body?.cancel();
        assert.equal(head.headers.get("content-encoding"), coding);
        assert.equal(head.headers.get("content-length"), String(length));
      }
    });
  }
});

Deno.test("with Deno's own automatic compression on, nothing is compressed twice", async () => {
  await using app = await createApp();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, automaticCompression: true },
    (req, info) => app.handler(req, info),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  for (const path of ["/api/v1/openapi.json", "/api/v1/locations"]) {
    const identity = await (await fetch(url + path, {
      headers: { "Accept-Encoding": "identity" },
    })).bytes();
    const res = await fetch(url + path, { headers: { "Accept-Encoding": "gzip" } });
    assert.equal(res.headers.get("content-encoding"), "gzip");
    // One decoding (fetch's) gives the document: it was encoded once.
    assert.deepEqual(await res.bytes(), identity);
  }
});

Deno.test("an answer compressed afresh is sent as it is under 8 KiB, and gzip on a tie above", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_ESTIMATE: "0" } });
  const browser = { "Accept-Encoding": "gzip, deflate, br, zstd" };
  for (
    const path of [
      "/api/v1/locations?city=Frankfurt",
      "/api/v1/locations?country=US",
      "/api/v1/estimate?city=Zurich&service_type=remote-hands&engineer_count=2",
    ]
  ) {
    await t.step(path, async () => {
      const res = await app.request(path, { headers: browser });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-encoding"), null);
      assert.equal(res.headers.get("vary"), "Accept-Encoding");
      const size = (await res.bytes()).byteLength;
      assert.ok(size >= MIN_COMPRESSED_BYTES && size < ANSWER_MIN_BYTES, `${size}`);
    });
  }
  await t.step("MCP tools/list, 16 KB: gzip, though Brotli is accepted as well", async () => {
    const res = await app.request("/api/v1/mcp", {
      method: "POST",
      headers: {
        ...browser,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Mcp-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: ENVELOPE },
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), "gzip");
    assert.ok(decode(await res.bytes(), "gzip").byteLength >= ANSWER_MIN_BYTES);
  });
  await t.step("the catalog, a held text, still in Brotli from 1 KiB", async () => {
    const res = await app.request("/api/v1/services", { headers: browser });
    assert.equal(res.headers.get("content-encoding"), "br");
    assert.ok(decode(await res.bytes(), "br").byteLength < ANSWER_MIN_BYTES);
  });
});

Deno.test("held texts are compressed once and kept within a bound in bytes, the oldest dropped first", () => {
  const held = heldTexts(16_000);
  const text = (n: number) => JSON.stringify({ n, filler: "catalog ".repeat(600) }); // about 5 KB
  const first = held(text(1), "gzip");
  assert.equal(held(text(1), "gzip"), first, "the same bytes, not made again");
  const br = held(text(1), "br");
  assert.notEqual(br, first);
  held(text(2), "gzip");
  held(text(3), "gzip");
  assert.equal(held(text(1), "gzip"), first, "three texts fit");
  held(text(4), "gzip");
  assert.notEqual(held(text(1), "gzip"), first, "the oldest was dropped for the fourth");
  assert.equal(held(text(4), "gzip"), held(text(4), "gzip"));
  // Larger than the bound alone: made each time, never kept.
  const huge = JSON.stringify({ filler: "x".repeat(30_000) });
  assert.notEqual(held(huge, "gzip"), held(huge, "gzip"));
  assert.equal(held(text(4), "gzip"), held(text(4), "gzip"), "and it evicted nothing");
});

Deno.test("static documents are compressed before the first request needs them", async () => {
  await using app = await createApp();
  // What main.ts starts once the server listens: every encoding of every document.
  const made = await app.handler.prepareDocuments();
  const logged = app.logs.find((l) => l.msg === "documents compressed")!;
  assert.equal(logged.encodings, made);
  assert.ok((logged.documents as number) >= 20);
  // Two encodings of each document of 1 KiB or more, made once: a second pass makes none.
  assert.ok(made >= 20 && made % 2 === 0, `${made}`);
  for (const path of [...STATIC, "/llms.txt", "/staff/assets/staff.css"]) {
    for (const coding of ["gzip", "br"]) {
      const res = await app.request(path, { headers: { "Accept-Encoding": coding } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-encoding"), coding);
      await res.body?.cancel();
    }
  }
  assert.equal(await app.handler.prepareDocuments(), 0);
});
