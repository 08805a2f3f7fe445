/**
 * Oversized and slow request bodies against the real process (`deno task start` on a
 * temporary KV file): a declared oversize body is
 * refused before it is sent, a chunked one is cut off while it streams, and a body
 * that trickles in is cut off by the 10 s read timeout.
 */

import assert from "node:assert/strict";
import { createApp } from "../_helpers.ts";
import { RATE_LIMITS_OFF as NO_LIMITS } from "../_fixtures.ts";
import { startServiceOnTempKv } from "../_service.ts";

const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";
const KiB = 1024;
const MiB = 1024 * KiB;

/** Every endpoint that reads a body, with its content type and its body limit. */
const ENDPOINTS = [
  { path: "/agent/identity", type: JSON_TYPE, limit: 8 * KiB, style: "oauth" },
  { path: "/oauth2/token", type: FORM, limit: 8 * KiB, style: "oauth" },
  { path: "/oauth2/revoke", type: FORM, limit: 8 * KiB, style: "oauth" },
  { path: "/api/v1/intake", type: JSON_TYPE, limit: 64 * KiB, style: "api" },
  { path: "/api/v1/quotes", type: JSON_TYPE, limit: 64 * KiB, style: "api" },
  { path: "/api/v1/mcp", type: JSON_TYPE, limit: 64 * KiB, style: "api" },
] as const;

const utf8 = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** performance.now() when the status line arrived. */
  at: number;
}

function errorCode(res: { body: string }, style: "oauth" | "api"): string {
  const body = JSON.parse(res.body);
  if (style === "api") assert.equal(body.ok, false);
  return body.error;
}

/** Reads one HTTP/1.1 response with a Content-Length body from a raw connection. */
async function readResponse(conn: Deno.Conn): Promise<RawResponse> {
  const buf = new Uint8Array(64 * KiB);
  let raw = new Uint8Array(0);
  let at = 0;
  const append = (n: number) => {
    const next = new Uint8Array(raw.length + n);
    next.set(raw);
    next.set(buf.subarray(0, n), raw.length);
    raw = next;
  };
  let headEnd = -1;
  while (headEnd < 0) {
    const n = await conn.read(buf);
    if (n === null) throw new Error("connection closed before a response");
    at ||= performance.now();
    append(n);
    headEnd = new TextDecoder().decode(raw).indexOf("\r\n\r\n");
  }
  const text = new TextDecoder().decode(raw);
  const [statusLine, ...lines] = text.slice(0, headEnd).split("\r\n");
  const headers = new Map(lines.map((l) => {
    const i = l.indexOf(":");
    return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
  }));
  const length = Number(headers.get("content-length") ?? 0);
  const bodyStart = utf8.encode(text.slice(0, headEnd + 4)).length;
  while (raw.length - bodyStart < length) {
    const n = await conn.read(buf);
    if (n === null) break;
    append(n);
  }
  return {
    status: Number(statusLine!.split(" ")[1]),
    headers,
    body: new TextDecoder().decode(raw.subarray(bodyStart, bodyStart + length)),
    at,
  };
}

