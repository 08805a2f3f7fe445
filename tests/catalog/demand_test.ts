/**
 * Demand outside coverage (issue 38, item 7), through the public handler: every surface that
 * reads a site counts a place read as known but not covered, once its counter flushes;
 * nothing else is counted, and nothing is written on the request path. Then the counter's
 * bound, timers and batches, and two instances over one store.
 */

import assert from "node:assert/strict";
import {
  catalog,
  createApp,
  issueToken,
  mcpToolCall,
  post,
  registerClient,
  type TestApp,
  uncoveredPlaces,
} from "../_helpers.ts";
import { LEAD, QUOTE } from "../_fixtures.ts";
import { checkCoverage } from "../../src/catalog/coverage.ts";
import type { Coverage } from "../../src/catalog/coverage_types.ts";
import { DemandCounter, MAX_PENDING } from "../../src/catalog/demand.ts";
import { demandDay } from "../../src/store/demand.ts";
import { DAY_MS } from "../../src/time.ts";

/** Every stored count, as `name, country: n` under its day. */
async function stored(kv: Deno.Kv): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (
    const e of kv.list<{ n: number; name: string; country: string }>({ prefix: ["demand"] })
  ) {
    out[`${String(e.key[1])} ${e.value.name}, ${e.value.country}`] = e.value.n;
  }
  return out;
}

function locations(app: TestApp, city: string): Promise<Response> {
  return app.request(`/api/v1/locations?${new URLSearchParams({ city })}`);
}

async function ok(res: Promise<Response>, status = 200): Promise<void> {
  const r = await res;
  assert.equal(r.status, status, await r.clone().text());
  await r.body?.cancel();
}

Deno.test("a place read as not covered is counted on every surface that reads a site, once flushed", async (t) => {
  await using app = await createApp();
  const day = demandDay(app.clock.now());
  const token = await issueToken(app, await registerClient(app), "coverage:read");
  const surfaces: [string, () => Promise<unknown>][] = [
    ["GET /api/v1/locations", () => ok(locations(app, "Reykjavik"))],
    [
      "GET /api/v1/agent/coverage",
      () =>
        ok(app.request("/api/v1/agent/coverage?city=Boise", {
          headers: { Authorization: `Bearer ${token}` },
        })),
    ],
    ["MCP check_coverage", () => mcpToolCall(app, "check_coverage", { city: "Timbuktu" })],
    [
      "GET /api/v1/estimate",
      () => ok(app.request("/api/v1/estimate?city=Nairobi&service_type=remote-hands")),
    ],
    [
      "MCP estimate_quote",
      () => mcpToolCall(app, "estimate_quote", { city: "Perth", service_type: "remote-hands" }),
    ],
    ["POST /api/v1/intake", () => ok(post(app, "/api/v1/intake", { ...LEAD, city: "Lagos" }), 202)],
    ["POST /api/v1/quotes", () => ok(post(app, "/api/v1/quotes", { ...QUOTE, city: "Cork" }), 202)],
    [
      "MCP request_quote",
      () => mcpToolCall(app, "request_quote", { ...QUOTE, city: "Anchorage", description: "b" }),
    ],
  ];
  for (const [name, read] of surfaces) {
    await t.step(name, async () => {
      const before = await stored(app.kv);
      await read();
      assert.deepEqual(await stored(app.kv), before, "nothing is written by the request");
      await app.handler.demand.flush();
      assert.equal(Object.keys(await stored(app.kv)).length, Object.keys(before).length + 1);
    });
  }
  assert.deepEqual(await stored(app.kv), {
    [`${day} Anchorage, US`]: 1,
    [`${day} Boise, US`]: 1,
    [`${day} Cork, IE`]: 1,
    [`${day} Lagos, NG`]: 1,
    [`${day} Nairobi, KE`]: 1,
    [`${day} Perth, AU`]: 1,
    [`${day} Reykjavík, IS`]: 1,
    [`${day} Timbuktu, ML`]: 1,
  });
});

Deno.test("a refused submission counts nothing, its place read or not", async () => {
  await using app = await createApp();
  // Valid fields, and one that probably means urgency: refused, as a quote's would be.
  await ok(post(app, "/api/v1/intake", { ...LEAD, city: "Lagos", priority: "emergency" }), 400);
  await ok(post(app, "/api/v1/quotes", { ...QUOTE, city: "Cork", priority: "emergency" }), 400);
  await app.handler.demand.flush();
  assert.deepEqual(await stored(app.kv), {});
});

