/**
 * Erasing and disabling from the console: one submission (confirmed), every submission of
 * an email address (a dry run first that erases nothing, then the erasure), and an agent
 * client, whose Bearer tokens are refused from then on. Each action is in the audit trail,
 * the address never is.
 */

import assert from "node:assert/strict";
import { getSubmission } from "../../src/store/submissions.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { newRequestId } from "../../src/intake/ids.ts";
import {
  bearerGet,
  createApp,
  issueToken,
  registerClient,
  type TestApp,
  tokenRequest,
} from "../_helpers.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { signedIn, staffGet, staffPost } from "./_staff.ts";
import { linkTo, pageText, rowIds, storeDump, submit } from "./_review.ts";

async function auditOf(app: TestApp) {
  return await listAudit(app.kv, app.clock.now(), 100);
}

Deno.test("erase one submission: confirmed, in one commit with its audit entry, then the queue says so", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const id = await submit(app, "lead", LEAD);
  const keep = await submit(app, "quote", QUOTE);
  const path = `/staff/submissions/${id}/erase`;

  const stored = await storeDump(app.kv);
  for (const confirm of [{}, { confirm: "no" }] as Record<string, string>[]) {
    const res = await staffPost(app, sam, path, confirm);
    assert.equal(res.status, 400);
    assert.match(await res.text(), /confirm the erasure/);
  }
  assert.deepEqual(await storeDump(app.kv), stored, "unconfirmed: nothing erased");

  const res = await staffPost(app, sam, path, { confirm: "yes" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), `/staff/?erased=${id}`);
  assert.equal((await getSubmission(app.kv, id)).value, null);
  assert.ok((await getSubmission(app.kv, keep)).value);
  assert.equal((await app.request(`/api/v1/requests/${id}`)).status, 404);
  const queue = await pageText(app, sam, res.headers.get("location")!);
  assert.match(queue, new RegExp(`Erased ${id}, with its stored request and its notice\\.`));
  assert.deepEqual(rowIds(queue), [keep]);
  assert.equal((await staffGet(app, sam, `/staff/submissions/${id}`)).status, 404);

  const [entry] = await auditOf(app);
  assert.equal(entry?.action, "erase");
  assert.equal(entry?.target, id);
  assert.equal(entry?.member_id, sam.member.member_id);

  const again = await staffPost(app, sam, path, { confirm: "yes" });
  assert.equal(again.status, 404);
  const unknown = newRequestId("lead", app.clock.now());
  assert.equal(
    (await staffPost(app, sam, `/staff/submissions/${unknown}/erase`, { confirm: "yes" })).status,
    404,
  );
  assert.equal((await auditOf(app)).length, 1, "nothing erased, nothing recorded");
});

Deno.test("erase by email: the dry run lists and erases nothing; confirmed, they go and the trail keeps a count", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const email = "Jane.Doe@example.com";
  const hers = [
    await submit(app, "lead", { ...LEAD, email }),
    await submit(app, "quote", { ...QUOTE, email: email.toLowerCase() }),
  ];
  const other = await submit(app, "lead", LEAD);

  await t.step("the form", async () => {
    const page = await pageText(app, sam, "/staff/erase-email");
    assert.match(page, /<input id="email" name="email" type="email"/);
    assert.match(page, /<button type="submit" class="btn btn-primary">Find submissions<\/button>/);
  });
  await t.step("the dry run lists them, with a form to confirm, and erases nothing", async () => {
    const stored = await storeDump(app.kv);
    const res = await staffPost(app, sam, "/staff/erase-email", {
      email: ` ${email.toUpperCase()} `,
    });
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.deepEqual(rowIds(page).sort(), [...hers].sort());
    assert.match(page, /<input type="hidden" name="confirm" value="yes">/);
    assert.match(
      page,
      /<button type="submit" class="btn btn-danger">Erase 2 submissions<\/button>/,
    );
    assert.deepEqual(await storeDump(app.kv), stored);
    assert.deepEqual(await auditOf(app), []);
  });
  await t.step("an address with none says so, with no button", async () => {
    const res = await staffPost(app, sam, "/staff/erase-email", { email: "nobody@example.com" });
    const page = await res.text();
    assert.match(page, /Nothing to erase/);
    assert.doesNotMatch(page, /Erase \d/);
  });
  await t.step("not an address: 400", async () => {
    for (const bad of ["", "jane", "a@".padEnd(321, "x")]) {
      const res = await staffPost(app, sam, "/staff/erase-email", { email: bad });
      assert.equal(res.status, 400, bad);
      await res.body?.cancel();
    }
  });
  await t.step("confirmed: erased, 303 to the count, the other kept", async () => {
    const res = await staffPost(app, sam, "/staff/erase-email", { email, confirm: "yes" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/staff/erase-email?erased=2");
    for (const id of hers) assert.equal((await getSubmission(app.kv, id)).value, null);
    assert.ok((await getSubmission(app.kv, other)).value);
    const page = await pageText(app, sam, res.headers.get("location")!);
    assert.match(page, /Erased 2 submissions/);
  });
  await t.step("the audit trail has the count, never the address; no log line has it", async () => {
    const entries = await auditOf(app);
    assert.equal(entries.length, 1);
    assert.deepEqual(
      { action: entries[0]!.action, target: entries[0]!.target, detail: entries[0]!.detail },
      { action: "erase_email", target: null, detail: "2 submissions" },
    );
    const trail = JSON.stringify(await Array.fromAsync(app.kv.list({ prefix: ["staff_audit"] })));
    assert.ok(!/jane/i.test(trail));
    assert.ok(!/jane/i.test(JSON.stringify(app.logs)));
    assert.ok(app.logs.every((l) => !String(l.path).includes("?")));
  });
});

Deno.test("disable a client from the console: its Bearer token is refused at once, its token requests get invalid_client", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const ok = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(ok.status, 200);
  await ok.body?.cancel();

  const page = await pageText(app, sam, "/staff/clients");
  assert.match(page, /<input id="client_id" name="client_id"/);
  assert.match(page, /<button type="submit" class="btn btn-danger">Disable client<\/button>/);

  const res = await staffPost(app, sam, "/staff/clients", { client_id: client.client_id });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), `/staff/clients?disabled=${client.client_id}`);
  const refused = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  const again = await tokenRequest(app, client, { grant_type: "client_credentials" });
  assert.equal(again.status, 401);
  assert.equal((await again.json()).error, "invalid_client");
  const after = await pageText(app, sam, res.headers.get("location")!);
  assert.match(after, new RegExp(`${client.client_id} is disabled since <time`));

  const [entry] = await auditOf(app);
  assert.deepEqual(
    { action: entry?.action, target: entry?.target, actor: entry?.actor },
    { action: "disable_client", target: client.client_id, actor: sam.member.name },
  );
  // Disabled already: 303 again, nothing new in the trail.
  assert.equal(
    (await staffPost(app, sam, "/staff/clients", { client_id: client.client_id })).status,
    303,
  );
  assert.equal((await auditOf(app)).length, 1);

  const unknown = await staffPost(app, sam, "/staff/clients", { client_id: "agt_nope" });
  assert.equal(unknown.status, 404);
  assert.match(await unknown.text(), /no client agt_nope/);
  const bad = await staffPost(app, sam, "/staff/clients", { client_id: "<script>" });
  assert.equal(bad.status, 400);
  assert.doesNotMatch(await bad.text(), /<script>/);
  assert.equal(linkTo(after, "Audit trail"), "/staff/audit");
});
