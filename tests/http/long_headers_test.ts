/**
 * Headers cost what they are worth (issue 40): a list header is read to its first entries
 * only (src/http/header_list.ts), so the 58 KB `Accept-Encoding` of some 10,000 entries that
 * Deno accepts costs a request what a short one does. The work is counted, not timed: a
 * recognisable entry placed just inside the bound is read, and just past it is not.
 */

import assert from "node:assert/strict";
import { ACCEPT_ENCODING_READ, chooseCoding } from "../../src/http/compression.ts";
import { IF_NONE_MATCH_READ } from "../../src/http/static_document.ts";
import { listEntries } from "../../src/http/header_list.ts";
import { COOKIE_READ } from "../../src/staff/session.ts";
import { createApp } from "../_helpers.ts";
import { signedIn } from "../staff/_staff.ts";

/** The header: about 58 KB of entries naming no coding we send. */
const LONG = Array.from({ length: 11_000 }, (_, i) => `x${i % 1000}`).join(", ").slice(0, 58_000);

/** `count` junk entries, then `last`: `last` is entry number `count + 1`. */
function after(count: number, last: string, separator = ", "): string {
  return [...Array.from({ length: count }, (_, i) => `x${i}`), last].join(separator);
}

Deno.test("listEntries reads at most its bound of a 58 KB header, and no entry cut at the bound", () => {
  assert.ok(LONG.length >= 57_000 && LONG.split(",").length > 9_000);
  const read = listEntries(LONG, ",", ACCEPT_ENCODING_READ);
  assert.equal(read.length, ACCEPT_ENCODING_READ.entries);
  assert.deepEqual(listEntries(null, ",", ACCEPT_ENCODING_READ), []);
  // "gzip;q=0.5" cut at the bound would read as "gzip;q=0": it is left out instead.
  const bound = { entries: 8, chars: 16 };
  assert.deepEqual(listEntries("br;q=0, gzip;q=0.5", ",", bound), ["br;q=0"]);
  assert.deepEqual(listEntries("gzip;q=0.5000000000", ",", bound), []);
  assert.deepEqual(listEntries("a,b,c", ",", { entries: 2, chars: 16 }), ["a", "b"]);
});

Deno.test("Accept-Encoding: the entries within the bound are read, none after it", async (t) => {
  const { entries, chars } = ACCEPT_ENCODING_READ;
  await t.step("chooseCoding counts entries", () => {
    assert.equal(chooseCoding(after(entries - 1, "br")), "br", "the last entry read");
    // A `*` in a header cut at the bound is not honoured: a refusal past the cut goes unseen.
    assert.equal(chooseCoding(`*, ${after(entries - 2, "gzip;q=0, br;q=0")}`), undefined);
    assert.equal(chooseCoding(`*, ${"x".repeat(chars)}, br;q=0`), undefined);
    assert.equal(chooseCoding("*, x1, x2"), "br", "a header read whole honours `*`");
    assert.equal(chooseCoding(after(entries, "br")), undefined, "the first entry not read");
    assert.equal(chooseCoding(`br, ${LONG}`), "br");
    assert.equal(chooseCoding(`${LONG}, br`), undefined);
  });
  await t.step("and characters", () => {
    const ending = (at: number) => `${"x".repeat(at - 4)}, br`; // "br" ends at character `at`
    assert.equal(chooseCoding(ending(chars)), "br");
    assert.equal(chooseCoding(ending(chars + 1)), undefined);
  });
  await using app = await createApp();
  for (const path of ["/api/v1/services", "/api/v1/openapi.json"]) {
    await t.step(`through the handler: ${path}`, async () => {
      const read = await app.request(path, {
        headers: { "Accept-Encoding": after(entries - 1, "br") },
      });
      assert.equal(read.status, 200);
      assert.equal(read.headers.get("content-encoding"), "br");
      await read.body?.cancel();
      const past = await app.request(path, {
        headers: { "Accept-Encoding": after(entries, "br") },
      });
      assert.equal(past.headers.get("content-encoding"), null);
      assert.equal(past.headers.get("vary"), "Accept-Encoding");
      await past.body?.cancel();
      const long = await app.request(path, { headers: { "Accept-Encoding": `gzip, ${LONG}` } });
      assert.equal(long.status, 200);
      assert.equal(long.headers.get("content-encoding"), "gzip");
      await long.body?.cancel();
    });
  }
});

Deno.test("If-None-Match: a tag within the bound answers 304, one past it the whole document", async () => {
  await using app = await createApp();
  const path = "/.well-known/mcp.json";
  const first = await app.request(path, { headers: { "Accept-Encoding": "gzip" } });
  await first.body?.cancel();
  const tag = first.headers.get("etag")!;
  const ask = (ifNoneMatch: string) =>
    app.request(path, { headers: { "Accept-Encoding": "gzip", "If-None-Match": ifNoneMatch } });
  const { entries } = IF_NONE_MATCH_READ;
  const read = await ask(after(entries - 1, tag));
  assert.equal(read.status, 304);
  const past = await ask(after(entries, tag));
  assert.equal(past.status, 200);
  await past.body?.cancel();
  const long = await ask(`${LONG}, ${tag}`);
  assert.equal(long.status, 200);
  await long.body?.cancel();
});

Deno.test("Cookie: the session within the first 8 KiB signs in, however many pairs come first; past them, or after 58 KB, it does not", async () => {
  await using app = await createApp({ env: { STAFF_ENROL_CODE: "" } });
  const { cookie } = await signedIn(app);
  const queue = (header: string) => app.request("/staff/", { headers: { Cookie: header } });
  // 500 short cookies a sibling site of the domain could set (some 4 KB): still signed in.
  const many = await queue(after(500, cookie, "; "));
  assert.equal(many.status, 200);
  await many.body?.cancel();
  const pad = "x".repeat(COOKIE_READ.chars);
  const past = await queue(`junk=${pad}; ${cookie}`);
  assert.equal(past.status, 303);
  assert.equal(past.headers.get("location"), "/staff/sign-in");
  const long = await queue(`${LONG.replaceAll(",", ";")}; ${cookie}`);
  assert.equal(long.status, 303);
  const first = await queue(`${cookie}; ${LONG.replaceAll(",", ";")}`);
  assert.equal(first.status, 200);
  await first.body?.cancel();
});

Deno.test("X-Forwarded-For: only the last entry is read, and one longer than an address is none", async () => {
  await using app = await createApp({ env: { TRUST_PROXY: "true", RATE_LIMIT_REGISTER: "1" } });
  const register = (forwarded: string, address = "192.0.2.1") =>
    app.request("/agent/identity", {
      method: "POST",
      address,
      headers: { "Content-Type": "application/json", "X-Forwarded-For": forwarded },
      body: JSON.stringify({ client_name: "long headers" }),
    });
  // The limit is one registration a window per address: the second from one address is 429.
  assert.equal((await register(`${LONG}, 203.0.113.5`)).status, 201);
  assert.equal((await register("203.0.113.5")).status, 429);
  assert.equal((await register(`${LONG}, 203.0.113.6`)).status, 201);
  // A last entry longer than any address: the socket's address counts instead.
  assert.equal((await register(`203.0.113.7, ${"1".repeat(58_000)}`, "198.51.100.9")).status, 201);
  assert.equal((await register("x", "198.51.100.9")).status, 429);
});
