/**
 * Deciding in the console, `POST /staff/submissions/:id/decision`: the CLI's own decision
 * (review/decide.ts), so the status read, get_request_status and the webhook see a console
 * decision exactly as a CLI one; checked against the versionstamp the page showed, so two
 * reviewers at once get one 303 and one 409 that says to look again, and the record keeps
 * the first decision only.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { sendNotices } from "../../src/review/notifier.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { newRequestId } from "../../src/intake/ids.ts";
import { createApp, mcpToolCall, reviewCli as cli, type TestApp } from "../_helpers.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { signedIn, type Staffer, staffPost } from "./_staff.ts";
import { decideOnPage, linkTo, pageText, shownVersion, storeDump, submit } from "./_review.ts";

async function decideIn(
  app: TestApp,
  who: Staffer,
  id: string,
  fields: Record<string, string>,
): Promise<Response> {
  return await staffPost(app, who, `/staff/submissions/${id}/decision`, fields);
}

/** What the status read answers for `id`, with the id and times left out. */
async function statusOf(app: TestApp, id: string): Promise<Record<string, unknown>> {
  const res = await app.request(`/api/v1/requests/${id}`);
  assert.equal(res.status, 200);
  const { request_id: _, created_at: _c, ...rest } = await res.json();
  return rest;
}

Deno.test("a console decision reads back through GET /api/v1/requests/{id} and get_request_status as a CLI decision does", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app, "Sam Reviewer");
  const byConsole = await submit(app, "quote", QUOTE);
  const byCli = await submit(app, "quote", QUOTE);
  const before = await statusOf(app, byConsole);
  assert.equal(before.status, "pending");

  const res = await decideOnPage(app, sam, byConsole, "approve", "  Quote sent to the customer  ");
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), `/staff/submissions/${byConsole}`);
  assert.equal((await cli(app, "approve", byCli, "--note", "Quote sent")).code, 0);

  const status = await statusOf(app, byConsole);
  assert.equal(status.status, "approved");
  assert.equal(status.decided_at, new Date(app.clock.now()).toISOString());
  assert.deepEqual(status, await statusOf(app, byCli));
  const tool = await mcpToolCall(app, "get_request_status", { request_id: byConsole });
  assert.equal(tool.structuredContent.status, "approved");
  assert.equal(tool.structuredContent.decided_at, status.decided_at);

  const record = (await getSubmission(app.kv, byConsole)).value!;
  assert.deepEqual(record.decision, {
    status: "approved",
    decided_at: status.decided_at,
    by: "Sam Reviewer",
    note: "Quote sent to the customer",
  });
  const after = await pageText(app, sam, `/staff/submissions/${byConsole}`);
  assert.match(after, /<span class="badge status-approved">approved<\/span>/);
  assert.doesNotMatch(after, /name="decision"/);
});

Deno.test("a notice not yet sent goes out after a console decision as after a CLI one", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const byConsole = await submit(app, "lead", LEAD);
  const byCli = await submit(app, "lead", LEAD);
  const res = await decideOnPage(app, sam, byConsole, "reject");
  assert.equal(res.status, 303);
  assert.equal((await cli(app, "reject", byCli)).code, 0);
  const sent: Record<string, unknown>[] = [];
  await sendNotices({
    kv: app.kv,
    config: loadConfig({ REVIEW_WEBHOOK_URL: "https://hooks.test/review" }),
    now: app.clock.now,
    log: () => {},
    fetch: async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)));
      return await Promise.resolve(new Response(null, { status: 204 }));
    },
  });
  const shape = (n: Record<string, unknown>) => ({
    ...n,
    request_id: 0,
    created_at: 0,
    review_command: 0,
  });
  assert.equal(sent.length, 2);
  assert.deepEqual(shape(sent[0]!), shape(sent[1]!));
  for (const id of [byConsole, byCli]) {
    const record = (await getSubmission(app.kv, id)).value!;
    assert.equal(record.notified_via, "webhook");
    assert.equal(record.status, "rejected");
    assert.equal(record.decision?.note, null);
  }
});

