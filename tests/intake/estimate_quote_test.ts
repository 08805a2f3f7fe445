/**
 * A price without a side effect: GET /api/v1/estimate and the estimate_quote tool answer
 * the budget estimate request_quote would store for the same job, and store nothing,
 * notify no one and spend no submission budget.
 */
import assert from "node:assert/strict";
import { deliverDue } from "../../src/review/notifier.ts";
import { loadConfig } from "../../src/config.ts";
import { QUOTE } from "../_fixtures.ts";
import { createApp, mcpToolCall, post, type TestApp } from "../_helpers.ts";

const JOB = {
  city: "Ashburn VA",
  service_type: "rack and stack",
  engineer_count: 2,
  estimated_hours: 3,
  requested_date: "2026-12-05",
  requested_time: "22:00",
};

/** Every key of the store, rate counters aside. */
async function keys(app: TestApp): Promise<string[]> {
  const out: string[] = [];
  for await (const e of app.kv.list({ prefix: [] })) {
    if (e.key[0] !== "rate") out.push(JSON.stringify(e.key));
  }
  return out;
}

function estimateUrl(job: Record<string, unknown>): string {
  const query = new URLSearchParams(Object.entries(job).map(([k, v]) => [k, String(v)]));
  return `/api/v1/estimate?${query}`;
}

Deno.test("the estimate stores nothing, notifies no one, and equals what request_quote later stores", async (t) => {
  await using app = await createApp();
  const rest = await app.request(estimateUrl(JOB));
  assert.equal(rest.status, 200);
  assert.equal(rest.headers.get("cache-control"), "no-store");
  const estimate = await rest.json();
  const tool = (await mcpToolCall(app, "estimate_quote", JOB)).structuredContent;

  await t.step("REST and MCP answer the same: a price, the coverage, stored false", () => {
    assert.deepEqual(tool, estimate);
    assert.equal(estimate.ok, true);
    assert.equal(estimate.stored, false);
    assert.equal(estimate.service_id, "rack-and-stack");
    assert.equal(estimate.coverage.match, "covered");
    assert.equal(estimate.coverage.location.id, "iad");
    assert.equal(estimate.budget_estimate.basis.out_of_hours, true, "22:00 on a Saturday");
  });
  await t.step("nothing was stored and no review notice is waiting", async () => {
    assert.deepEqual(await keys(app), []);
    const config = loadConfig({ BASE_URL: "https://api.test" });
    const sent = await deliverDue({ kv: app.kv, config, now: app.clock.now, log: () => {} });
    assert.equal(sent, 0);
  });
  await t.step("request_quote for the same job stores the same estimate", async () => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, ...JOB });
    assert.equal(res.status, 202);
    assert.deepEqual((await res.json()).budget_estimate, estimate.budget_estimate);
  });
});

Deno.test("the estimate spends no submission budget", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "1" } });
  for (let i = 0; i < 5; i++) assert.equal((await app.request(estimateUrl(JOB))).status, 200);
  assert.equal((await post(app, "/api/v1/quotes", QUOTE)).status, 202);
});

Deno.test("the estimate refuses what request_quote refuses, every problem at once", async (t) => {
  await using app = await createApp();
  await t.step(
    "a likely typo of a covered city, an unknown service, an unknown argument",
    async () => {
      const r = await mcpToolCall(app, "estimate_quote", {
        city: "Londn",
        service_type: "plumbing",
        budget: 100,
      });
      assert.equal(r.isError, true);
      const paths = (r.structuredContent.issues as { path: string }[]).map((i) => i.path).sort();
      assert.deepEqual(paths, ["budget", "city", "service_type"]);
    },
  );
  await t.step("misnamed job fields are read as the fields they mean", async () => {
    const { engineer_count: _, ...job } = JOB;
    const res = await app.request(estimateUrl({ ...job, engineers: 4 }));
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.budget_estimate.basis.engineers, 4);
  });
  await t.step("a parameter given twice is 400 invalid_query", async () => {
    const res = await app.request("/api/v1/estimate?city=Zurich&city=Paris&service_type=cabling");
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_query");
  });
});
