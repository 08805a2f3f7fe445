/**
 * What every console review page and form holds to: each form refuses a foreign `Origin`,
 * a missing one, a missing or wrong form token and a missing session, and writes nothing;
 * each page is `no-store`, framed by nobody and under the site's CSP, errors included, and
 * opens for a session cookie only; the audit trail lists every action and no submitted
 * text; no log line holds anything personal.
 */

import assert from "node:assert/strict";
import { CONTENT_SECURITY_POLICY } from "../../src/web/pages.ts";
import { STAFF_HEADERS } from "../../src/staff/html.ts";
import { newRequestId } from "../../src/intake/ids.ts";
import {
  createApp,
  issueToken,
  registerClient,
  reviewCli as cli,
  type TestApp,
} from "../_helpers.ts";
import { QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { signedIn, type Staffer, staffGet, staffPost } from "./_staff.ts";
import { pageText, shownVersion, storeDump, submit } from "./_review.ts";

const SUBMITTER = {
  ...QUOTE,
  company: "Zanzibar Holdings",
  contact_name: "Quentin Quarrington",
  email: "quentin.q@zanzibar.example",
  description: "Replace the fan tray in rack Q7",
  phone: "+41 44 555 0199",
};
const NOTE = "Phoned Quentin about the fan tray";

/** Every form of the review pages, with fields that would change something. */
async function forms(app: TestApp, sam: Staffer): Promise<[string, Record<string, string>][]> {
  const id = await submit(app, "quote", SUBMITTER);
  const other = await submit(app, "quote", SUBMITTER);
  const versionstamp = shownVersion(await pageText(app, sam, `/staff/submissions/${id}`));
  const client = await registerClient(app);
  return [
    [`/staff/submissions/${id}/decision`, { versionstamp, decision: "approve", note: NOTE }],
    [`/staff/submissions/${other}/erase`, { confirm: "yes" }],
    ["/staff/erase-email", { email: SUBMITTER.email, confirm: "yes" }],
    ["/staff/erase-email", { email: SUBMITTER.email }],
    ["/staff/clients", { client_id: client.client_id }],
  ];
}

Deno.test("every console form refuses a foreign or missing Origin, a missing or wrong token, and no session, writing nothing", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app, "Sam Reviewer");
  const kim = await signedIn(app, "Kim Reviewer");
  const table = await forms(app, sam);
  const stored = await storeDump(app.kv);
  const refusals: [
    string,
    (path: string, f: Record<string, string>) => Promise<Response>,
    number,
  ][] = [
    ["a foreign Origin", (p, f) => staffPost(app, sam, p, f, { origin: "https://evil.test" }), 403],
    ["no Origin", (p, f) => staffPost(app, sam, p, f, { origin: null }), 403],
    ["Origin null", (p, f) => staffPost(app, sam, p, f, { origin: "null" }), 403],
    ["no form token", (p, f) => staffPost(app, sam, p, f, { csrf: null }), 403],
    ["a made-up token", (p, f) => staffPost(app, sam, p, f, { csrf: "x".repeat(43) }), 403],
    ["another member's token", (p, f) => staffPost(app, sam, p, f, { csrf: kim.csrf }), 403],
    ["no session", (p, f) => staffPost(app, { ...sam, cookie: "dcfs=none" }, p, f), 401],
  ];
  for (const [path, fields] of table) {
    for (const [name, send, status] of refusals) {
      await t.step(`${path} ${fields.confirm ?? ""}: ${name} is ${status}`, async () => {
        const res = await send(path, fields);
        assert.equal(res.status, status);
        assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
        assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform");
        await res.body?.cancel();
      });
    }
  }
  assert.deepEqual(await storeDump(app.kv), stored, "nothing was written");
  await t.step("and each, sent properly, is done", async () => {
    for (const [path, fields] of table) {
      const res = await staffPost(app, sam, path, fields);
      assert.ok([200, 303].includes(res.status), `${path}: ${res.status}`);
      await res.body?.cancel();
    }
  });
});

Deno.test("every console page is no-store, framed by nobody, under the CSP, and opens for a session cookie only", async (t) => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const id = await submit(app, "quote", SUBMITTER);
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const pages: [string, number][] = [
    ["/staff/", 200],
    [`/staff/submissions/${id}`, 200],
    ["/staff/erase-email", 200],
    ["/staff/clients", 200],
    ["/staff/audit", 200],
    ["/staff/?status=done", 400],
    ["/staff/audit?before=yesterday", 400],
    [`/staff/submissions/${newRequestId("lead", app.clock.now())}`, 404],
  ];
  for (const [path, status] of pages) {
    await t.step(`${path}: ${status}`, async () => {
      const res = await staffGet(app, sam, path);
      assert.equal(res.status, status);
      for (const [name, value] of Object.entries(STAFF_HEADERS)) {
        assert.equal(res.headers.get(name), value, name);
      }
      assert.equal(res.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
      assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
      const text = await res.text();
      assert.doesNotMatch(text, /<script|style=/, "no script, no inline style");
    });
    await t.step(`${path}: no session, or a Bearer token, is 303 to sign-in`, async () => {
      for (
        const headers of [{}, { Authorization: `Bearer ${token}` }] as Record<string, string>[]
      ) {
        const res = await app.request(path, { headers, redirect: "manual" });
        assert.equal(res.status, 303);
        assert.equal(res.headers.get("location"), "/staff/sign-in");
        await res.body?.cancel();
      }
    });
  }
});

