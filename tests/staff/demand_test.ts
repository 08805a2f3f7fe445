/**
 * The console's demand page (issue 38, item 7): the places outside coverage asked about
 * most, aggregated, for staff only; `deno task review demand` prints the same
 * (tests/review/demand_test.ts). What a caller typed is
 * kept nowhere: a city that resolves to no place is not counted, and a place is shown under
 * the gazetteer's name, whatever spelling asked for it.
 */

import assert from "node:assert/strict";
import { createApp, listen, mcpToolCall, reviewCli, type TestApp } from "../_helpers.ts";
import { ARTIFACTS, browserIgnored, launch } from "../_browser.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { demandDay } from "../../src/store/demand.ts";
import { DAY_MS } from "../../src/time.ts";
import { signedIn, staffGet } from "./_staff.ts";
import { linkTo, pageText } from "./_review.ts";

/** Typed by a caller in every city below that resolves to no place. */
const MARKER = "zq-marker-7731";

async function locations(app: TestApp, city: string): Promise<void> {
  const res = await app.request(`/api/v1/locations?${new URLSearchParams({ city })}`);
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

/** Reykjavík asked for three times over two days (two spellings), Boise once, the marker thrice. */
async function asked(app: TestApp): Promise<void> {
  await locations(app, "  REYKJAVIK ");
  await locations(app, `${MARKER} city`);
  await mcpToolCall(app, "check_coverage", { city: MARKER });
  await app.handler.demand.flush();
  app.clock.advance(DAY_MS);
  await locations(app, "reykjavik");
  await locations(app, "Reykjavik, Iceland");
  await mcpToolCall(app, "check_coverage", { city: "Boise" });
  const res = await app.request(`/api/v1/estimate?city=${MARKER}&service_type=remote-hands`);
  await res.body?.cancel();
  await app.handler.demand.flush();
}

/** The cells of a page's table rows, as text. */
function rows(page: string): string[][] {
  const body = page.match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1] ?? "";
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) =>
    [...tr[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((td) =>
      td[1]!.replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim()
    )
  );
}

Deno.test("GET /staff/demand: the places most asked for, aggregated, in a table every column of which is named", async () => {
  await using app = await createApp();
  await asked(app);
  const sam = await signedIn(app); // after the day asked() lets pass: a session lasts 12 h
  const res = await staffGet(app, sam, STAFF_PATHS.demand);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform");
  const page = await res.text();
  assert.match(page, /<h1>Demand outside coverage<\/h1>/);
  const headers = [...page.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
  assert.deepEqual(headers, ["Place", "Country", "Requests in 30 days", "Days seen"]);
  assert.deepEqual(rows(page), [
    ["Reykjavík IS-1", "Iceland", "3", "2"],
    ["Boise US-ID", "United States", "1", "1"],
  ]);
  const from = demandDay(app.clock.now() - 29 * DAY_MS);
  assert.match(page, new RegExp(`from ${from} to ${demandDay(app.clock.now())}`));
  assert.equal(linkTo(page, "Demand"), STAFF_PATHS.demand, "the navigation links to it");
  assert.equal(linkTo(await pageText(app, sam, STAFF_PATHS.queue), "Demand"), STAFF_PATHS.demand);
});

Deno.test("what a caller typed appears nowhere: not in the store, the page or the CLI", async () => {
  await using app = await createApp();
  await asked(app);
  const sam = await signedIn(app); // after the day asked() lets pass: a session lasts 12 h
  const dump: string[] = [];
  for await (const e of app.kv.list({ prefix: [] })) dump.push(JSON.stringify([e.key, e.value]));
  const page = await pageText(app, sam, STAFF_PATHS.demand);
  const cli = await reviewCli(app, "demand");
  const json = await reviewCli(app, "demand", "--json");
  for (const text of [dump.join("\n"), page, cli.out, cli.err, json.out]) {
    assert.ok(!text.includes(MARKER), "the marker is kept nowhere");
    assert.ok(!/REYKJAVIK|reykjavik/.test(text), "nor a caller's spelling of a place");
  }
  assert.match(page, /Reykjavík/);
});

Deno.test("GET /staff/demand is for staff: anonymous → 303 to sign-in; nothing counted → says so", async () => {
  await using app = await createApp();
  const anonymous = await staffGet(app, null, STAFF_PATHS.demand);
  assert.equal(anonymous.status, 303);
  assert.equal(anonymous.headers.get("location"), STAFF_PATHS.signIn);
  const sam = await signedIn(app);
  const page = await pageText(app, sam, STAFF_PATHS.demand);
  assert.match(page, /No place outside coverage was asked about in these 30 days\./);
  assert.doesNotMatch(page, /<table/);
});

Deno.test({
  name: "the demand page reflows at 320 px: nothing wider than the window, its table included",
  ignore: browserIgnored("staff/demand_test"),
  async fn() {
    await using app = await listen();
    await asked(app);
    const sam = await signedIn(app);
    await using browser = await launch();
    const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
    const [name, value] = sam.cookie.split("=") as [string, string];
    await context.addCookies([{ name, value, url: app.baseUrl }]);
    const page = await context.newPage();
    await page.goto(`${app.baseUrl}${STAFF_PATHS.demand}`);
    await page.locator("table.demand").waitFor();
    const widths = await page.evaluate(() => {
      // deno-lint-ignore no-explicit-any
      const doc = (globalThis as any).document;
      const table = doc.querySelector("table.demand");
      return {
        page: doc.documentElement.scrollWidth - doc.documentElement.clientWidth,
        table: table.scrollWidth - table.clientWidth,
      };
    });
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({
      path: new URL("staff-demand-320.png", ARTIFACTS).pathname,
      fullPage: true,
    });
    assert.deepEqual(widths, { page: 0, table: 0 });
  },
});
