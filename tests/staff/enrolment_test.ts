/**
 * Enrolling staff members with a passkey (issue 28, point 2): by an invite the CLI or the
 * console made, or by STAFF_ENROL_CODE; each one-time, each refused once spent or expired.
 */

import assert from "node:assert/strict";
import { createApp } from "../_helpers.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { getMember, listMembers, passkeysOfMember } from "../../src/store/staff.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { INVITE_TTL_MS } from "../../src/staff/invites.ts";
import { CEREMONY_TTL_MS } from "../../src/staff/ceremony.ts";
import { SoftAuthenticator } from "./_authenticator.ts";
import { ceremonyPost, cliInvite, enrolWith, memberOf } from "./_ceremony.ts";
import { staffGet } from "./_staff.ts";

const CODE = "first-member-code-K3nv8pLx2Qw7";

Deno.test("an invite the CLI printed enrols its member once, signed in, with audit entries", async () => {
  await using app = await createApp();
  const { link, token } = await cliInvite(app, "Sam Reviewer");
  assert.ok(link.startsWith(`${app.config.baseUrl}${STAFF_PATHS.enrol}#invite=`), link);
  app.clock.advance(1000); // the audit trail orders entries by time
  const auth = new SoftAuthenticator(app.config.baseUrl);
  const begin = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token });
  assert.equal(begin.status, 200);
  assert.equal(begin.headers.get("cache-control"), "no-store, no-transform");
  const { options, name } = await begin.json();
  assert.equal(name, "Sam Reviewer");
  assert.equal(options.rp.id, "api.test");
  assert.equal(options.authenticatorSelection.residentKey, "required");
  assert.equal(options.authenticatorSelection.userVerification, "required");
  const answer = await auth.create(options);
  const res = await ceremonyPost(app, STAFF_PATHS.enrol, answer);
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(
    res.headers.get("set-cookie") ?? "",
    /^__Host-dcfs_staff=stf_[0-9a-f]{32}\.[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/,
  );
  assert.deepEqual(await res.json(), { location: "/staff/" });
  const cookie = res.headers.get("set-cookie")!.split(";", 1)[0]!;
  const memberId = memberOf(cookie);
  const member = await getMember(app.kv, memberId);
  assert.equal(member?.name, "Sam Reviewer");
  assert.equal(member?.invited_by, "cli");
  const [passkey] = await passkeysOfMember(app.kv, memberId);
  assert.equal(passkey?.credential_id, answer.id);
  assert.ok(passkey.public_key.length > 60, "the COSE public key is kept");
  assert.equal((await staffGet(app, { cookie }, STAFF_PATHS.members)).status, 200);
  const audit = await listAudit(app.kv, app.clock.now(), 10);
  assert.deepEqual(audit.map((e) => [e.action, e.actor, e.member_id, e.target, e.detail]), [
    ["enrol", "Sam Reviewer", memberId, memberId, "invite"],
    ["invite", "cli", null, null, null],
  ]);

  await t_spent(app, token);
});

async function t_spent(app: Awaited<ReturnType<typeof createApp>>, token: string) {
  const again = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token });
  assert.equal(again.status, 400);
  assert.equal((await again.json()).error, "invite_unknown");
  assert.equal((await listMembers(app.kv)).length, 1);
}

Deno.test("an invite past its hour is refused, at the options and at the answer", async () => {
  await using app = await createApp();
  const { token } = await cliInvite(app, "Late Larry");
  app.clock.advance(INVITE_TTL_MS);
  const late = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token });
  assert.equal(late.status, 400);
  assert.equal((await late.json()).error, "invite_expired");

  const { token: second } = await cliInvite(app, "Slow Sue");
  app.clock.advance(INVITE_TTL_MS - CEREMONY_TTL_MS / 2);
  const begin = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: second });
  assert.equal(begin.status, 200);
  const answer = await new SoftAuthenticator(app.config.baseUrl).create(
    (await begin.json()).options,
  );
  app.clock.advance(CEREMONY_TTL_MS / 2);
  const res = await ceremonyPost(app, STAFF_PATHS.enrol, answer);
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, "invite_expired");
  assert.equal(res.headers.get("set-cookie"), null);
  assert.deepEqual(await listMembers(app.kv), []);
});

Deno.test("two enrolments begun with one invite: the first answer lands, the second is refused", async () => {
  await using app = await createApp();
  const { token } = await cliInvite(app, "Twice Tom");
  const a = new SoftAuthenticator(app.config.baseUrl);
  const b = new SoftAuthenticator(app.config.baseUrl);
  const beginA = await (await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token }))
    .json();
  const beginB = await (await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token }))
    .json();
  const first = await ceremonyPost(app, STAFF_PATHS.enrol, await a.create(beginA.options));
  assert.equal(first.status, 200);
  const second = await ceremonyPost(app, STAFF_PATHS.enrol, await b.create(beginB.options));
  assert.equal(second.status, 400);
  assert.equal((await second.json()).error, "invite_unknown");
  assert.equal((await listMembers(app.kv)).length, 1);
});

Deno.test("a replayed enrolment answer lands nothing", async () => {
  await using app = await createApp({ env: { STAFF_ENROL_CODE: CODE } });
  const auth = new SoftAuthenticator(app.config.baseUrl);
  const done = await enrolWith(app, auth, { code: CODE, name: "Ada Ops" });
  assert.equal(done.res.status, 200);
  const replay = await ceremonyPost(app, STAFF_PATHS.enrol, done.answer);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "unknown_challenge");
  assert.equal(replay.headers.get("set-cookie"), null);
  assert.equal((await listMembers(app.kv)).length, 1);
});