function requestHead(
  port: number,
  path: string,
  type: string,
  framing: string,
): Uint8Array {
  return utf8.encode(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${type}\r\n` +
      `Accept: application/json, text/event-stream\r\n${framing}\r\n\r\n`,
  );
}

Deno.test("a declared oversize body (Content-Length: 1 GB) gets 413 before it is sent", async (t) => {
  await using app = await startServiceOnTempKv(NO_LIMITS);
  const port = Number(new URL(app.baseUrl).port);
  for (const ep of ENDPOINTS) {
    await t.step(ep.path, async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        const started = performance.now();
        await conn.write(requestHead(port, ep.path, ep.type, `Content-Length: ${1024 * MiB}`));
        // A few bytes of the gigabyte, then nothing: the answer must not wait for the rest.
        const sent = await conn.write(utf8.encode('{"type":"anon'));
        const res = await readResponse(conn);
        assert.equal(res.status, 413, res.body);
        assert.equal(errorCode(res, ep.style), "payload_too_large");
        assert.ok(sent < 64, `only ${sent} body bytes were sent`);
        assert.ok(res.at - started < 2_000, `answered after ${res.at - started} ms`);
      } finally {
        conn.close();
      }
    });
  }

  await t.step(
    "a declared length just over the limit gets 413 with no body sent at all",
    async () => {
      for (const ep of ENDPOINTS) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        try {
          await conn.write(requestHead(port, ep.path, ep.type, `Content-Length: ${ep.limit + 1}`));
          const res = await readResponse(conn);
          assert.equal(res.status, 413, `${ep.path}: ${res.body}`);
        } finally {
          conn.close();
        }
      }
    },
  );

  await t.step("after the 413 the connection takes no more than the declared length", async () => {
    // The handler never reads the body; Deno's HTTP server then discards what the
    // client still sends, up to the declared length, and closes the connection.
    const declared = 32 * MiB;
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    let accepted = 0;
    try {
      await conn.write(
        requestHead(port, "/api/v1/intake", JSON_TYPE, `Content-Length: ${declared}`),
      );
      const res = await readResponse(conn);
      assert.equal(res.status, 413);
      const chunk = new Uint8Array(64 * KiB).fill(0x20);
      const stop = setTimeout(() => conn.close(), 5_000);
      try {
        while (accepted < 2 * declared) accepted += await conn.write(chunk);
      } catch {
        // Reset or closed by the server: the expected end.
      } finally {
        clearTimeout(stop);
      }
      assert.ok(accepted < declared + 16 * MiB, `the connection accepted ${accepted} bytes`);
    } finally {
      try {
        conn.close();
      } catch { /* already closed */ }
    }
  });
});

Deno.test("a chunked oversize body (a 10 MB stream) gets 413 and the stream is not drained", async (t) => {
  const TOTAL = 10 * MiB;
  const CHUNK = 16 * KiB;

  await t.step(
    "over a real port, paced: answered after about the limit, stream left unread",
    async () => {
      await using app = await startServiceOnTempKv(NO_LIMITS);
      for (const ep of ENDPOINTS) {
        let pulled = 0;
        let answered = false;
        let pulledAtAnswer = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(c) {
            // Paced like a real upload, so socket buffers do not hide how much the server read.
            await sleep(2);
            if (answered || pulled >= TOTAL) return c.close();
            pulled += CHUNK;
            c.enqueue(new Uint8Array(CHUNK).fill(0x20));
          },
        });
        const res = await fetch(`${app.baseUrl}${ep.path}`, {
          method: "POST",
          headers: { "Content-Type": ep.type, Accept: "application/json, text/event-stream" },
          body,
          duplex: "half",
        } as RequestInit);
        answered = true;
        pulledAtAnswer = pulled;
        const text = await res.text();
        assert.equal(res.status, 413, `${ep.path}: ${text}`);
        assert.equal(errorCode({ body: text }, ep.style), "payload_too_large");
        // A bound that tells an answer at the limit from a drained stream, not a timing: the
        // in-process step below counts the exact chunks; here a cold process on a busy machine
        // may answer a few dozen chunks late.
        assert.ok(
          pulledAtAnswer <= ep.limit + 48 * CHUNK,
          `${ep.path} answered after ${pulledAtAnswer} bytes of the stream`,
        );
        await sleep(50);
        assert.ok(pulled < TOTAL / 10, `${ep.path}: ${pulled} of ${TOTAL} bytes were pulled`);
      }
    },
  );

  await t.step(
    "in-process, counted exactly: the handler pulls the limit plus one chunk",
    async () => {
      await using app = await createApp({ env: NO_LIMITS });
      for (const ep of ENDPOINTS) {
        let chunks = 0;
        let cancelled = false;
        const body = new ReadableStream<Uint8Array>({
          pull(c) {
            if (chunks * CHUNK >= TOTAL) return c.close();
            chunks++;
            c.enqueue(new Uint8Array(CHUNK).fill(0x20));
          },
          cancel() {
            cancelled = true;
          },
        }, { highWaterMark: 0 });
        const res = await app.request(ep.path, {
          method: "POST",
          headers: { "Content-Type": ep.type, Accept: "application/json, text/event-stream" },
          body,
          duplex: "half",
        } as RequestInit);
        const text = await res.text();
        assert.equal(res.status, 413, `${ep.path}: ${text}`);
        const needed = Math.floor(ep.limit / CHUNK) + 1;
        assert.ok(chunks <= needed + 1, `${ep.path} pulled ${chunks} chunks; ${needed} suffice`);
        assert.ok(cancelled, `${ep.path} cancelled the stream`);
      }
    },
  );
});

Deno.test("a body that trickles in (1 byte every 500 ms) is cut off with 408 after about 10 s", async () => {
  await using app = await startServiceOnTempKv(NO_LIMITS);
  const port = Number(new URL(app.baseUrl).port);
  const DECLARED = 60; // 30 s at one byte per 500 ms
  const trickled = ENDPOINTS.filter((e) =>
    ["/oauth2/token", "/api/v1/intake", "/api/v1/mcp"].includes(e.path)
  );
  // The three run concurrently, so the test takes one timeout, not three.
  const results = await Promise.all(trickled.map(async (ep) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    let sent = 0;
    let done = false;
    try {
      const started = performance.now();
      await conn.write(requestHead(port, ep.path, ep.type, `Content-Length: ${DECLARED}`));
      const writer = (async () => {
        const text = ep.type === FORM ? "grant_type=client_credentials&" : '{"email":"a@b.co",  ';
        while (!done && sent < DECLARED) {
          try {
            sent += await conn.write(utf8.encode(text[sent % text.length]!));
          } catch {
            return; // The server closed the connection.
          }
          await sleep(500);
        }
      })();
      const res = await readResponse(conn).finally(() => done = true);
      await writer;
      return { ep, res, elapsed: res.at - started, sent };
    } finally {
      conn.close();
    }
  }));
  for (const { ep, res, elapsed, sent } of results) {
    assert.equal(res.status, 408, `${ep.path}: ${res.body}`);
    assert.equal(errorCode(res, ep.style), "request_timeout");
    assert.ok(elapsed >= 9_500, `${ep.path} gave up after ${Math.round(elapsed)} ms`);
    assert.ok(elapsed < 12_500, `${ep.path} waited ${Math.round(elapsed)} ms`);
    assert.ok(sent < DECLARED / 2, `${ep.path}: the trickle was cut off after ${sent} bytes`);
  }
});
