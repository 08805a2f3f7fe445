/**
 * A request body with a `Content-Encoding`, any at all, is refused with `415
 * unsupported_encoding` and `Accept-Encoding: identity` on every route that reads a body,
 * and nothing it carried is stored: the submissions, OAuth forms and JSON, MCP, the home
 * page's forms and every console form. Before, a gzip body was read as text and answered
 * `400` "not valid UTF-8".
 */

import assert from "node:assert/strict";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { PATHS, STAFF_PATHS } from "../../src/http/paths.ts";
import {
  basic,
  countSubmissions,
  createApp,
  listen,
  registerClient,
  type TestApp,
} from "../_helpers.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { signedIn, type Staffer } from "../staff/_staff.ts";
import { submit } from "../staff/_review.ts";

/** Each coding with the body as it would be sent: really encoded where it is a real coding. */
const CODINGS: [string, (bytes: Uint8Array) => Uint8Array][] = [
  ["gzip", (b) => gzipSync(b)],
  ["br", (b) => brotliCompressSync(b)],
  ["deflate", (b) => deflateSync(b)],
  // RFC 9110 §8.4.1: no content coding; refused all the same (src/http/body.ts says why).
  ["identity", (b) => b],
  ["x-foo", (b) => b],
  ["gzip, identity", (b) => gzipSync(b)],
];

/** One body-reading route: how its body is sent, and how its refusal is rendered. */
interface BodyRoute {
  name: string;
  path: string;
  type: string;
  body: string;
  headers?: Record<string, string>;
  /** `json`: `error` in the body (both layouts); `html`: a page with the message. */
  answer: "json" | "html";
}

async function routes(app: TestApp, sam: Staffer): Promise<BodyRoute[]> {
  const client = await registerClient(app);
  const auth = { Authorization: basic(client.client_id, client.client_secret) };
  const id = await submit(app, "quote", QUOTE);
  const form = "application/x-www-form-urlencoded";
  const own = { Origin: app.config.baseUrl };
  const staff = { ...own, Cookie: sam.cookie };
  const staffForm = (fields: Record<string, string>) =>
    new URLSearchParams({ ...fields, csrf: sam.csrf }).toString();
  const json = "application/json";
  return [
    {
      name: "REST lead",
      path: PATHS.intake,
      type: json,
      body: JSON.stringify(LEAD),
      answer: "json",
    },
    {
      name: "REST quote",
      path: PATHS.quotes,
      type: json,
      body: JSON.stringify(QUOTE),
      answer: "json",
    },
    {
      name: "lead form as JSON",
      path: PATHS.leadForm,
      type: json,
      body: JSON.stringify(LEAD),
      headers: own,
      answer: "json",
    },
    {
      name: "lead form posted",
      path: PATHS.leadForm,
      type: form,
      body: new URLSearchParams(LEAD).toString(),
      headers: own,
      answer: "html",
    },
    {
      name: "quote form posted",
      path: PATHS.quoteForm,
      type: form,
      body: "service_type=rack-and-stack&city=Berlin",
      headers: own,
      answer: "html",
    },
    { name: "registration", path: PATHS.identity, type: json, body: "{}", answer: "json" },
    {
      name: "token",
      path: PATHS.token,
      type: form,
      body: "grant_type=client_credentials",
      headers: auth,
      answer: "json",
    },
    {
      name: "revocation",
      path: PATHS.revoke,
      type: form,
      body: "token=abc",
      headers: auth,
      answer: "json",
    },
    {
      name: "MCP submit_lead",
      path: PATHS.mcp,
      type: json,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "submit_lead", arguments: LEAD },
      }),
      headers: { Accept: "application/json, text/event-stream" },
      answer: "json",
    },
    {
      name: "staff sign-in options",
      path: STAFF_PATHS.signInOptions,
      type: json,
      body: "{}",
      headers: own,
      answer: "json",
    },
    {
      name: "staff enrol options",
      path: STAFF_PATHS.enrolOptions,
      type: json,
      body: "{}",
      headers: own,
      answer: "json",
    },
    {
      name: "staff decision",
      path: STAFF_PATHS.decide.replace(":request_id", id),
      type: form,
      body: staffForm({ decision: "approve", versionstamp: "0", note: "yes" }),
      headers: staff,
      answer: "html",
    },
    {
      name: "staff erase",
      path: STAFF_PATHS.erase.replace(":request_id", id),
      type: form,
      body: staffForm({ confirm: "yes" }),
      headers: staff,
      answer: "html",
    },
    {
      name: "staff erase by email",
      path: STAFF_PATHS.eraseEmail,
      type: form,
      body: staffForm({ email: QUOTE.email, confirm: "yes" }),
      headers: staff,
      answer: "html",
    },
    {
      name: "staff disable client",
      path: STAFF_PATHS.clients,
      type: form,
      body: staffForm({ client_id: client.client_id }),
      headers: staff,
      answer: "html",
    },
    {
      name: "staff invite",
      path: STAFF_PATHS.invites,
      type: form,
      body: staffForm({ name: "Kim" }),
      headers: staff,
      answer: "html",
    },
    {
      name: "staff sign-out",
      path: STAFF_PATHS.signOut,
      type: form,
      body: staffForm({}),
      headers: staff,
      answer: "html",
    },
  ];
}

