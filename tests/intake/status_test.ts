/**
 * The loop closed: GET /api/v1/requests/{request_id} and get_request_status say where a
 * submission stands, show a decision made with `deno task review approve`, carry the
 * urgency, and show no personal data.
 */
import assert from "node:assert/strict";
import { webhookBody } from "../../src/review/notifier.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { LEAD, QUOTE } from "../_fixtures.ts";
import { createApp, mcpToolCall, post } from "../_helpers.ts";
import { reviewCli, reviewListJson } from "../_service.ts";

Deno.test("the status read shows a decision made with deno task review approve, over REST and MCP", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-status-" });
  const kvPath = `${dir}/kv.sqlite3`;
  try {
    await using app = await createApp({ kv: await Deno.openKv(kvPath) });
    const submitted = await (await post(app, "/api/v1/quotes", { ...QUOTE, urgency: "asap" }))
      .json();
    const id = String(submitted.request_id);
    const status = async () => {
      const res = await app.request(`/api/v1/requests/${id}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      return await res.json();
    };

    await t.step("pending at first, with its urgency and what happens next", async () => {
      const s = await status();
      assert.deepEqual(Object.keys(s).sort(), [
        "created_at",
        "decided_at",
        "expected_review",
        "kind",
        "next_step",
        "ok",
        "request_id",
        "status",
        "urgency",
      ]);
      assert.deepEqual([s.kind, s.status, s.urgency, s.decided_at], [
        "quote",
        "pending",
        "asap",
        null,
      ]);
      assert.match(s.next_step, /^Waiting for a person/);
    });
    await t.step("no personal data and no reviewer's note", async () => {
      const text = JSON.stringify(await status());
      for (const value of [QUOTE.email, QUOTE.company, QUOTE.contact_name, QUOTE.description]) {
        assert.ok(!text.includes(value), value);
      }
    });
    await t.step("approved with deno task review, over REST and MCP alike", async () => {
      const run = await reviewCli(kvPath, "approve", id, "--note", "Quote sent to Alex");
      assert.equal(run.code, 0, run.stderr);
      const s = await status();
      assert.equal(s.status, "approved");
      assert.equal(typeof s.decided_at, "string");
      assert.equal(s.expected_review, null, "decided: no review is expected any more");
      assert.ok(!JSON.stringify(s).includes("Alex"), "the note is not shown");
      const tool = await mcpToolCall(app, "get_request_status", { request_id: id });
      assert.deepEqual(tool.structuredContent, s);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unknown or malformed request id is 404 not_found, saying how ids look", async (t) => {
  await using app = await createApp();
  for (const id of ["quote_01KAKX2Q3M8Y6T0V5W9R4B7C1D", "nope", "lead_%2e%2e"]) {
    await t.step(id, async () => {
      const res = await app.request(`/api/v1/requests/${id}`);
      assert.equal(res.status, 404);
      const body = await res.json();
      assert.equal(body.error, "not_found");
      assert.match(body.message, /lead_… or quote_…/);
    });
  }
  await t.step("get_request_status says the same", async () => {
    const r = await mcpToolCall(app, "get_request_status", { request_id: "nope" });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.error, "not_found");
  });
});

Deno.test("urgency is stored, listed first by deno task review list, and carried in the webhook notice", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-urgency-" });
  const kvPath = `${dir}/kv.sqlite3`;
  try {
    await using app = await createApp({ kv: await Deno.openKv(kvPath) });
    const ids: string[] = [];
    for (const urgency of [undefined, "scheduled", "emergency", "asap"]) {
      app.clock.advance(1000);
      const lead = { ...LEAD, description: `${LEAD.description} (${urgency})`, urgency };
      ids.push(String((await (await post(app, "/api/v1/intake", lead)).json()).request_id));
    }
    const listed = await reviewListJson(kvPath);
    // Urgent first, then newest first.
    assert.deepEqual(listed.map((i) => i.request_id), [ids[2], ids[3], ids[1], ids[0]]);
    const record = (await getSubmission(app.kv, ids[2]!)).value!;
    assert.equal(record.urgency, "emergency");
    assert.equal(webhookBody(record).urgency, "emergency");
    const bad = await post(app, "/api/v1/intake", { ...LEAD, urgency: "yesterday" });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).issues[0].message, /emergency, asap, scheduled/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