Deno.test("the audit trail lists every action, who and from which session, and no submitted text; no log line is personal", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app, "Sam Reviewer");
  const approved = await submit(app, "quote", SUBMITTER);
  const rejected = await submit(app, "quote", SUBMITTER);
  const erased = await submit(app, "quote", { ...SUBMITTER, email: "other@zanzibar.example" });
  const byCli = await submit(app, "quote", { ...SUBMITTER, email: "cli@zanzibar.example" });
  const client = await registerClient(app);
  // A second between actions: entries of one millisecond are ordered by their random id.
  const act = async (path: string, fields: Record<string, string>, status: number) => {
    app.clock.advance(1_000);
    const res = await staffPost(app, sam, path, fields);
    assert.equal(res.status, status, path);
    await res.body?.cancel();
  };
  for (const [id, decision] of [[approved, "approve"], [rejected, "reject"]]) {
    const versionstamp = shownVersion(await pageText(app, sam, `/staff/submissions/${id}`));
    await act(`/staff/submissions/${id}/decision`, {
      versionstamp,
      decision: decision!,
      note: NOTE,
    }, 303);
  }
  await act(`/staff/submissions/${erased}/erase`, { confirm: "yes" }, 303);
  await act("/staff/erase-email", { email: SUBMITTER.email }, 200);
  await act("/staff/erase-email", { email: SUBMITTER.email, confirm: "yes" }, 303);
  await act("/staff/clients", { client_id: client.client_id }, 303);
  app.clock.advance(1_000);
  assert.equal((await cli(app, "approve", byCli, "--note", NOTE, "--by", "Grace Hopper")).code, 0);

  const page = await pageText(app, sam, "/staff/audit");
  const rows = [...page.matchAll(/<tr data-entry-id="[^"]+">([\s\S]*?)<\/tr>/g)]
    .map((m) => m[1]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim());
  const named = `Sam Reviewer ${sam.member.member_id}`;
  const tag = rows[1]!.match(new RegExp(`${named} (\\S+)`))![1]!;
  assert.match(tag, /^[A-Za-z0-9_-]{8}$/);
  assert.deepEqual(rows.map((r) => r.replace(/^\S+ \S+ UTC /, "")), [
    `cli cli approve ${byCli} with a note`,
    `${named} ${tag} disable_client ${client.client_id} –`,
    `${named} ${tag} erase_email – 2 submissions`,
    `${named} ${tag} erase ${erased} –`,
    `${named} ${tag} reject ${rejected} with a note`,
    `${named} ${tag} approve ${approved} with a note`,
  ]);
  assert.match(page, new RegExp(`<a href="/staff/submissions/${byCli}">`));

  const trail = JSON.stringify(await Array.fromAsync(app.kv.list({ prefix: ["staff_audit"] })));
  const trailOf = JSON.stringify(
    await Array.fromAsync(app.kv.list({ prefix: ["staff_audit_of"] })),
  );
  const personal = [
    "Quentin",
    "Zanzibar",
    "zanzibar",
    "fan tray",
    "555 0199",
    "Grace",
    "Phoned",
    sam.csrf,
    sam.cookie.split("=")[1]!,
  ];
  for (const text of personal) {
    assert.ok(!trail.includes(text) && !trailOf.includes(text), `the trail holds ${text}`);
  }
  const logs = JSON.stringify(app.logs);
  for (const text of [...personal, "Sam Reviewer", sam.member.member_id]) {
    assert.ok(!logs.includes(text), `a log line holds ${text}`);
  }
});

Deno.test("the audit page goes on to older entries through its Next page link", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const ids: string[] = [];
  for (let i = 0; i < 52; i++) {
    ids.push(await submit(app, "quote", { ...QUOTE, description: `job ${i}` }));
  }
  for (const id of ids) {
    app.clock.advance(1); // entries of one millisecond are ordered by their random id
    assert.equal((await cli(app, "reject", id)).code, 0);
  }
  const first = await pageText(app, sam, "/staff/audit");
  const targets = (page: string) =>
    [...page.matchAll(/<a href="\/staff\/submissions\/([^"]+)">/g)].map((m) => m[1]!);
  assert.equal(targets(first).length, 50);
  const next = first.match(/<a class="next" rel="next" href="([^"]+)">Next page<\/a>/)![1]!;
  const second = await pageText(app, sam, next);
  assert.deepEqual([...targets(first), ...targets(second)], ids.toReversed());
  assert.doesNotMatch(second, /Next page/);
  assert.match(await pageText(app, sam, "/staff/audit"), /<table class="audit">/);
  await using empty = await createApp();
  const nobody = await signedIn(empty);
  assert.match(await pageText(empty, nobody, "/staff/audit"), /No staff action is recorded yet\./);
});
