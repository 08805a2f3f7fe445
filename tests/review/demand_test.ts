/**
 * `deno task review demand` (issue 38, item 7): the places outside coverage asked about most,
 * as the console's demand page shows them (tests/staff/demand_test.ts), as a table or JSON.
 */

import assert from "node:assert/strict";
import { createApp, mcpToolCall, reviewCli, type TestApp } from "../_helpers.ts";
import { demandDay } from "../../src/store/demand.ts";
import { DAY_MS } from "../../src/time.ts";

async function locations(app: TestApp, city: string): Promise<void> {
  const res = await app.request(`/api/v1/locations?${new URLSearchParams({ city })}`);
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

/** Reykjavík asked for three times over two days, Boise once. */
async function asked(app: TestApp): Promise<void> {
  await locations(app, "Reykjavik");
  await app.handler.demand.flush();
  app.clock.advance(DAY_MS);
  await locations(app, "reykjavik");
  await locations(app, "Reykjavik, Iceland");
  await mcpToolCall(app, "check_coverage", { city: "Boise" });
  await app.handler.demand.flush();
}

Deno.test("deno task review demand: the same places, as a table or JSON, over --days and --limit", async (t) => {
  await using app = await createApp();
  await asked(app);
  const today = demandDay(app.clock.now());
  await t.step("a table, and what it covers on stderr", async () => {
    const { code, out, err } = await reviewCli(app, "demand");
    assert.equal(code, 0);
    assert.deepEqual(out.split("\n").map((l) => l.split(/\s{2,}/)), [
      ["PLACE", "SUBDIVISION", "COUNTRY", "REQUESTS", "DAYS"],
      ["Reykjavík", "IS-1", "IS", "3", "2"],
      ["Boise", "US-ID", "US", "1", "1"],
    ]);
    assert.equal(
      err,
      `2 of 2 places outside coverage, ${
        demandDay(app.clock.now() - 29 * DAY_MS)
      } to ${today} (UTC)`,
    );
  });
  await t.step("--json, --days 1, --limit 1", async () => {
    const { code, out } = await reviewCli(app, "demand", "--json", "--days", "1", "--limit", "1");
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(out), {
      days: 1,
      from: today,
      to: today,
      places: 2,
      rows: [{ name: "Reykjavík", country: "IS", subdivision: "IS-1", requests: 2, days: 1 }],
      cut: [],
    });
  });
  await t.step("nothing in the days asked: says so", async () => {
    app.clock.advance(3 * DAY_MS);
    const { code, out } = await reviewCli(app, "demand", "--days", "2");
    assert.equal(code, 0);
    assert.match(out, /^no place outside coverage asked about from \d{4}-\d\d-\d\d to /);
  });
  await t.step("out of range or an argument: a usage error", async () => {
    for (
      const args of [["--days", "0"], ["--days", "41"], ["--limit", "1001"], ["--days", "x"], ["x"]]
    ) {
      const { code, err } = await reviewCli(app, "demand", ...args);
      assert.equal(code, 2, args.join(" "));
      assert.match(err, /^error: /);
    }
  });
  await t.step("--help names it", async () => {
    const usage = (await reviewCli(app, "--help")).out.split("\n");
    assert.ok(usage.includes("  demand [--days N] [--limit N] [--json]"));
    assert.match((await reviewCli(app, "demand", "--help")).out, /^usage: deno task review demand/);
  });
});
