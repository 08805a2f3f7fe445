/**
 * A price without a side effect: GET /api/v1/estimate and the estimate_quote tool answer
 * the budget estimate request_quote would store for the same job, and store nothing,
 * notify no one and spend no submission budget.
 */
import assert from "node:assert/strict";
import { sendNotices } from "../../src/review/notifier.ts";
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
    if (e.key[0] !== "rate_counters") out.push(JSON.stringify(e.key));
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
    const sent = await sendNotices({ kv: app.kv, config, now: app.clock.now, log: () => {} });
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
        city: "Londom",
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

Deno.test("hostile or sloppy job fields: refused plainly, matched only where meant", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  await t.step("a 60 KB service_type is refused without being matched", async () => {
    const r = await mcpToolCall(app, "estimate_quote", {
      city: "Zurich",
      service_type: "\ufdfa".repeat(20_000),
    });
    assert.equal(r.isError, true);
    const issues = r.structuredContent.issues as { path: string; message: string }[];
    assert.deepEqual(issues.map((i) => i.path), ["service_type"]);
    assert.match(issues[0]!.message, /at most 200 characters/);
  });
  await t.step("a likely typo with its country or state after it is refused too", async () => {
    for (const city of ["Londom, UK", "Londom England", "Frankfrut, Germany"]) {
      const res = await post(app, "/api/v1/quotes", { ...QUOTE, city, country: undefined });
      assert.equal(res.status, 400, city);
      assert.match((await res.json()).issues[0].message, /did you mean/, city);
    }
  });
  await t.step(
    "a city followed by its province is the city there, not the covered one",
    async () => {
      const res = await app.request(estimateUrl({ ...JOB, city: "London, Ontario" }));
      assert.equal(res.status, 200, "London, CA-ON is a known place outside coverage");
      await res.body?.cancel();
      const on = await (await app.request("/api/v1/locations?city=London%20ON")).json();
      assert.equal(on.coverage.query.country, "CA", "ON is Ontario, no country");
      assert.equal(on.coverage.place.subdivision, "CA-ON");
      assert.equal(on.coverage.covered, false);
    },
  );
  await t.step("a city with no letter is refused", async () => {
    for (const city of [",", " , ", "\u0000"]) {
      const res = await post(app, "/api/v1/quotes", { ...QUOTE, city });
      assert.equal(res.status, 400, JSON.stringify(city));
    }
  });
  await t.step(
    "null for a field lets its synonym be read; an ambiguous name stays extra",
    async () => {
      const res = await post(app, "/api/v1/quotes", {
        ...QUOTE,
        engineer_count: null,
        engineers: 3,
        people: "Jo Doe",
        day: "Tuesday",
      });
      assert.equal(res.status, 202, await res.clone().text());
      assert.equal((await res.json()).budget_estimate.basis.engineers, 3);
    },
  );
  await t.step("a long repeated parameter name is echoed clipped", async () => {
    // Within the query's 8 KiB, so that it is the repetition that is refused.
    const name = "Z".repeat(4_000);
    const res = await app.request(`/api/v1/estimate?${name}=1&${name}=2`);
    assert.equal(res.status, 400);
    assert.ok((await res.text()).length < 1024);
  });
});

Deno.test("GET /api/v1/estimate: an empty parameter is not given, as a form's empty field", async () => {
  await using app = await createApp();
  const empty = await app.request(
    "/api/v1/estimate?city=Frankfurt&service_type=remote-hands&requested_date=&engineer_count=" +
      "&out_of_hours=",
  );
  assert.equal(empty.status, 200, await empty.clone().text());
  const plain = await app.request("/api/v1/estimate?city=Frankfurt&service_type=remote-hands");
  assert.deepEqual(
    (await empty.json()).budget_estimate,
    (await plain.json()).budget_estimate,
  );
  const twice = await app.request(
    "/api/v1/estimate?city=&city=Frankfurt&service_type=remote-hands",
  );
  assert.equal(twice.status, 400, "a name given twice is refused, empty or not");
  assert.match((await twice.json()).message, /city must be given once/);
});

Deno.test("POST /api/v1/estimate is 405 with Allow, saying to use GET or estimate_quote", async (t) => {
  await using app = await createApp();
  for (const method of ["POST", "PUT", "DELETE"]) {
    await t.step(method, async () => {
      const res = await app.request("/api/v1/estimate", {
        method,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ city: "Zurich", service_type: "remote-hands" }),
      });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
      const body = await res.json();
      assert.equal(body.error, "method_not_allowed");
      assert.match(body.message, /^only GET is served here/);
      assert.match(body.message, /GET \/api\/v1\/estimate\?city=Zurich&service_type=remote-hands/);
      assert.match(body.message, /the MCP tool estimate_quote/);
      assert.match(body.message, /POST \/api\/v1\/quotes \(MCP tool request_quote\)/);
    });
  }
  await t.step("docs/api.md says so", async () => {
    const api = (await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url)))
      .replace(/\s+/g, " ");
    assert.match(
      api,
      /is `405 method_not_allowed` with `Allow: GET, HEAD, OPTIONS`, and its message says to send `GET` with the job in the query or call `estimate_quote`/,
    );
  });
  await t.step("and a path without its own words keeps the plain 405", async () => {
    const res = await app.request("/api/v1/services", { method: "POST" });
    assert.equal(res.status, 405);
    assert.equal((await res.json()).message, "this method is not allowed here");
  });
});
