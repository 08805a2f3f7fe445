/**
 * One de-duplication rule (issue 39, point 2), proved over REST, MCP and the forms, as
 * docs/api.md ("Idempotent submissions"), /llms.txt, the tool descriptions and the OpenAPI
 * document state it: the same request from the same address within 10 minutes returns the
 * first answer whatever key it carries and however it comes; a key that stored a request
 * replays its answer for 24 h, and refuses another body; a key first sent on a replay is not
 * kept; after 10 minutes only a key replays.
 */

import assert from "node:assert/strict";
import { RETRY } from "../../src/mcp/tools.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import {
  countSubmissions,
  createApp,
  mcpToolCall,
  post,
  reviewCli,
  type TestApp,
} from "../_helpers.ts";

type Body = Record<string, unknown>;
type Answer = Record<string, unknown> & { request_id: string; replayed: boolean };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ADDRESS = "203.0.113.9";

/** One way a submission comes in: REST with a key or without, MCP, the home page's form. */
type Send = (app: TestApp, body: Body, key?: string, address?: string) => Promise<Answer>;

const rest = (path: string): Send => async (app, body, key, address = ADDRESS) => {
  const res = await post(app, path, body, key ? { "Idempotency-Key": key } : {}, address);
  const answer = await res.json();
  assert.equal(res.headers.get("idempotent-replayed") === "true", answer.replayed === true);
  return { ...answer, status: res.status };
};

const mcp = (tool: string): Send => async (app, body, key, address = ADDRESS) => {
  const args = key ? { ...body, idempotency_key: key } : body;
  return (await mcpToolCall(app, tool, args, address)).structuredContent as Answer;
};

/** Each kind by each transport: REST, MCP and, for a lead, the home page's form (JSON). */
const KINDS = [
  {
    kind: "lead",
    body: LEAD as Body,
    ways: { rest: rest("/api/v1/intake"), mcp: mcp("submit_lead"), form: rest("/forms/lead") },
  },
  {
    kind: "quote",
    body: QUOTE as Body,
    ways: { rest: rest("/api/v1/quotes"), mcp: mcp("request_quote"), form: rest("/forms/quote") },
  },
] as const;

/**
 * Asserts `again` is `first` replayed: the same answer, `replayed: true`, still awaiting a
 * person and billing nothing (SPEC §1.5, §4.6: every submission, a replay on any transport
 * included, yields requires_human_approval true and billable_order_created false).
 */
function assertReplay(again: Answer, first: Answer, what: string): void {
  assert.equal(again.requires_human_approval, true, what);
  assert.equal(again.billable_order_created, false, what);
  const { status: _, ...answer } = again;
  const { status: __, ...original } = first;
  assert.deepEqual(answer, { ...original, replayed: true }, what);
}

async function fresh(): Promise<TestApp> {
  return await createApp({ env: RATE_LIMITS_OFF });
}

Deno.test("the same request within 10 minutes returns the first answer, whatever key it carries and however it comes", async (t) => {
  for (const { kind, body, ways } of KINDS) {
    const cases: [string, (app: TestApp) => Promise<[Answer, Answer]>][] = [
      ["a key, then none", async (app) => [
        await ways.rest(app, body, "k-1"),
        await ways.rest(app, body),
      ]],
      ["a key, then another key", async (app) => [
        await ways.rest(app, body, "k-1"),
        await ways.rest(app, body, "k-2"),
      ]],
      ["none, then a key", async (app) => [
        await ways.rest(app, body),
        await ways.rest(app, body, "k-1"),
      ]],
      ["REST, then MCP", async (app) => [
        await ways.rest(app, body),
        await ways.mcp(app, body),
      ]],
      ["REST with a key, then MCP with none", async (app) => [
        await ways.rest(app, body, "k-1"),
        await ways.mcp(app, body),
      ]],
      ["MCP with a key, then REST with another", async (app) => [
        await ways.mcp(app, body, "k-1"),
        await ways.rest(app, body, "k-2"),
      ]],
      ["the form, then MCP", async (app) => [
        await ways.form(app, body),
        await ways.mcp(app, body),
      ]],
      ["a key, then none 9 minutes 59 later", async (app) => {
        const first = await ways.rest(app, body, "k-1");
        app.clock.advance(10 * MINUTE - 1_000);
        return [first, await ways.mcp(app, body)];
      }],
    ];
    for (const [what, send] of cases) {
      await t.step(`${kind}: ${what}`, async () => {
        await using app = await fresh();
        const [first, again] = await send(app);
        assert.equal(first.replayed, false);
        assertReplay(again, first, what);
        assert.equal(await countSubmissions(app), 1, "stored once");
      });
    }
  }
});

Deno.test("after 10 minutes only the key that stored the request replays it, until 24 h", async (t) => {
  for (const { kind, body, ways } of KINDS) {
    await t.step(kind, async () => {
      await using app = await fresh();
      const first = await ways.rest(app, body, "k-1");
      app.clock.advance(10 * MINUTE + 1_000);
      const none = await ways.mcp(app, body);
      assert.equal(none.replayed, false, "without a key: a new request");
      const other = await ways.rest(app, { ...body }, "k-2");
      assert.equal(other.replayed, true, "another key: the request just stored without one");
      assert.equal(other.request_id, none.request_id);
      assertReplay(await ways.mcp(app, body, "k-1"), first, "the key, over MCP");
      app.clock.advance(23 * HOUR);
      assertReplay(await ways.rest(app, body, "k-1"), first, "the key, 23 h later");
      app.clock.advance(HOUR);
      const lapsed = await ways.rest(app, body, "k-1");
      assert.equal(lapsed.replayed, false, "24 h after: a new request");
      assert.equal(await countSubmissions(app), 3);
    });
  }
});

