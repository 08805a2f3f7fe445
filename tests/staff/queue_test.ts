/**
 * The console's queue, `GET /staff/`: the rows `deno task review list` prints (the same
 * function reads them), newest first and urgent first within a page, each with its notice's
 * state; the status and kind filters; paging by `before` exactly as `--before` goes on; and
 * an empty state that says why nothing is listed.
 */

import assert from "node:assert/strict";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { createApp, failDelivery, reviewCli as cli } from "../_helpers.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { signedIn, staffGet } from "./_staff.ts";
import { linkTo, logNotices, pageText, rowIds, submit } from "./_review.ts";

Deno.test("GET /staff/ lists newest first, urgent first within the page, with each notice's state", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const plain = await submit(app, "lead", LEAD);
  // Its notice goes out with no webhook configured: "logged".
  await logNotices(app);
  const emergency = await submit(app, "quote", { ...QUOTE, urgency: "emergency" });
  const asap = await submit(app, "lead", { ...LEAD, urgency: "asap" });
  // Their notices' first delivery fails: "retrying".
  await failDelivery(app);
  const newest = await submit(app, "lead", { ...LEAD, company: "Newest Ltd" });

  const page = await pageText(app, sam, STAFF_PATHS.queue);
  assert.deepEqual(rowIds(page), [emergency, asap, newest, plain]);
  const row = (id: string) =>
    page.slice(page.indexOf(`data-request-id="${id}"`)).split("</tr>")[0]!;
  assert.match(row(emergency), /class="urgent-row"/);
  assert.match(row(emergency), /<strong class="urgent urgent-emergency">Emergency<\/strong>/);
  assert.match(row(asap), /<strong class="urgent urgent-asap">ASAP<\/strong>/);
  assert.doesNotMatch(row(newest), /urgent/);
  assert.match(row(plain), /<span class="badge notify-logged">logged<\/span>/);
  assert.match(row(asap), /<span class="badge notify-retrying">retrying<\/span>/);
  assert.match(row(newest), /<span class="badge notify-pending">pending<\/span>/);
  assert.match(row(newest), /<td>Newest Ltd<\/td>/);
  assert.match(row(emergency), new RegExp(`<a href="/staff/submissions/${emergency}">`));
  assert.match(row(plain), /<span class="badge status-pending">pending<\/span>/);

  // The CLI's list of the same store: the same rows in the same order, the same states.
  const listed = JSON.parse((await cli(app, "list", "--json")).out);
  assert.deepEqual(listed.map((i: { request_id: string }) => i.request_id), rowIds(page));
  assert.deepEqual(listed.map((i: { notification: string }) => i.notification), [
    "retrying",
    "retrying",
    "pending",
    "logged",
  ]);
});

