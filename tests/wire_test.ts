/**
 * Behaviour that only shows on a real socket: body limits on declared and chunked
 * bodies, the common response headers, HEAD/OPTIONS/CORS, the Bearer challenge and the
 * no-store headers of the token response. Plus unit tests of `readBody`'s timeout,
 * which would take 10 s over the wire.
 */

import assert from "node:assert/strict";
import { HttpError } from "../src/http/errors.ts";
import { readBody } from "../src/http/body.ts";
import {
  basic,
  issueToken,
  listen,
  overHttp,
  post,
  registerClient,
  streamed,
  tokenRequest,
} from "./_helpers.ts";

const LIMIT = 8 * 1024;
const OAUTH_POSTS = ["/oauth2/token", "/oauth2/revoke", "/agent/identity"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The content type each OAuth POST expects, so that only the size can be wrong. */
function contentTypeFor(path: string): string {
  return path === "/agent/identity" ? "application/json" : "application/x-www-form-urlencoded";
}

/** Asserts the OAuth-style 413 of an oversized body (status, then headers, then body). */
async function assertTooLarge(res: Response): Promise<void> {
  assert.equal(res.status, 413);
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  assert.equal(res.headers.get("pragma"), "no-cache");
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["error", "error_description"]);
  assert.equal(body.error, "payload_too_large");
  assert.equal(typeof body.error_description, "string");
}

/** A form body of exactly `size` bytes: a valid client-credentials request plus padding. */
function paddedTokenForm(size: number): string {
  const head = "grant_type=client_credentials&pad=";
  return head + "x".repeat(size - head.length);
}

/** A JSON registration body of exactly `size` bytes (padded with insignificant whitespace). */
function paddedRegistration(size: number): string {
  const json = JSON.stringify({ type: "anonymous" });
  return json.slice(0, -1) + " ".repeat(size - json.length) + "}";
}

/** A stream that hands out `bytes` in chunks of `chunkSize`, counting pulls. */
function chunkedBody(bytes: Uint8Array, chunkSize: number) {
  let offset = 0;
  const state = { pulls: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      state.pulls++;
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

/**
 * Writes raw bytes on one connection and reads every response until the server closes it
 * (the last request should say `Connection: close`); gives up after 3 s.
 */
async function rawExchange(port: number, bytes: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const guard = setTimeout(() => conn.close(), 3_000);
  const decoder = new TextDecoder();
  const buf = new Uint8Array(16 * 1024);
  let text = "";
  try {
    await conn.write(new TextEncoder().encode(bytes));
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += decoder.decode(buf.subarray(0, n), { stream: true });
    }
  } catch {
    // closed by the guard
  } finally {
    clearTimeout(guard);
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
  return text;
}

/**
 * Writes raw bytes on one connection and reads until the server closes it. Unlike
 * {@link rawExchange} it has no time limit, and a failed read fails the test.
 */
async function exchangeUntilClose(port: number, bytes: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(bytes));
  let text = "";
  const buf = new Uint8Array(4096);
  for (let n; (n = await conn.read(buf)) !== null;) {
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  return text;
}

/** Sends one raw HTTP/1.1 request head and reads the complete response (head and sized body). */
async function rawRequest(
  port: number,
  head: string,
): Promise<{ status: number; headers: Headers; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(head));
    const decoder = new TextDecoder();
    const buf = new Uint8Array(16 * 1024);
    let text = "";
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += decoder.decode(buf.subarray(0, n), { stream: true });
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) continue;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (new TextEncoder().encode(text.slice(end + 4)).byteLength >= length) break;
    }
    const end = text.indexOf("\r\n\r\n");
    assert.notEqual(end, -1, `no complete response head in ${JSON.stringify(text)}`);
    const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
    const headers = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    return { status: Number(statusLine!.split(" ")[1]), headers, body: text.slice(end + 4) };
  } finally {
    conn.close();
  }
}

