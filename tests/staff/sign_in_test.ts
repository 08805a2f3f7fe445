/**
 * Signing in to the staff console with a passkey (issue 28, point 2): off until a first
 * member, discoverable credentials, one session per verified answer, replays refused.
 */

import assert from "node:assert/strict";
import { createApp, type TestApp } from "../_helpers.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { getPasskey } from "../../src/store/staff.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { CEREMONY_TTL_MS } from "../../src/staff/ceremony.ts";
import { SoftAuthenticator } from "./_authenticator.ts";
import { ceremonyPost, cliInvite, enrolWith, memberOf, signInWith } from "./_ceremony.ts";
import { staffGet } from "./_staff.ts";

const CODE = "sign-in-tests-enrol-code-0123";

/** An app with one member enrolled by code, and that member's authenticator. */
async function withMember(): Promise<{ app: TestApp; auth: SoftAuthenticator; id: string }> {
  const app = await createApp({ env: { STAFF_ENROL_CODE: CODE, RATE_LIMIT_STAFF: "100" } });
  const auth = new SoftAuthenticator(app.config.baseUrl);
  const { cookie } = await enrolWith(app, auth, { code: CODE, name: "Ada Ops" });
  return { app, auth, id: memberOf(cookie!) };
}

Deno.test("sign-in is off until a first member enrols: a page that says so, and no ceremony", async () => {
  await using app = await createApp();
  const page = await staffGet(app, null, STAFF_PATHS.signIn);
  assert.equal(page.status, 200);
  const text = await page.text();
  assert.match(text, /Sign-in is off until a first staff member enrols/);
  assert.doesNotMatch(text, /<script/);
  assert.doesNotMatch(text, /Sign in with a passkey/);
  const options = await ceremonyPost(app, STAFF_PATHS.signInOptions, {});
  assert.equal(options.status, 403);
  assert.equal((await options.json()).error, "no_members");
});

Deno.test("a passkey signs in: the session cookie, the console, the counter and the audit entry", async () => {
  const { app, auth, id } = await withMember();
  await using _app = app;
  const page = await (await staffGet(app, null, STAFF_PATHS.signIn)).text();
  assert.match(
    page,
    /<button type="submit" class="btn btn-primary">Sign in with a passkey<\/button>/,
  );
  assert.match(page, /src="\/staff\/assets\/passkey\.js"/);
  app.clock.advance(1000);
  const begin = await ceremonyPost(app, STAFF_PATHS.signInOptions, {});
  assert.equal(begin.status, 200);
  const { options } = await begin.json();
  assert.deepEqual(options.allowCredentials, [], "discoverable: no credential is named");
  assert.equal(options.rpId, "api.test");
  assert.equal(options.userVerification, "required");
  const answer = await auth.get(options);
  const res = await ceremonyPost(app, STAFF_PATHS.signIn, answer);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  assert.deepEqual(await res.json(), { location: STAFF_PATHS.queue });
  const cookie = res.headers.get("set-cookie")!.split(";", 1)[0]!;
  assert.equal(memberOf(cookie), id);
  assert.equal((await staffGet(app, { cookie }, STAFF_PATHS.members)).status, 200);
  assert.equal((await getPasskey(app.kv, answer.id)).value?.counter, 1);
  const [entry] = await listAudit(app.kv, app.clock.now(), 1);
  assert.deepEqual([entry?.action, entry?.member_id, entry?.actor], ["sign_in", id, "Ada Ops"]);
  assert.match(entry!.session, /^[\w-]{8}$/);

  const signedInAlready = await staffGet(app, { cookie }, STAFF_PATHS.signIn);
  assert.equal(signedInAlready.status, 303, "the sign-in page sends a signed-in member on");
  assert.equal(signedInAlready.headers.get("location"), STAFF_PATHS.queue);

  const again = await signInWith(app, auth);
  assert.equal(again.res.status, 200);
  assert.equal((await getPasskey(app.kv, answer.id)).value?.counter, 2);
  assert.notEqual(again.cookie, cookie, "each sign-in is its own session");
});

Deno.test("a replayed assertion (the same answer posted twice) is refused", async () => {
  const { app, auth } = await withMember();
  await using _app = app;
  const first = await signInWith(app, auth);
  assert.equal(first.res.status, 200);
  const replay = await ceremonyPost(app, STAFF_PATHS.signIn, first.answer);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "unknown_challenge");
  assert.equal(replay.headers.get("set-cookie"), null);
  const signIns = (await listAudit(app.kv, app.clock.now(), 10)).filter((e) =>
    e.action === "sign_in"
  );
  assert.equal(signIns.length, 1);
});

Deno.test("two answers to one challenge at once: one session, never two", async () => {
  const { app, auth } = await withMember();
  await using _app = app;
  const begin = await (await ceremonyPost(app, STAFF_PATHS.signInOptions, {})).json();
  const answer = await auth.get(begin.options);
  const [a, b] = await Promise.all([
    ceremonyPost(app, STAFF_PATHS.signIn, answer),
    ceremonyPost(app, STAFF_PATHS.signIn, answer),
  ]);
  assert.deepEqual([a.status, b.status].sort(), [200, 400]);
});

Deno.test("sign-in answers that do not verify are refused by a fixed reason", async (t) => {
  const { app, auth } = await withMember();
  await using _app = app;
  const options = async () =>
    (await (await ceremonyPost(app, STAFF_PATHS.signInOptions, {})).json()).options;
  const refused = async (answer: unknown, reason: string) => {
    const res = await ceremonyPost(app, STAFF_PATHS.signIn, answer);
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, reason);
    assert.equal(res.headers.get("set-cookie"), null);
  };
  await t.step("an answer made for another origin", async () => {
    await refused(await auth.get(await options(), { origin: "https://evil.test" }), "not_verified");
  });
  await t.step("an answer whose user handle names another member", async () => {
    const other = btoa("stf_00000000000000000000000000000000").replaceAll("=", "");
    await refused(await auth.get(await options(), { userHandle: other }), "user_mismatch");
  });
  await t.step("a passkey never enrolled here", async () => {
    const stranger = new SoftAuthenticator(app.config.baseUrl);
    await stranger.create({
      challenge: "AAAA",
      rp: { id: "api.test", name: "x" },
      user: { id: "c3RmX3g", name: "x" },
    });
    await refused(await stranger.get(await options()), "unknown_passkey");
  });
  await t.step("an answer after the ceremony's five minutes", async () => {
    const late = await auth.get(await options());
    app.clock.advance(CEREMONY_TTL_MS);
    await refused(late, "expired_challenge");
  });
  await t.step(
    "an answer to an enrolment's challenge, and one that is no passkey answer",
    async () => {
      const { token } = await cliInvite(app, "Bo");
      const enrol = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token });
      const { challenge } = (await enrol.json()).options;
      await refused(await auth.get({ challenge, rpId: "api.test" }), "unknown_challenge");
      await refused({ id: "x" }, "malformed");
    },
  );
});
