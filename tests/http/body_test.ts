import assert from "node:assert/strict";
import { errorResponse, HttpError } from "../../src/http/errors.ts";
import { parseForm, parseJson, readBody } from "../../src/http/body.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("parseForm decodes + as space and percent-escapes", () => {
  const p = parseForm(enc("a=b+c&d=%2B%26%3D&e=caf%C3%A9"));
  assert.equal(p.get("a"), "b c");
  assert.equal(p.get("d"), "+&=");
  assert.equal(p.get("e"), "café");
});

Deno.test("parseForm rejects repeated parameters (RFC 6749 §3.1)", async (t) => {
  for (const body of ["a=1&a=2", "a=1&a=", "a=&a=1", "a&a=1", "a%20b=1&a+b=2"]) {
    await t.step(body, () => {
      assert.throws(
        () => parseForm(enc(body)),
        (e: unknown) => e instanceof HttpError && e.status === 400 && e.code === "invalid_request",
      );
    });
  }
});

Deno.test("parseForm allows repeats only for names it is told", () => {
  const p = parseForm(enc("resource=a&resource=b&x=1"), ["resource"]);
  assert.deepEqual(p.getAll("resource"), ["a", "b"]);
});

Deno.test("parseForm treats a parameter without a value as omitted", () => {
  const p = parseForm(enc("a=&b&c=1&&"));
  assert.equal(p.has("a"), false);
  assert.equal(p.has("b"), false);
  assert.equal(p.get("c"), "1");
});

Deno.test("parseForm rejects malformed escapes and invalid UTF-8", async (t) => {
  for (
    const bytes of [enc("a=%"), enc("a=%zz"), enc("a=%C3"), new Uint8Array([0x61, 0x3d, 0xff])]
  ) {
    await t.step(String(bytes), () => {
      assert.throws(
        () => parseForm(bytes),
        (e: unknown) => e instanceof HttpError && e.status === 400,
      );
    });
  }
});

Deno.test("parseJson rejects invalid JSON with 400 invalid_json", () => {
  assert.deepEqual(parseJson(enc('{"a":1}')), { a: 1 });
  assert.throws(
    () => parseJson(enc("{")),
    (e: unknown) => e instanceof HttpError && e.code === "invalid_json",
  );
});

Deno.test("readBody refuses a declared Content-Length over the limit without reading", async () => {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled++;
      c.enqueue(new Uint8Array(10));
    },
  });
  const req = new Request(
    "http://x/",
    { method: "POST", body, headers: { "content-length": "1000" }, duplex: "half" } as RequestInit,
  );
  await assert.rejects(
    readBody(req, { maxBytes: 100 }),
    (e: unknown) => e instanceof HttpError && e.status === 413,
  );
  assert.ok(pulled <= 1, `pulled ${pulled} chunks`);
  await req.body?.cancel();
});

Deno.test("readBody stops a body without Content-Length as soon as it passes the limit", async () => {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled++;
      c.enqueue(new Uint8Array(30));
    },
  });
  const req = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
  await assert.rejects(
    readBody(req, { maxBytes: 100 }),
    (e: unknown) => e instanceof HttpError && e.status === 413,
  );
  assert.ok(pulled <= 6, `pulled ${pulled} chunks`);
});

Deno.test("readBody returns a body at the limit", async () => {
  const req = new Request("http://x/", { method: "POST", body: "x".repeat(100) });
  assert.equal((await readBody(req, { maxBytes: 100 })).byteLength, 100);
});

Deno.test("errorResponse renders the OAuth and the API style", async (t) => {
  const err = new HttpError(400, "invalid_scope", "nope", {
    issues: [{ path: "scope", message: "nope" }],
  });
  await t.step("oauth", async () => {
    const res = errorResponse(err, "oauth");
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
    assert.equal(res.headers.get("pragma"), "no-cache");
    assert.deepEqual(await res.json(), { error: "invalid_scope", error_description: "nope" });
  });
  await t.step("api", async () => {
    const res = errorResponse(err, "api");
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(await res.json(), {
      ok: false,
      error: "invalid_scope",
      message: "nope",
      issues: [{ path: "scope", message: "nope" }],
    });
  });
});