Deno.test("POST /oauth2/token, /oauth2/revoke and /agent/identity reject a declared Content-Length over 8 KiB with 413", async (t) => {
  await using app = await listen();
  const wire = overHttp(app.baseUrl);

  for (const path of OAUTH_POSTS) {
    await t.step(`${path}: 8 KiB + 1 byte sent with Content-Length gets 413`, async () => {
      const res = await fetch(`${app.baseUrl}${path}`, {
        method: "POST",
        headers: { "Content-Type": contentTypeFor(path) },
        body: new Uint8Array(LIMIT + 1).fill(0x61),
      });
      await assertTooLarge(res);
    });
  }

  for (const path of OAUTH_POSTS) {
    await t.step(
      `${path}: the 413 comes from the header alone, before any body byte is sent`,
      async () => {
        // Only the head goes out; a server that waited for the body would answer 408 after 10 s.
        const res = await rawRequest(
          Number(new URL(app.baseUrl).port),
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentTypeFor(path)}\r\n` +
            `Content-Length: 1000000\r\n\r\n`,
        );
        assert.equal(res.status, 413);
        assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
        const body = JSON.parse(res.body);
        assert.equal(body.error, "payload_too_large");
        assert.equal(typeof body.error_description, "string");
      },
    );
  }

  await t.step("a token request of exactly 8 KiB is accepted", async () => {
    const client = await registerClient(app);
    const form = paddedTokenForm(LIMIT);
    assert.equal(new TextEncoder().encode(form).byteLength, LIMIT);
    const res = await tokenRequest(wire, client, form);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).token_type, "Bearer");
  });

  await t.step("the refused body is never parsed as a request of its own", async () => {
    // The body of the refused request looks like a request for /healthz. The server may
    // close the connection or skip the body, but must never answer the smuggled request.
    const smuggled = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    const body = smuggled + "a".repeat(LIMIT + 1 - smuggled.length);
    const out = await rawExchange(
      Number(new URL(app.baseUrl).port),
      `POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n` +
        body +
        `GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Connection: close\r\n\r\n`,
    );
    assert.match(out, /^HTTP\/1\.1 413 /);
    assert.ok(!out.includes('{"ok":true}'), `the smuggled /healthz was answered: ${out}`);
  });

  await t.step("a registration of exactly 8 KiB is accepted", async () => {
    const body = paddedRegistration(LIMIT);
    assert.equal(new TextEncoder().encode(body).byteLength, LIMIT);
    const res = await post(wire, "/agent/identity", body);
    assert.equal(res.status, 201);
    assert.equal(typeof (await res.json()).client_id, "string");
  });
});

Deno.test("POST /oauth2/token, /oauth2/revoke and /agent/identity cut off a chunked body over 8 KiB with 413", async (t) => {
  await using app = await listen();
  const wire = overHttp(app.baseUrl);
  const TOTAL_CHUNKS = 64; // 64 KiB in 1 KiB chunks
  // Past this many chunks the stream holds back until the response has arrived (or 2 s
  // pass): socket buffers would otherwise swallow all 64 KiB before the server reads any.
  // A server that read the whole body would so see all 64 chunks and fail the test.
  const GATE_AT = 16;

  for (const path of OAUTH_POSTS) {
    await t.step(
      `${path}: a 64 KiB stream is answered 413 after far fewer than 64 chunks`,
      async () => {
        const chunk = new Uint8Array(1024).fill(0x61);
        const responded = Promise.withResolvers<void>();
        let finished = false;
        let pulls = 0;
        let fallback: ReturnType<typeof setTimeout> | undefined;
        let gate: Promise<void> | undefined;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (pulls >= GATE_AT && !finished) {
              gate ??= Promise.race([
                responded.promise,
                new Promise<void>((resolve) => fallback = setTimeout(resolve, 2_000)),
              ]);
              await gate;
            }
            if (finished || pulls >= TOTAL_CHUNKS) return controller.close();
            pulls++;
            controller.enqueue(chunk);
          },
        }, { highWaterMark: 0 });

        const res = await post(wire, path, body, { "Content-Type": contentTypeFor(path) });
        const pullsAtResponse = pulls;
        finished = true;
        responded.resolve();
        clearTimeout(fallback);

        await assertTooLarge(res);
        assert.ok(
          pullsAtResponse > LIMIT / chunk.byteLength,
          `the limit was passed (${pullsAtResponse} chunks pulled)`,
        );
        assert.ok(
          pullsAtResponse < TOTAL_CHUNKS,
          `the server answered before the body ended (${pullsAtResponse}/${TOTAL_CHUNKS} chunks)`,
        );
      },
    );
  }

  await t.step("the cut-off chunked body is never parsed as a request of its own", async () => {
    const smuggled = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let req = "POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (let i = 0; i < 12; i++) {
      const chunk = smuggled + "a".repeat(1024 - smuggled.length);
      req += `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
    }
    req += "0\r\n\r\n";
    req += "GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "Connection: close\r\n\r\n";
    const out = await rawExchange(Number(new URL(app.baseUrl).port), req);
    assert.match(out, /^HTTP\/1\.1 413 /);
    assert.ok(!out.includes('{"ok":true}'), `a smuggled /healthz was answered: ${out}`);
  });

  await t.step("a chunked token request of 8 KiB + 1 byte gets 413", async () => {
    const client = await registerClient(app);
    const { stream } = chunkedBody(new TextEncoder().encode(paddedTokenForm(LIMIT + 1)), 1000);
    const res = await tokenRequest(wire, client, stream);
    await assertTooLarge(res);
  });
});