/** Every key and versionstamp, rate counters aside (a refused request still counts). */
async function stored(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    if (e.key[0] === "rate_counters") continue;
    out.push(JSON.stringify([e.key, e.versionstamp], (_, v) => typeof v === "bigint" ? `${v}` : v));
  }
  return out;
}

Deno.test("a body with any Content-Encoding is 415 unsupported_encoding on every route that reads one, and nothing is stored", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const table = await routes(app, sam);
  const before = await stored(app.kv);
  for (const route of table) {
    for (const [coding, encode] of CODINGS) {
      await t.step(`${route.name}, Content-Encoding: ${coding}`, async () => {
        const res = await app.request(route.path, {
          method: "POST",
          headers: { ...route.headers, "Content-Type": route.type, "Content-Encoding": coding },
          body: new Uint8Array(encode(new TextEncoder().encode(route.body))),
          redirect: "manual",
        });
        assert.equal(res.status, 415);
        assert.equal(res.headers.get("accept-encoding"), "identity");
        const text = await res.text();
        if (route.answer === "json") {
          assert.match(res.headers.get("content-type")!, /^application\/json/);
          assert.equal(JSON.parse(text).error, "unsupported_encoding");
        } else {
          assert.match(res.headers.get("content-type")!, /^text\/html/);
        }
        assert.match(text, /not accepted with a Content-Encoding: send the body uncompressed/);
      });
    }
  }
  assert.deepEqual(await stored(app.kv), before, "nothing was written");
  await t.step("the same bodies without the header are taken as before", async () => {
    const ok = await app.request(PATHS.intake, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(LEAD),
    });
    assert.equal(ok.status, 202);
    await ok.body?.cancel();
  });
});

Deno.test("a 415 for the media type carries no Accept-Encoding (RFC 9110 §12.5.3)", async () => {
  await using app = await createApp();
  const res = await app.request(PATHS.intake, {
    method: "POST",
    headers: { "Content-Type": "text/plain" },
    body: JSON.stringify(LEAD),
  });
  assert.equal(res.status, 415);
  assert.equal(res.headers.get("accept-encoding"), null);
  assert.equal((await res.json()).error, "unsupported_media_type");
});

Deno.test("over a real port, a gzip submission is 415 and nothing is stored", async () => {
  await using app = await listen();
  const res = await fetch(`${app.baseUrl}${PATHS.intake}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" },
    body: new Uint8Array(gzipSync(new TextEncoder().encode(JSON.stringify(LEAD)))),
  });
  assert.equal(res.status, 415);
  assert.equal(res.headers.get("accept-encoding"), "identity");
  assert.equal((await res.json()).error, "unsupported_encoding");
  assert.equal(await countSubmissions(app), 0);
});
