/**
 * The expected review time: every submission's answer (lead and quote; REST, MCP and the
 * forms, with and without script) gives `expected_review` from the submission time and says
 * it in `next_step`, shorter for `urgency: emergency`; the status read gives it while the
 * request is pending; both hours come from the configuration.
 */
import assert from "node:assert/strict";
import { LEAD, QUOTE } from "../_fixtures.ts";
import { createApp, mcpToolCall, post, type TestApp } from "../_helpers.ts";
import { HOUR_MS, MINUTE_MS } from "../../src/time.ts";

/** The fake clock's start, 2026-11-22T00:00:00Z, plus `hours`, as ISO 8601. */
const at = (app: TestApp, hours: number) =>
  new Date(app.clock.now() + hours * HOUR_MS).toISOString();

/** Posts a form as a browser with script off does. */
function formPost(app: TestApp, path: string, fields: Record<string, unknown>) {
  return app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.config.baseUrl },
    body: new URLSearchParams(
      Object.entries(fields).map(([k, v]) => [k, String(v)]),
    ).toString(),
  });
}

Deno.test("every submission's answer gives the expected review time, in figures and in words", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const day = { within_hours: 24, by: "2026-11-23T00:00:00.000Z" };
  const answers: [string, () => Promise<Record<string, unknown>>][] = [
    ["POST /api/v1/intake", async () => await (await post(app, "/api/v1/intake", LEAD)).json()],
    ["POST /api/v1/quotes", async () => await (await post(app, "/api/v1/quotes", QUOTE)).json()],
    ["submit_lead", async () => (await mcpToolCall(app, "submit_lead", LEAD)).structuredContent],
    [
      "request_quote",
      async () => (await mcpToolCall(app, "request_quote", QUOTE)).structuredContent,
    ],
    ["the quote form's script", async () => await (await post(app, "/forms/quote", QUOTE)).json()],
  ];
  for (const [surface, answer] of answers) {
    await t.step(surface, async () => {
      const body = await answer();
      assert.equal(body.ok, true, JSON.stringify(body));
      assert.deepEqual(body.expected_review, day);
      assert.match(
        String(body.next_step),
        /reply by email.*, expected within 24 hours, by 2026-11-23 00:00 UTC; .*nothing has been ordered/,
      );
    });
  }
  await t.step("the form without script shows it on its receipt page", async () => {
    const res = await formPost(app, "/forms/lead", { ...LEAD, description: "Form, no script" });
    assert.equal(res.status, 202);
    const html = await res.text();
    assert.match(
      html,
      /<dt>Expected review<\/dt><dd>within 24 hours, by 2026-11-23 00:00 UTC<\/dd>/,
    );
    assert.match(html, /expected within 24 hours, by 2026-11-23 00:00 UTC; nothing/);
  });
  await t.step("the quote's receipt page also states the tax of its estimate", async () => {
    const res = await formPost(app, "/forms/quote", { ...QUOTE, description: "Form quote" });
    assert.equal(res.status, 202);
    const html = await res.text();
    assert.match(html, /<dt>Expected review<\/dt><dd>within 24 hours/);
    assert.match(html, /Excludes tax: the quotation adds VAT where it applies in the site&#39;s/);
  });
});

Deno.test("an emergency is expected sooner, and its answer says so", async (t) => {
  await using app = await createApp();
  await t.step("a lead over REST", async () => {
    const body = await (await post(app, "/api/v1/intake", { ...LEAD, urgency: "emergency" }))
      .json();
    assert.deepEqual(body.expected_review, { within_hours: 2, by: at(app, 2) });
    assert.match(
      body.next_step,
      /, expected as an emergency within 2 hours, by 2026-11-22 02:00 UTC;/,
    );
  });
  await t.step("a quote over MCP", async () => {
    const r = await mcpToolCall(app, "request_quote", { ...QUOTE, urgency: "emergency" });
    assert.deepEqual(r.structuredContent.expected_review, { within_hours: 2, by: at(app, 2) });
    assert.match(String(r.structuredContent.next_step), /expected as an emergency within 2 h/);
  });
  await t.step("asap and scheduled get the standard time", async () => {
    for (const urgency of ["asap", "scheduled"]) {
      const body = await (await post(app, "/api/v1/intake", { ...LEAD, urgency })).json();
      assert.equal(body.expected_review.within_hours, 24, urgency);
      assert.doesNotMatch(body.next_step, /emergency/);
    }
  });
});

Deno.test("REVIEW_HOURS and REVIEW_HOURS_EMERGENCY set the times", async () => {
  await using app = await createApp({
    env: { REVIEW_HOURS: "48", REVIEW_HOURS_EMERGENCY: "1" },
  });
  const lead = await (await post(app, "/api/v1/intake", LEAD)).json();
  assert.deepEqual(lead.expected_review, { within_hours: 48, by: at(app, 48) });
  const urgent = await (await post(app, "/api/v1/quotes", { ...QUOTE, urgency: "emergency" }))
    .json();
  assert.deepEqual(urgent.expected_review, { within_hours: 1, by: at(app, 1) });
  assert.match(urgent.next_step, /within 1 hour, by 2026-11-22 01:00 UTC/);
});

Deno.test("a replay answers the first answer's review time", async () => {
  await using app = await createApp();
  const first = await (await post(app, "/api/v1/intake", LEAD)).json();
  app.clock.advance(5 * MINUTE_MS);
  const again = await (await post(app, "/api/v1/intake", LEAD)).json();
  assert.equal(again.replayed, true);
  assert.deepEqual(again.expected_review, first.expected_review);
  assert.equal(again.next_step, first.next_step);
});

Deno.test("the status read gives the expected review while pending, from when it came in", async (t) => {
  await using app = await createApp();
  const lead = await (await post(app, "/api/v1/intake", LEAD)).json();
  const urgent = await (await post(app, "/api/v1/quotes", { ...QUOTE, urgency: "emergency" }))
    .json();
  const status = async (id: string) => {
    const rest = await (await app.request(`/api/v1/requests/${id}`)).json();
    const tool = await mcpToolCall(app, "get_request_status", { request_id: id });
    assert.deepEqual(tool.structuredContent, rest);
    return rest;
  };
  app.clock.advance(HOUR_MS);
  await t.step("the same time as the submission's answer, over REST and MCP", async () => {
    const s = await status(lead.request_id);
    assert.deepEqual(s.expected_review, lead.expected_review);
    assert.match(
      s.next_step,
      /^Waiting for a person to review it, expected within 24 hours, by 2026-11-23 00:00 UTC; they reply by email\./,
    );
  });
  await t.step("an emergency's is the shorter one, and says it is late once past", async () => {
    const s = await status(urgent.request_id);
    assert.deepEqual(s.expected_review, { within_hours: 2, by: "2026-11-22T02:00:00.000Z" });
    assert.match(s.next_step, /expected as an emergency within 2 hours, by 2026-11-22 02:00 UTC/);
    app.clock.advance(2 * HOUR_MS);
    const late = await status(urgent.request_id);
    assert.deepEqual(late.expected_review, s.expected_review);
    assert.match(
      late.next_step,
      /^Waiting for a person to review it, later than expected as an emergency \(due within 2 hours, by 2026-11-22 02:00 UTC\); they reply by email with a quotation\./,
    );
  });
});