Deno.test("covered, nearby, ambiguous, unknown and country answers are not counted", async () => {
  await using app = await createApp();
  for (const city of ["Frankfurt", "Offenbach", "Springfield", "zzqx-nowhere-5150", "Germany"]) {
    await ok(locations(app, city));
  }
  await mcpToolCall(app, "check_coverage", { city: "Ashburn" });
  await ok(post(app, "/api/v1/intake", LEAD), 202); // no city at all
  await app.handler.demand.flush();
  assert.deepEqual(await stored(app.kv), {});
});

Deno.test("the same place is counted under one key however it was written, per UTC day", async () => {
  await using app = await createApp();
  const day = demandDay(app.clock.now());
  for (const city of ["Reykjavik", "  REYKJAVÍK ", "reykjavik, iceland"]) {
    await ok(locations(app, city));
  }
  await app.handler.demand.flush();
  app.clock.advance(DAY_MS);
  await ok(locations(app, "Reykjavik"));
  await app.handler.demand.flush();
  assert.deepEqual(await stored(app.kv), {
    [`${day} Reykjavík, IS`]: 3,
    [`${demandDay(app.clock.now())} Reykjavík, IS`]: 1,
  });
  const keys = await Array.fromAsync(app.kv.list({ prefix: ["demand"] }), (e) => e.key);
  assert.deepEqual(keys[0], ["demand", day, "is|is-1|reykjavík"]);
});

Deno.test(`a flood of distinct places holds at most ${MAX_PENDING} place-days pending, and writes them at once`, async () => {
  await using app = await createApp();
  const places = uncoveredPlaces(MAX_PENDING + 50);
  assert.equal(places.length, MAX_PENDING + 50);
  // Each read is answered synchronously: every count is made before any timer runs.
  const reads = places.map((q) => app.request(`/api/v1/locations?${new URLSearchParams(q)}`));
  assert.equal(app.handler.demand.pending, MAX_PENDING);
  await Promise.all(reads.map((r) => ok(r)));
  // A place already pending is still counted; a new one is not.
  assert.equal(app.handler.demand.pending, MAX_PENDING);
  // Reaching the bound starts a batch without waiting for the interval.
  for (let i = 0; i < 100 && Object.keys(await stored(app.kv)).length < MAX_PENDING; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(Object.keys(await stored(app.kv)).length, MAX_PENDING);
  assert.equal(app.handler.demand.pending, 0);
});

/** A coverage answer read as `place`, not covered. */
function uncovered(name: string, country = "IS"): Coverage {
  return {
    ...checkCoverage(catalog(), { city: "Reykjavik" }),
    place: { name, country, subdivision: null, timezone: "UTC" },
  };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a counter writes what is pending once its interval has passed, and no sooner", async () => {
  await using app = await createApp();
  const log: Record<string, unknown>[] = [];
  const demand = new DemandCounter(app.kv, {
    now: app.clock.now,
    log: (r) => log.push(r),
    intervalMs: 100,
  });
  demand.note(uncovered("A"));
  demand.note(uncovered("B"));
  await settle(30);
  assert.deepEqual(await stored(app.kv), {});
  await settle(200);
  assert.equal(Object.keys(await stored(app.kv)).length, 2);
  assert.equal(demand.pending, 0);
  assert.deepEqual(log, []);
});

Deno.test("past its bound a counter writes at once, then not sooner than its gap after the last batch", async () => {
  await using app = await createApp();
  const demand = new DemandCounter(app.kv, {
    now: app.clock.now,
    log: () => {},
    maxPending: 3,
    fullGapMs: 300,
  });
  const count = async () => Object.keys(await stored(app.kv)).length;
  for (const name of ["A", "B", "C"]) demand.note(uncovered(name));
  await settle(50);
  assert.equal(await count(), 3, "the first batch at once");
  for (const name of ["D", "E", "F", "G"]) demand.note(uncovered(name));
  assert.equal(demand.pending, 3, "G is not counted");
  await settle(100);
  assert.equal(await count(), 3, "the next one waits for the gap");
  await settle(350);
  assert.equal(await count(), 6);
  assert.deepEqual(Object.keys(await stored(app.kv)).map((k) => k.split(" ")[1]).sort(), [
    "A,",
    "B,",
    "C,",
    "D,",
    "E,",
    "F,",
  ]);
});