Deno.test("two reviewers decide at once: one 303, the other a 409 that says to look again; the first decision stands", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app, "Sam Reviewer");
  const kim = await signedIn(app, "Kim Reviewer");

  await t.step("at the same moment", async () => {
    const id = await submit(app, "lead", LEAD);
    const [samPage, kimPage] = await Promise.all([
      pageText(app, sam, `/staff/submissions/${id}`),
      pageText(app, kim, `/staff/submissions/${id}`),
    ]);
    const answers = await Promise.all([
      decideIn(app, sam, id, {
        versionstamp: shownVersion(samPage),
        decision: "approve",
        note: "Sam",
      }),
      decideIn(app, kim, id, {
        versionstamp: shownVersion(kimPage),
        decision: "reject",
        note: "Kim",
      }),
    ]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [303, 409]);
    const won = answers[0]!.status === 303 ? "Sam" : "Kim";
    const lost = answers.find((r) => r.status === 409)!;
    const text = await lost.text();
    assert.match(text, /<h1>Changed meanwhile<\/h1>/);
    assert.equal(linkTo(text, `Look again at ${id}`), `/staff/submissions/${id}`);
    const record = (await getSubmission(app.kv, id)).value!;
    assert.equal(record.decision?.note, won);
    assert.equal(record.decision?.by, `${won} Reviewer`);
    assert.equal(record.status, won === "Sam" ? "approved" : "rejected");
  });

  await t.step("one after the other, the second from a page read before the first", async () => {
    const id = await submit(app, "lead", LEAD);
    const seen = shownVersion(await pageText(app, kim, `/staff/submissions/${id}`));
    const first = await decideOnPage(app, sam, id, "approve");
    assert.equal(first.status, 303);
    const stored = await storeDump(app.kv);
    const second = await decideIn(app, kim, id, {
      versionstamp: seen,
      decision: "reject",
      note: "",
    });
    assert.equal(second.status, 409);
    assert.equal(second.headers.get("cache-control"), "no-store, private, no-transform");
    assert.match(await second.text(), /Your decision was not recorded/);
    assert.deepEqual(await storeDump(app.kv), stored, "nothing written, no audit entry either");
  });

  await t.step(
    "with the page read again, an already decided submission is a 409 that says so",
    async () => {
      const id = await submit(app, "lead", LEAD);
      assert.equal((await cli(app, "approve", id)).code, 0);
      const fresh = await pageText(app, sam, `/staff/submissions/${id}`);
      assert.doesNotMatch(fresh, /name="versionstamp"/);
      const versionstamp = (await getSubmission(app.kv, id)).versionstamp!;
      const res = await decideIn(app, sam, id, { versionstamp, decision: "reject", note: "" });
      assert.equal(res.status, 409);
      assert.match(await res.text(), new RegExp(`${id} is already approved`));
    },
  );
});

Deno.test("the decide form refuses what it cannot record, and writes nothing", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const id = await submit(app, "lead", LEAD);
  const versionstamp = shownVersion(await pageText(app, sam, `/staff/submissions/${id}`));
  const cases: [string, string, Record<string, string>, number, RegExp][] = [
    [
      "a note over 1,000 characters",
      id,
      { versionstamp, decision: "approve", note: "n".repeat(1001) },
      400,
      /note must be at most 1000 characters/,
    ],
    ["no decision", id, { versionstamp, note: "" }, 400, /decision must be approve or reject/],
    [
      "another decision",
      id,
      { versionstamp, decision: "order", note: "" },
      400,
      /decision must be approve or reject/,
    ],
    ["no versionstamp", id, { decision: "approve", note: "" }, 400, /reload it/],
    [
      "no such submission",
      newRequestId("lead", app.clock.now()),
      { versionstamp, decision: "approve" },
      404,
      /no submission/,
    ],
    ["not a request id", "lead_1", { versionstamp, decision: "approve" }, 404, /no submission/],
  ];
  const stored = await storeDump(app.kv);
  for (const [name, target, fields, status, message] of cases) {
    const res = await decideIn(app, sam, target, fields);
    assert.equal(res.status, status, name);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8", name);
    assert.match(await res.text(), message, name);
  }
  assert.deepEqual(await storeDump(app.kv), stored);
  // A note of exactly 1,000 characters is kept.
  const res = await decideIn(app, sam, id, {
    versionstamp,
    decision: "approve",
    note: "n".repeat(1000),
  });
  assert.equal(res.status, 303);
  assert.equal((await getSubmission(app.kv, id)).value?.decision?.note?.length, 1000);
});
