/**
 * Retries are retries (issue 26, point 4): a submission that differs from an earlier one only
 * in what request_hash.ts leaves out (whitespace at the ends and in runs, Unicode
 * composition, the case of email and country, key order) replays the first answer, with and
 * without an idempotency key, over REST and MCP; a changed word is a new request.
 */

import assert from "node:assert/strict";
import { LEAD, QUOTE } from "../_fixtures.ts";
import { countSubmissions, createApp, mcpToolCall, post, type TestApp } from "../_helpers.ts";

type Body = Record<string, unknown>;

/** Variants of a body that are the same request: each replays the first answer. */
const SAME: [string, (b: Body) => Body][] = [
  ["a trailing space in description", (b) => ({ ...b, description: `${b.description} ` })],
  ["leading whitespace and a tab", (b) => ({ ...b, description: `\t ${b.description}` })],
  [
    "a run of spaces and a newline inside",
    (b) => ({ ...b, description: String(b.description).replace(" ", "  \n ") }),
  ],
  ["the email in upper case", (b) => ({ ...b, email: String(b.email).toUpperCase() })],
  ["keys in another order", (b) => Object.fromEntries(Object.entries(b).reverse())],
];

/** Variants that are another request. */
const CHANGED: [string, (b: Body) => Body][] = [
  ["a changed word", (b) => ({ ...b, description: String(b.description).replace("4", "5") })],
  ["another letter case in description", (b) => ({ ...b, description: "install 4 servers" })],
];

/** POSTs to `path` and returns the status and the body. */
async function send(app: TestApp, path: string, body: Body, key?: string) {
  const res = await post(app, path, body, key ? { "Idempotency-Key": key } : {});
  return {
    http: res.status,
    replayedHeader: res.headers.get("idempotent-replayed"),
    ...await res.json(),
  };
}

Deno.test("POST /api/v1/quotes: a retry with a trailing space replays the first answer, with or without Idempotency-Key; a changed word does not", async (t) => {
  const quote = { ...QUOTE, description: "Install 4 servers" };
  for (const key of ["quote-retry-1", undefined]) {
    for (const [what, vary] of SAME) {
      await t.step(`${key ? "with a key" : "without a key"}: ${what} is a replay`, async () => {
        await using app = await createApp();
        const first = await send(app, "/api/v1/quotes", quote, key);
        assert.equal(first.http, 202);
        const again = await send(app, "/api/v1/quotes", vary(quote), key);
        assert.equal(again.http, 202);
        assert.equal(again.replayedHeader, "true");
        assert.equal(again.request_id, first.request_id);
        assert.equal(again.replayed, true);
        assert.equal(await countSubmissions(app), 1);
      });
    }
    for (const [what, vary] of CHANGED) {
      await t.step(`${key ? "with a key" : "without a key"}: ${what} is not`, async () => {
        await using app = await createApp();
        const first = await send(app, "/api/v1/quotes", quote, key);
        const again = await send(app, "/api/v1/quotes", vary(quote), key);
        if (key) {
          assert.equal(again.http, 409);
          assert.equal(again.error, "idempotency_key_reused");
          assert.equal(await countSubmissions(app), 1);
        } else {
          assert.equal(again.http, 202);
          assert.notEqual(again.request_id, first.request_id);
          assert.equal(again.replayed, false);
          assert.equal(await countSubmissions(app), 2);
        }
      });
    }
  }
});

Deno.test("POST /api/v1/intake: composition, case of email and country, and whitespace are not a new lead", async () => {
  await using app = await createApp();
  const lead = { ...LEAD, city: "Zürich", country: "ch", company: "Ex  GmbH" };
  const first = await send(app, "/api/v1/intake", lead);
  assert.equal(first.http, 202);
  const again = await send(app, "/api/v1/intake", {
    ...lead,
    city: "Zu\u0308rich ", // "ü" decomposed, and a trailing space
    country: "CH",
    company: " Ex GmbH",
    email: "OPS@Example.COM",
  });
  assert.equal(again.http, 202);
  assert.equal(again.request_id, first.request_id);
  assert.equal(again.replayed, true);
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("POST /api/v1/quotes: currency in another letter case is the same request, as it is stored the same", async () => {
  await using app = await createApp();
  const first = await send(app, "/api/v1/quotes", { ...QUOTE, currency: "usd" }, "quote-ccy");
  assert.equal(first.http, 202);
  const again = await send(app, "/api/v1/quotes", { ...QUOTE, currency: "USD" }, "quote-ccy");
  assert.equal(again.http, 202, JSON.stringify(again));
  assert.equal(again.request_id, first.request_id);
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("MCP request_quote and submit_lead: a trailing space replays the first answer; a changed word does not", async (t) => {
  const quote = { ...QUOTE, description: "Install 4 servers" };
  for (const [tool, args] of [["request_quote", quote], ["submit_lead", LEAD]] as const) {
    for (const key of [{ idempotency_key: `${tool}-1` }, {}]) {
      const keyed = "idempotency_key" in key;
      await t.step(`${tool}, ${keyed ? "with" : "without"} idempotency_key`, async () => {
        await using app = await createApp();
        const first = await mcpToolCall(app, tool, { ...args, ...key });
        assert.equal(first.structuredContent.ok, true);
        const retry = { ...args, ...key, description: `${args.description} ` };
        const again = await mcpToolCall(app, tool, retry);
        assert.deepEqual(again.structuredContent, { ...first.structuredContent, replayed: true });
        assert.equal(await countSubmissions(app), 1);
        const changed = { ...args, ...key, description: `${args.description} today` };
        const other = await mcpToolCall(app, tool, changed);
        if (keyed) {
          assert.equal(other.isError, true);
          assert.equal(other.structuredContent.error, "idempotency_key_reused");
          assert.equal(await countSubmissions(app), 1);
        } else {
          assert.equal(other.structuredContent.replayed, false);
          assert.notEqual(other.structuredContent.request_id, first.structuredContent.request_id);
          assert.equal(await countSubmissions(app), 2);
        }
      });
    }
  }
});