Deno.test("STAFF_ENROL_CODE enrols once, whatever the variable still says; a new value works once more", async (t) => {
  // Many attempts from one address: the rate limit has its own test (ceremony_test.ts).
  const env = { STAFF_ENROL_CODE: CODE, RATE_LIMIT_STAFF: "100" };
  await using app = await createApp({ env });
  const auth = new SoftAuthenticator(app.config.baseUrl);

  await t.step("a wrong code, a missing or bad name, and no code at all are refused", async () => {
    const wrong = await ceremonyPost(app, STAFF_PATHS.enrolOptions, {
      code: `${CODE}x`,
      name: "Ada Ops",
    });
    assert.equal(wrong.status, 403);
    assert.equal((await wrong.json()).error, "code_wrong");
    for (const name of ["", "   ", "x".repeat(81), "Ada\u202eOps", "Ada\nOps"]) {
      const bad = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { code: CODE, name });
      assert.equal(bad.status, 400, JSON.stringify(name));
      assert.equal((await bad.json()).error, "name_invalid");
    }
    const neither = await ceremonyPost(app, STAFF_PATHS.enrolOptions, {});
    assert.equal(neither.status, 400);
    await using off = await createApp();
    const noCode = await ceremonyPost(off, STAFF_PATHS.enrolOptions, { code: CODE, name: "Ada" });
    assert.equal(noCode.status, 403);
    assert.equal((await noCode.json()).error, "code_off");
  });

  await t.step("the code enrols a first member, signed in", async () => {
    const done = await enrolWith(app, auth, { code: CODE, name: "  Ada Ops  " });
    assert.equal(done.res.status, 200);
    const member = await getMember(app.kv, memberOf(done.cookie!));
    assert.equal(member?.name, "Ada Ops");
    assert.equal(member?.invited_by, "code");
    const [entry] = await listAudit(app.kv, app.clock.now(), 10);
    assert.deepEqual([entry?.action, entry?.detail], ["enrol", "code"]);
  });

  await t.step(
    "the same code is spent: refused on this instance and with the same env",
    async () => {
      const again = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { code: CODE, name: "Eve" });
      assert.equal(again.status, 403);
      assert.equal((await again.json()).error, "code_spent");
      await using restarted = await createApp({ kv: app.kv, env });
      const later = await ceremonyPost(restarted, STAFF_PATHS.enrolOptions, {
        code: CODE,
        name: "Eve",
      });
      assert.equal(later.status, 403);
      assert.equal((await later.json()).error, "code_spent");
    },
  );

  await t.step("a new value enrols again (an operator who lost every device)", async () => {
    const fresh = `${CODE}-second`;
    await using recovered = await createApp({
      kv: app.kv,
      env: { ...env, STAFF_ENROL_CODE: fresh },
    });
    const done = await enrolWith(recovered, new SoftAuthenticator(app.config.baseUrl), {
      code: fresh,
      name: "Ada Again",
    });
    assert.equal(done.res.status, 200);
    assert.equal((await listMembers(app.kv)).length, 2);
  });
});

Deno.test("an enrolment answer from another origin, or not for a stored challenge, enrols nobody", async () => {
  await using app = await createApp({ env: { STAFF_ENROL_CODE: CODE } });
  const auth = new SoftAuthenticator(app.config.baseUrl);
  const begin = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { code: CODE, name: "Ada" });
  const { options } = await begin.json();
  const foreign = await auth.create(options, { origin: "https://evil.test" });
  const res = await ceremonyPost(app, STAFF_PATHS.enrol, foreign);
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, "not_verified");
  const invented = await auth.create({ ...options, challenge: "A".repeat(43) });
  const unknown = await ceremonyPost(app, STAFF_PATHS.enrol, invented);
  assert.equal(unknown.status, 400);
  assert.equal((await unknown.json()).error, "unknown_challenge");
  const malformed = await ceremonyPost(app, STAFF_PATHS.enrol, { id: "x" });
  assert.equal(malformed.status, 400);
  assert.equal((await malformed.json()).error, "malformed");
  assert.deepEqual(await listMembers(app.kv), []);
});

Deno.test("GET /staff/enrol: the passkey form, with the code fields only when a code is set", async () => {
  await using app = await createApp();
  const res = await staffGet(app, null, STAFF_PATHS.enrol);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform");
  const page = await res.text();
  assert.match(page, /<script type="module" src="\/staff\/assets\/passkey\.js"><\/script>/);
  assert.equal(page.match(/<script/g)?.length, 1, "no inline script");
  assert.match(page, /<button type="submit" class="btn btn-primary">Create passkey<\/button>/);
  assert.match(page, /data-options="\/staff\/enrol\/options"/);
  assert.doesNotMatch(page, /name="code"/);
  await using withCode = await createApp({ env: { STAFF_ENROL_CODE: CODE } });
  const coded = await (await staffGet(withCode, null, STAFF_PATHS.enrol)).text();
  assert.match(coded, /name="code" type="password"/);
  assert.match(coded, /name="name"/);
  assert.ok(!coded.includes(CODE), "the page never holds the code");
});