Deno.test("POST /oauth2/token and /agent/identity accept a chunked body under 8 KiB", async (t) => {
  await using app = await listen();
  const wire = overHttp(app.baseUrl);
  const encoder = new TextEncoder();

  await t.step("a registration sent as a stream gets 201 and credentials", async () => {
    const { stream, state } = chunkedBody(encoder.encode(JSON.stringify({ type: "anonymous" })), 4);
    const res = await post(wire, "/agent/identity", stream);
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
    const body = await res.json();
    assert.match(body.client_id, /^agt_/);
    assert.match(body.client_secret, /^dcfs_cs_/);
    assert.ok(state.pulls > 1, "the body really went out in several chunks");
  });

  await t.step("a token request sent as a stream gets a token that works", async () => {
    const client = await registerClient(app);
    const form = `grant_type=client_credentials&resource=${encodeURIComponent(app.baseUrl)}` +
      "&scope=services%3Aread";
    const { stream, state } = chunkedBody(encoder.encode(form), 7);
    const res = await tokenRequest(wire, client, stream);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
    const token = await res.json();
    assert.equal(token.token_type, "Bearer");
    assert.equal(token.scope, "services:read");
    assert.ok(state.pulls > 1, "the body really went out in several chunks");

    const read = await fetch(`${app.baseUrl}/api/v1/agent/services`, {
      headers: { Authorization: `Bearer ${token.access_token}` },
    });
    assert.equal(read.status, 200);
    assert.equal((await read.json()).ok, true);
  });

  await t.step("a chunked token request of exactly 8 KiB is accepted", async () => {
    const client = await registerClient(app);
    const { stream } = chunkedBody(encoder.encode(paddedTokenForm(LIMIT)), 1000);
    const res = await tokenRequest(wire, client, stream);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).token_type, "Bearer");
  });
});