Deno.test("GET /staff/ filters by status and kind, and refuses a filter it does not know", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const lead = await submit(app, "lead", LEAD);
  const quote = await submit(app, "quote", QUOTE);
  const decided = await submit(app, "lead", LEAD);
  assert.equal((await cli(app, "reject", decided)).code, 0);

  await t.step("kind", async () => {
    assert.deepEqual(rowIds(await pageText(app, sam, "/staff/?kind=quote")), [quote]);
    assert.deepEqual(rowIds(await pageText(app, sam, "/staff/?kind=lead")), [decided, lead]);
  });
  await t.step("status, and both", async () => {
    assert.deepEqual(rowIds(await pageText(app, sam, "/staff/?status=rejected")), [decided]);
    const both = await pageText(app, sam, "/staff/?status=pending&kind=lead");
    assert.deepEqual(rowIds(both), [lead]);
    assert.match(both, /<option value="pending"\s+selected\s*>/);
    assert.match(both, /<option value="lead"\s+selected\s*>/);
  });
  await t.step("a form left at 'any' sends empty fields: no filter", async () => {
    const any = await pageText(app, sam, "/staff/?status=&kind=");
    assert.deepEqual(rowIds(any), [decided, quote, lead]);
  });
  await t.step("an unknown value is a 400 page that says which", async () => {
    const cases: [string, string][] = [
      ["status=done", "status must be pending, approved or rejected"],
      ["kind=order", "kind must be lead or quote"],
      ["limit=0", "limit must be a whole number from 1 to 1000"],
      ["before=lead_1", "before takes a request id from a list"],
    ];
    for (const [query, message] of cases) {
      const res = await staffGet(app, sam, `/staff/?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
      assert.ok((await res.text()).includes(message), query);
    }
  });
});

Deno.test("GET /staff/ pages as review list does: the Next page link goes on from the page's oldest row", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    // Every third one is an emergency: it leads its page wherever it stands in it.
    ids.push(await submit(app, "lead", i % 3 === 1 ? { ...LEAD, urgency: "emergency" } : LEAD));
  }
  const seen: string[] = [];
  let path: string | undefined = "/staff/?limit=3";
  let before: string | undefined;
  for (let pages = 0; path; pages++) {
    assert.ok(pages < 5, "the pages end");
    const page = await pageText(app, sam, path);
    const rows = rowIds(page);
    // The CLI's page with the same cursor: the same rows, and the same cursor after them.
    const run = await cli(
      app,
      "list",
      "--limit",
      "3",
      "--json",
      ...(before ? ["--before", before] : []),
    );
    assert.deepEqual(JSON.parse(run.out).map((i: { request_id: string }) => i.request_id), rows);
    seen.push(...rows);
    path = linkTo(page, "Next page");
    const cursor = path ? new URL(path, app.config.baseUrl).searchParams.get("before")! : undefined;
    assert.equal(run.err.match(/--before (\S+)/)?.[1], cursor);
    if (path) assert.match(path, /^\/staff\/\?limit=3&before=lead_/);
    before = cursor;
  }
  // Each submission once, newest first but for the urgent ones leading their page.
  assert.deepEqual([...seen].sort(), [...ids].sort());
  assert.equal(new Set(seen).size, ids.length);
});

Deno.test("GET /staff/ says why nothing is listed", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const empty = await pageText(app, sam, STAFF_PATHS.queue);
  assert.match(empty, /No submissions yet\./);
  assert.doesNotMatch(empty, /<table class="queue"/);
  const id = await submit(app, "lead", LEAD);
  assert.match(
    await pageText(app, sam, "/staff/?kind=quote"),
    /No submissions match these filters\./,
  );
  assert.match(await pageText(app, sam, `/staff/?before=${id}`), /No older submissions\./);
  assert.doesNotMatch(await pageText(app, sam, `/staff/?before=${id}`), /Next page/);
});

Deno.test("GET /staff/ without a session is 303 to sign-in, and reads nothing", async () => {
  await using app = await createApp();
  await submit(app, "lead", LEAD);
  const res = await staffGet(app, null, STAFF_PATHS.queue);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), STAFF_PATHS.signIn);
  assert.equal(await res.text(), "");
});

Deno.test("a queue page looks through at most 1,000 submissions, then its Next page looks further", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const quote = await submit(app, "quote", QUOTE);
  for (let i = 0; i < 1_010; i++) await submit(app, "lead", LEAD);

  const first = await pageText(app, sam, "/staff/?kind=quote");
  assert.deepEqual(rowIds(first), []);
  assert.match(first, /No submissions match these filters\./);
  assert.match(
    first,
    /Looked through 1000 submissions for these filters; the next page looks further\./,
  );
  const next = linkTo(first, "Next page")!;
  assert.match(next, /^\/staff\/\?kind=quote&limit=50&before=lead_/);
  const second = await pageText(app, sam, next);
  assert.deepEqual(rowIds(second), [quote]);
  assert.doesNotMatch(second, /Next page|Looked through/);
  // The CLI reads on until its page is full, or the index ends.
  const listed = JSON.parse((await cli(app, "list", "--kind", "quote", "--json")).out);
  assert.deepEqual(listed.map((i: { request_id: string }) => i.request_id), [quote]);
});
