/**
 * The console's staff page (issue 28, point 2): members, an invite shown once, removal that
 * ends a member's sessions at once and never leaves the console without a member.
 */

import assert from "node:assert/strict";
import { createApp } from "../_helpers.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { getMember, listMembers, passkeysOfMember } from "../../src/store/staff.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { SoftAuthenticator } from "./_authenticator.ts";
import { ceremonyPost, enrolWith, memberOf, signInWith, staffer } from "./_ceremony.ts";
import { signedIn, staffGet, staffPost } from "./_staff.ts";

const removePath = (id: string) => STAFF_PATHS.removeMember.replace(":member_id", id);

Deno.test("GET /staff/members: each member with a remove form, and the invite form", async () => {
  await using app = await createApp();
  assert.equal((await staffGet(app, null, STAFF_PATHS.members)).status, 303);
  const sam = await signedIn(app, "Sam <b>Reviewer</b>");
  const kim = await signedIn(app, "Kim");
  const res = await staffGet(app, sam, STAFF_PATHS.members);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform");
  const page = await res.text();
  assert.ok(page.includes("Sam &lt;b&gt;Reviewer&lt;/b&gt; (you)"), "names are text");
  assert.ok(!page.includes("<b>Reviewer</b>"));
  for (const m of [sam.member, kim.member]) {
    assert.ok(page.includes(`<tr data-member-id="${m.member_id}">`));
    assert.ok(page.includes(`action="${removePath(m.member_id)}"`));
  }
  assert.equal(
    page.match(/<button type="submit" class="btn btn-small btn-danger">Remove<\/button>/g)?.length,
    2,
  );
  assert.match(page, /action="\/staff\/invites"/);
  assert.match(page, /<button type="submit" class="btn btn-primary">Create invite link<\/button>/);
  assert.equal(page.match(new RegExp(`name="csrf" value="${sam.csrf}"`, "g"))?.length, 4);
});

Deno.test("POST /staff/invites shows the link once; it enrols the person named", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  assert.equal(
    (await staffPost(app, sam, STAFF_PATHS.invites, { name: "Nia" }, { csrf: null }))
      .status,
    403,
  );
  assert.equal(
    (await staffPost(app, sam, STAFF_PATHS.invites, { name: "Nia" }, {
      origin: "https://evil.test",
    })).status,
    403,
  );
  const bad = await staffPost(app, sam, STAFF_PATHS.invites, { name: " " });
  assert.equal(bad.status, 400);
  assert.deepEqual(await Array.fromAsync(app.kv.list({ prefix: ["staff_invites"] })), []);

  const res = await staffPost(app, sam, STAFF_PATHS.invites, { name: "Nia" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform");
  const page = await res.text();
  const link = page.match(/value="(https:\/\/api\.test\/staff\/enrol#invite=[\w-]+)"/)?.[1];
  assert.ok(link, "the page shows the link");
  const [entry] = await listAudit(app.kv, app.clock.now(), 1);
  assert.deepEqual([entry?.action, entry?.member_id, entry?.target], [
    "invite",
    sam.member.member_id,
    null,
  ]);
  assert.ok(!JSON.stringify(entry).includes("Nia"), "the invitee's name is not in the trail");

  const token = new URL(link).hash.slice("#invite=".length);
  const done = await enrolWith(app, new SoftAuthenticator(app.config.baseUrl), { invite: token });
  assert.equal(done.res.status, 200);
  const nia = await getMember(app.kv, memberOf(done.cookie!));
  assert.deepEqual([nia?.name, nia?.invited_by], ["Nia", sam.member.member_id]);
  const members = await (await staffGet(app, sam, STAFF_PATHS.members)).text();
  assert.match(members, /<td>Nia<\/td>/);
  assert.match(members, /<td>Sam Reviewer<\/td>/, "Nia's inviter, by name");
});

Deno.test("removing a member ends their sessions at once and their passkey signs in no more", async () => {
  const code = "members-test-enrol-code-012345";
  await using app = await createApp({ env: { STAFF_ENROL_CODE: code, RATE_LIMIT_STAFF: "100" } });
  const sam = await signedIn(app);
  const auth = new SoftAuthenticator(app.config.baseUrl);
  const kimIn = await enrolWith(app, auth, { code, name: "Kim" });
  const kimId = memberOf(kimIn.cookie!);
  const kimAgain = await signInWith(app, auth);
  const kim = staffer((await getMember(app.kv, kimId))!, kimIn.cookie!);
  assert.equal((await staffGet(app, kim, STAFF_PATHS.members)).status, 200);

  assert.equal((await staffPost(app, sam, removePath(kimId), {}, { csrf: null })).status, 403);
  app.clock.advance(1000);
  const res = await staffPost(app, sam, removePath(kimId), {});
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), STAFF_PATHS.members);
  for (const cookie of [kimIn.cookie!, kimAgain.cookie!]) {
    const after = await staffGet(app, { ...kim, cookie }, STAFF_PATHS.members);
    assert.equal(after.status, 303, "each of Kim's sessions ended");
  }
  assert.deepEqual(
    await Array.fromAsync(app.kv.list({ prefix: ["staff_member_sessions", kimId] })),
    [],
  );
  assert.deepEqual(await passkeysOfMember(app.kv, kimId), []);
  const begin = await ceremonyPost(app, STAFF_PATHS.signInOptions, {});
  const answer = await auth.get((await begin.json()).options);
  const refused = await ceremonyPost(app, STAFF_PATHS.signIn, answer);
  assert.equal(refused.status, 400);
  assert.equal((await refused.json()).error, "unknown_passkey");
  const [entry] = await listAudit(app.kv, app.clock.now(), 1);
  assert.deepEqual([entry?.action, entry?.actor, entry?.target], [
    "remove_member",
    "Sam Reviewer",
    kimId,
  ]);

  const gone = await staffPost(app, sam, removePath(kimId), {});
  assert.equal(gone.status, 404);
  assert.equal((await staffPost(app, sam, removePath("not-a-member"), {})).status, 404);
});