Deno.test("a key first sent on a request answered as a replay is not kept", async () => {
  await using app = await fresh();
  const { body, ways } = KINDS[0];
  const first = await ways.rest(app, body);
  assertReplay(await ways.rest(app, body, "k-late"), first, "within 10 minutes");
  app.clock.advance(10 * MINUTE + 1_000);
  const later = await ways.rest(app, body, "k-late");
  assert.equal(later.replayed, false, "after those 10 minutes it is a new key");
  assertReplay(await ways.mcp(app, body, "k-late"), later, "kept by the request it stored");
  assert.equal(await countSubmissions(app), 2);
});

Deno.test("a key reused with another body is 409, within the 10 minutes too, on either transport", async () => {
  await using app = await fresh();
  const { body, ways } = KINDS[1];
  const other = { ...body, description: "Other work" };
  await ways.rest(app, other);
  await ways.rest(app, body, "k-1");
  // The other body's first answer is there to replay, but the key says another request.
  const res = await post(app, "/api/v1/quotes", other, { "Idempotency-Key": "k-1" }, ADDRESS);
  assert.equal(res.status, 409);
  assert.equal((await res.json()).error, "idempotency_key_reused");
  const tool = await mcp("request_quote")(app, other, "k-1");
  assert.equal(tool.error, "idempotency_key_reused");
  assert.equal(await countSubmissions(app), 2);
});

Deno.test("the same request is per caller address, and per kind", async () => {
  await using app = await fresh();
  const { body, ways } = KINDS[0];
  const first = await ways.rest(app, body, "k-1");
  const elsewhere = await ways.mcp(app, body, "k-1", "198.51.100.7");
  assert.equal(elsewhere.replayed, false);
  assert.notEqual(elsewhere.request_id, first.request_id);
  // A quote's body sent as a lead too (a lead keeps the other members): another kind.
  const quote = await KINDS[1].ways.rest(app, QUOTE);
  const asLead = await ways.rest(app, QUOTE);
  assert.equal(asLead.replayed, false);
  assert.match(asLead.request_id, /^lead_/);
  assert.match(quote.request_id, /^quote_/);
  assert.equal(await countSubmissions(app), 4);
});

Deno.test("after an erasure the same request is a new one, with its key or without", async () => {
  await using app = await fresh();
  const { body, ways } = KINDS[1];
  const first = await ways.rest(app, body, "k-1");
  const erased = await reviewCli(app, "erase", first.request_id);
  assert.equal(erased.code, 0, erased.err);
  const none = await ways.mcp(app, body);
  assert.equal(none.replayed, false);
  assert.notEqual(none.request_id, first.request_id);
  assert.equal((await reviewCli(app, "erase", none.request_id)).code, 0);
  const keyed = await ways.rest(app, body, "k-1");
  assert.equal(keyed.replayed, false);
  assert.deepEqual(
    await Array.fromAsync(app.kv.list({ prefix: ["idempotency"] }), (e) => e.key[1]),
    ["quote", "quote:same"],
    "only the last request's records are left",
  );
});

Deno.test("every document states the rule in the words these tests prove", async (t) => {
  await using app = await createApp();
  await t.step("the tool descriptions of submit_lead and request_quote", async () => {
    assert.equal(
      RETRY,
      "An identical call from the same address within 10 minutes returns the first answer " +
        "(replayed: true), whatever its idempotency_key, over REST or MCP; a key that stored a " +
        "request replays its answer for 24 h.",
    );
    const descriptor = await (await app.request("/.well-known/mcp.json")).json();
    for (const name of ["submit_lead", "request_quote"]) {
      const tool = descriptor.tools.find((x: { name: string }) => x.name === name);
      assert.ok(tool.description.endsWith(RETRY), name);
    }
  });
  await t.step("the OpenAPI document's Idempotency-Key", async () => {
    const doc = await (await app.request("/api/v1/openapi.json")).json();
    for (const path of ["/api/v1/intake", "/api/v1/quotes"]) {
      const key = doc.paths[path].post.parameters.find(
        (p: { name: string }) => p.name === "Idempotency-Key",
      );
      assert.equal(
        key.description,
        "1–255 visible ASCII characters, optionally quoted. For 24 h, the same key with the " +
          "same body replays the answer of the request first stored with it, and stores nothing " +
          "new; with another body it is 409. Whatever the key, or without one, the same body " +
          "from the same address within 10 minutes (REST or MCP) replays the first answer",
      );
    }
  });
  await t.step("docs/api.md, Idempotent submissions", async () => {
    const doc = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
    const section = doc.split("### Idempotent submissions")[1]!.split(/^#{2,3} /m)[0]!
      .replace(/\s+/g, " ");
    for (
      const sentence of [
        "A submission identical to one stored in the last 10 minutes (the same kind, lead or " +
        "quote, the same arguments and email as compared below, from the same caller address) " +
        "returns that first answer, with `replayed: true` in the body and " +
        "`Idempotent-Replayed: true`, and stores nothing new, whatever `Idempotency-Key` it " +
        "carries (the first one's, another or none) and whichever way it comes (REST, MCP or " +
        "the forms).",
        "The same key with the same request returns the answer of the request first stored " +
        "with that key, for 24 hours after it was stored, and stores nothing new; the same key " +
        "with a different request is `409 idempotency_key_reused`, within the 10 minutes too.",
        "A key sent with a request that was answered as a replay (the first one came with " +
        "another key or none) is not kept: after those 10 minutes it is a new key.",
        "After 10 minutes only a key replays: the same request without it, or with another " +
        "key, is a new submission.",
        "Erasing a submission (`review erase`) erases what would replay it: the same request " +
        "after that is a new one.",
      ]
    ) {
      assert.ok(section.includes(sentence), sentence);
    }
  });
});