Deno.test("every response carries X-Request-Id and X-Content-Type-Options: nosniff", async (t) => {
  await using app = await listen({ env: { RATE_LIMIT_TOKEN: "1" } });
  const client = await registerClient(app);
  // Issued in-process (another address), so the wire's token budget of 1 is still unused.
  const token = await issueToken(app, client);
  const url = (path: string) => `${app.baseUrl}${path}`;
  // In order: the 413 uses up the token budget of 1, so the next token request gets 429.
  const cases: [string, number, () => Promise<Response>][] = [
    ["GET discovery", 200, () => fetch(url("/.well-known/oauth-authorization-server"))],
    ["GET /healthz", 200, () => fetch(url("/healthz"))],
    [
      "GET protected read",
      200,
      () => fetch(url("/api/v1/agent/services"), { headers: { Authorization: `Bearer ${token}` } }),
    ],
    ["HEAD", 200, () => fetch(url("/.well-known/oauth-protected-resource"), { method: "HEAD" })],
    ["OPTIONS", 204, () => fetch(url("/oauth2/token"), { method: "OPTIONS" })],
    ["unknown path", 404, () => fetch(url("/no/such/thing"))],
    ["wrong method", 405, () => fetch(url("/oauth2/token"), { method: "DELETE" })],
    ["missing Bearer token", 401, () => fetch(url("/api/v1/agent/locations"))],
    [
      "invalid client",
      401,
      () =>
        fetch(url("/oauth2/revoke"), {
          method: "POST",
          headers: {
            Authorization: basic(client.client_id, "wrong"),
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: "token=x",
        }),
    ],
    [
      "oversized body",
      413,
      () => fetch(url("/oauth2/token"), { method: "POST", body: "x".repeat(LIMIT + 1) }),
    ],
    [
      "rate limited",
      429,
      () => fetch(url("/oauth2/token"), { method: "POST", body: "grant_type=client_credentials" }),
    ],
  ];

  const ids = new Set<string>();
  for (const [name, status, send] of cases) {
    await t.step(`${name} (${status})`, async () => {
      const res = await send();
      await res.body?.cancel();
      assert.equal(res.status, status);
      const id = res.headers.get("x-request-id");
      assert.match(id ?? "", UUID);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      ids.add(id!);
    });
  }

  await t.step("each response got its own request id, the one in the access log", () => {
    assert.equal(ids.size, cases.length);
    const logged = new Set(app.logs.map((r) => r.request_id));
    for (const id of ids) assert.ok(logged.has(id), `request id ${id} is in the access log`);
  });
});

Deno.test("an incoming X-Request-Id is echoed only when it is a UUID or a ULID, and replaced otherwise", async (t) => {
  await using app = await listen();
  const send = (id: string, path = "/.well-known/oauth-authorization-server") =>
    fetch(`${app.baseUrl}${path}`, { headers: { "X-Request-Id": id } });
  const label = (id: string) => JSON.stringify(id.length > 40 ? `${id.slice(0, 12)}…` : id);

  const wellFormed = [
    crypto.randomUUID(),
    crypto.randomUUID().toUpperCase(),
    crypto.randomUUID().replaceAll("-", ""), // nginx $request_id
    "01JDBX7QW1M4T8R3C6P9N2K5HZ", // ULID
    "01jdbx7qw1m4t8r3c6p9n2k5hz",
  ];
  for (const id of wellFormed) {
    await t.step(`${label(id)} (${id.length} chars) is echoed`, async () => {
      const res = await send(id);
      await res.body?.cancel();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-request-id"), id);
    });
  }

  await t.step("a well-formed id is echoed on an error response too", async () => {
    const id = crypto.randomUUID();
    const res = await send(id, "/no/such/thing");
    await res.body?.cancel();
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("x-request-id"), id);
  });

  const malformed = [
    "abcd1234",
    "req-2026.11.22_trace:01", // free text, however plain
    crypto.randomUUID().slice(1), // a character short
    `${crypto.randomUUID()}0`, // a character long
    "81JDBX7QW1M4T8R3C6P9N2K5HZ", // past a ULID's 48-bit time
    "01JDBX7QW1M4T8R3C6P9N2K5HU", // U is not Crockford base32
    "has spaces in it",
    // Our credentials, alone or as a Basic header's id:secret, must never reach the log.
    "dcfs_at_3q2-7wEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "dcfs_cs_sN2lK2ZOv72U8Azf5uCP6GYWiMXrjH233BQam8phARY",
    "agt_Wb3yQ0vH1kq5ZlM2r8d9Xw:dcfs_cs_sN2lK2ZOv72U8Azf5uCP6GYWiMXrjH233BQam8phARY",
    "trace-dcfs_at_3q2-7wEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  ];
  for (const id of malformed) {
    await t.step(`${label(id)} (${id.length} chars) is replaced`, async () => {
      const res = await send(id);
      await res.body?.cancel();
      assert.equal(res.status, 200);
      const echoed = res.headers.get("x-request-id");
      assert.notEqual(echoed, id);
      assert.match(echoed ?? "", UUID);
    });
  }
});

Deno.test("HEAD on a GET route sends the GET's Content-Length (RFC 9110 §9.3.2)", async (t) => {
  await using app = await listen();
  const paths = [
    "/.well-known/oauth-authorization-server", // 200
    "/api/v1/agent/services", // 401 from the handler
  ];
  for (const path of paths) {
    await t.step(path, async () => {
      const get = await fetch(`${app.baseUrl}${path}`);
      const getLength = get.headers.get("content-length");
      const getBytes = (await get.arrayBuffer()).byteLength;
      const head = await fetch(`${app.baseUrl}${path}`, { method: "HEAD" });
      await head.body?.cancel();
      assert.equal(head.status, get.status);
      assert.equal(getLength, String(getBytes));
      assert.equal(head.headers.get("content-length"), getLength);
    });
  }
});

Deno.test("HEAD on a GET route returns the GET headers with an empty body", async (t) => {
  await using app = await listen();

  await t.step("HEAD /.well-known/oauth-authorization-server", async () => {
    const url = `${app.baseUrl}/.well-known/oauth-authorization-server`;
    const get = await fetch(url);
    const getBody = await get.text();
    const head = await fetch(url, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(get.status, 200);
    for (const name of ["content-type", "cache-control", "access-control-allow-origin"]) {
      assert.equal(head.headers.get(name), get.headers.get(name), name);
    }
    assert.match(head.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(await head.text(), "");
    assert.ok(getBody.length > 0);
  });

  await t.step(
    "HEAD on a protected read without a token is a bodiless 401 with the challenge",
    async () => {
      const res = await fetch(`${app.baseUrl}/api/v1/agent/services`, { method: "HEAD" });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer realm=/);
      assert.equal(await res.text(), "");
    },
  );

  await t.step(
    "the handler itself answers HEAD with no body (not just the HTTP client)",
    async () => {
      const res = await app.request("/.well-known/oauth-protected-resource", { method: "HEAD" });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(res.body, null);
    },
  );

  await t.step("HEAD on a POST-only route is 405 with Allow", async () => {
    const res = await fetch(`${app.baseUrl}/oauth2/token`, { method: "HEAD" });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    assert.equal(await res.text(), "");
  });
});

Deno.test("OPTIONS returns 204 with Allow, and CORS preflight on discovery allows any origin", async (t) => {
  await using app = await listen();

  await t.step("OPTIONS /oauth2/token: 204, Allow: POST, OPTIONS", async () => {
    const res = await fetch(`${app.baseUrl}/oauth2/token`, { method: "OPTIONS" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    assert.equal(await res.text(), "");
  });

  await t.step("OPTIONS on a GET route lists GET, HEAD, OPTIONS", async () => {
    const res = await fetch(`${app.baseUrl}/api/v1/agent/services`, { method: "OPTIONS" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
    assert.equal(await res.text(), "");
  });

  const discovery = [
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-protected-resource",
  ];
  for (const path of discovery) {
    await t.step(`CORS preflight on ${path} gets Access-Control-Allow-Origin: *`, async () => {
      const res = await fetch(`${app.baseUrl}${path}`, {
        method: "OPTIONS",
        headers: {
          "Origin": "https://agent.example",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "authorization",
        },
      });
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(res.headers.get("access-control-allow-methods") ?? "", /\bGET\b/);
      assert.match(res.headers.get("access-control-allow-headers") ?? "", /\bAuthorization\b/i);
      assert.equal(res.headers.get("access-control-max-age"), "600");
      assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
      assert.equal(await res.text(), "");
    });
  }

  await t.step("the actual cross-origin GET of discovery is allowed too", async () => {
    const res = await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`, {
      headers: { Origin: "https://agent.example" },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal((await res.json()).issuer, app.baseUrl);
  });

  await t.step(
    "a preflight on the token endpoint from a foreign origin gets no CORS grant",
    async () => {
      const res = await fetch(`${app.baseUrl}/oauth2/token`, {
        method: "OPTIONS",
        headers: { "Origin": "https://agent.example", "Access-Control-Request-Method": "POST" },
      });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.equal((await res.json()).error, "forbidden_origin");
    },
  );

  await t.step("OPTIONS on an unknown path is 404", async () => {
    const res = await fetch(`${app.baseUrl}/no/such/thing`, { method: "OPTIONS" });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error, "not_found");
  });
});

Deno.test("a protected read's 401 carries the Bearer challenge with resource_metadata over the wire", async (t) => {
  await using app = await listen();
  const metadata = `${app.baseUrl}/.well-known/oauth-protected-resource`;

  await t.step("no token: a challenge without an error code", async () => {
    const res = await fetch(`${app.baseUrl}/api/v1/agent/services`);
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get("www-authenticate"),
      `Bearer realm="${app.baseUrl}", resource_metadata="${metadata}"`,
    );
    // A browser agent may read the challenge cross-origin.
    assert.match(res.headers.get("access-control-expose-headers") ?? "", /\bWWW-Authenticate\b/);
    assert.equal((await res.json()).ok, false);
  });

  await t.step('unknown token: a challenge with error="invalid_token"', async () => {
    const res = await fetch(`${app.baseUrl}/api/v1/agent/coverage?city=Berlin&country=DE`, {
      headers: { Authorization: "Bearer dcfs_at_not-a-real-token" },
    });
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get("www-authenticate"),
      `Bearer realm="${app.baseUrl}", error="invalid_token", resource_metadata="${metadata}"`,
    );
    assert.equal((await res.json()).error, "invalid_token");
  });

  await t.step("the resource_metadata URL answers with the RFC 9728 document", async () => {
    const res = await fetch(metadata);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = await res.json();
    assert.equal(body.resource, app.baseUrl);
    assert.deepEqual(body.authorization_servers, [app.baseUrl]);
  });
});

Deno.test("the token response over the wire has Cache-Control: no-store and Pragma: no-cache", async (t) => {
  await using app = await listen();
  const client = await registerClient(app);
  const token = (client_secret: string) =>
    tokenRequest(overHttp(app.baseUrl), { ...client, client_secret }, {
      grant_type: "client_credentials",
      resource: app.baseUrl,
    });

  await t.step("a successful token response", async () => {
    const res = await token(client.client_secret);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
    assert.equal(res.headers.get("pragma"), "no-cache");
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = await res.json();
    assert.equal(body.token_type, "Bearer");
    assert.equal(body.expires_in, 900);
    assert.match(body.access_token, /^dcfs_at_[A-Za-z0-9_-]{43}$/);
  });

  await t.step("a token error response", async () => {
    const res = await token("dcfs_cs_wrong");
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
    assert.equal(res.headers.get("pragma"), "no-cache");
    assert.match(res.headers.get("www-authenticate") ?? "", /^Basic realm=/);
    assert.equal((await res.json()).error, "invalid_client");
  });
});

Deno.test("readBody gives up with 408 on a body that does not arrive in time", async (t) => {
  await t.step("a stream that never enqueues is abandoned with 408 and cancelled", async () => {
    let cancelled = false;
    const req = new Request(
      "http://127.0.0.1/oauth2/token",
      streamed({
        method: "POST",
        body: new ReadableStream<Uint8Array>({
          pull() {}, // never enqueues, never closes
          cancel() {
            cancelled = true;
          },
        }),
      }),
    );
    const started = performance.now();
    await assert.rejects(readBody(req, { maxBytes: 100, timeoutMs: 50 }), (err: unknown) => {
      assert.ok(err instanceof HttpError);
      assert.equal(err.status, 408);
      assert.equal(err.code, "request_timeout");
      return true;
    });
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 40 && elapsed < 2_000, `gave up after ${elapsed} ms`);
    assert.ok(cancelled, "the body stream was cancelled");
  });

  await t.step("a stream that stalls after a first chunk also gets 408", async () => {
    let pulls = 0;
    const req = new Request(
      "http://127.0.0.1/oauth2/token",
      streamed({
        method: "POST",
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            if (pulls++ === 0) controller.enqueue(new Uint8Array(10));
          },
        }),
      }),
    );
    await assert.rejects(
      readBody(req, { maxBytes: 100, timeoutMs: 50 }),
      (err: unknown) => err instanceof HttpError && err.status === 408,
    );
    assert.ok(pulls >= 1);
  });

  await t.step(
    "a declared Content-Length over the limit is 413 before the stream is read",
    async () => {
      let pulls = 0;
      const req = new Request(
        "http://127.0.0.1/oauth2/token",
        streamed({
          method: "POST",
          headers: { "Content-Length": "101" },
          body: new ReadableStream<Uint8Array>({
            pull(controller) {
              pulls++;
              controller.enqueue(new Uint8Array(101));
              controller.close();
            },
          }, { highWaterMark: 0 }),
        }),
      );
      await assert.rejects(
        readBody(req, { maxBytes: 100, timeoutMs: 50 }),
        (err: unknown) => err instanceof HttpError && err.status === 413,
      );
      assert.equal(pulls, 0);
      await req.body?.cancel();
    },
  );

  await t.step("a body exactly at the limit is returned whole, in time", async () => {
    const req = new Request("http://127.0.0.1/oauth2/token", {
      method: "POST",
      body: new Uint8Array(100).fill(7),
    });
    const bytes = await readBody(req, { maxBytes: 100, timeoutMs: 50 });
    assert.equal(bytes.byteLength, 100);
    assert.ok(bytes.every((b) => b === 7));
  });
});

Deno.test("a Host header that makes no valid URL is a 400, and neither the URL nor its query reaches the log", async () => {
  await using app = await listen();
  const text = await exchangeUntilClose(
    Number(new URL(app.baseUrl).port),
    "GET /api/v1/agent/services?access_token=dcfs_at_SECRET&email=jane@doe.example HTTP/1.1\r\n" +
      "Host: x|y\u009B[31m\r\nConnection: close\r\n\r\n",
  );
  assert.match(text, /^HTTP\/1\.1 400 /);
  assert.match(text, /\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
  assert.match(text, /"error":"invalid_request"/);
  const line = app.logs.find((l) => l.status === 400);
  assert.equal(line?.path, "(invalid url)");
  const logged = JSON.stringify(app.logs);
  for (const secret of ["dcfs_at_SECRET", "jane@doe.example", "x|y"]) {
    assert.ok(!logged.includes(secret), secret);
  }
});

Deno.test("a Host header cannot choose the route: a path smuggled through it is a 400 and stores nothing", async () => {
  await using app = await listen();
  const port = Number(new URL(app.baseUrl).port);
  const body = JSON.stringify({ email: "h@example.com", description: "via host" });
  for (const host of ["a\\api\\v1\\intake?", "a/api/v1/intake?", "a\\api\\v1\\intake#", "x@y"]) {
    const text = await exchangeUntilClose(
      port,
      `POST /totally/other/path HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    assert.match(text, /^HTTP\/1\.1 400 /, host);
  }
  assert.deepEqual(await Array.fromAsync(app.kv.list({ prefix: ["submissions"] })), []);
  assert.ok(app.logs.every((l) => l.path === "(invalid url)"));
});