Deno.test("the console never removes the last member; members may remove themselves", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const last = await staffPost(app, sam, removePath(sam.member.member_id), {});
  assert.equal(last.status, 409);
  assert.match(await last.text(), /you are the last staff member/);
  assert.equal((await listMembers(app.kv)).length, 1);

  const kim = await signedIn(app, "Kim");
  const self = await staffPost(app, sam, removePath(sam.member.member_id), {});
  assert.equal(self.status, 303);
  assert.equal(self.headers.get("location"), STAFF_PATHS.signIn);
  assert.match(self.headers.get("set-cookie") ?? "", /^__Host-dcfs_staff=; .*Max-Age=0/);
  assert.deepEqual((await listMembers(app.kv)).map((m) => m.name), ["Kim"]);
  assert.equal((await staffPost(app, kim, removePath(kim.member.member_id), {})).status, 409);
});

Deno.test("two members removing each other at once leave one of them", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const kim = await signedIn(app, "Kim");
  const [a, b] = await Promise.all([
    staffPost(app, sam, removePath(kim.member.member_id), {}),
    staffPost(app, kim, removePath(sam.member.member_id), {}),
  ]);
  const statuses = [a.status, b.status].sort();
  assert.equal(statuses[0], 303, "one removal landed");
  assert.ok([401, 409].includes(statuses[1]!), `the other was refused: ${statuses}`);
  assert.equal((await listMembers(app.kv)).length, 1);
});

Deno.test("sign-out ends the session with its audit entry", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const out = await staffPost(app, sam, STAFF_PATHS.signOut, {});
  assert.equal(out.status, 303);
  const [entry] = await listAudit(app.kv, app.clock.now(), 1);
  assert.deepEqual([entry?.action, entry?.member_id, entry?.target], [
    "sign_out",
    sam.member.member_id,
    null,
  ]);
  assert.equal((await staffGet(app, sam, STAFF_PATHS.members)).status, 303);
});
