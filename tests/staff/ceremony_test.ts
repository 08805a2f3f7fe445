/**
 * What every passkey ceremony POST shares (issue 28, point 2, "Forgery" and "Abuse"): the
 * console's own Origin before anything, a per-address rate limit, and refusals logged with
 * a fixed word and no personal data.
 */

import assert from "node:assert/strict";
import { createApp } from "../_helpers.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { SoftAuthenticator } from "./_authenticator.ts";
import { ceremonyPost, cliInvite, enrolWith, signInWith } from "./_ceremony.ts";
import { staffPost } from "./_staff.ts";
import { staffer } from "./_ceremony.ts";
import { getMember } from "../../src/store/staff.ts";
import { memberOf } from "./_ceremony.ts";

const CEREMONY_POSTS = [
  STAFF_PATHS.signInOptions,
  STAFF_PATHS.signIn,
  STAFF_PATHS.enrolOptions,
  STAFF_PATHS.enrol,
];

Deno.test("every ceremony POST needs the console's own Origin, checked before anything is read or counted", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_STAFF: "1" } });
  const { token } = await cliInvite(app, "Sam");
  for (const path of CEREMONY_POSTS) {
    for (const origin of ["https://evil.test", "http://api.test", "null", null]) {
      const res = await ceremonyPost(app, path, { invite: token }, { origin });
      assert.equal(res.status, 403, `${path} from ${origin}`);
      const body = await res.json();
      assert.equal(body.error, "origin");
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.equal(res.headers.get("ratelimit"), null, "a refused Origin is not counted");
    }
  }
  const stored = await Array.fromAsync(app.kv.list({ prefix: ["staff_ceremonies"] }));
  assert.deepEqual(stored, [], "no challenge was stored for a foreign page");
  // The one request the limit allows is still there: nothing above was counted.
  const ok = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token });
  assert.equal(ok.status, 200);
});

Deno.test("ceremonies are rate limited per address (RATE_LIMIT_STAFF): 429 with Retry-After", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_STAFF: "3" } });
  const { token } = await cliInvite(app, "Sam");
  const from = (address: string) =>
    ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token }, { address });
  for (let i = 0; i < 2; i++) assert.equal((await from("192.0.2.10")).status, 200);
  const failed = await ceremonyPost(app, STAFF_PATHS.signIn, { id: "x" }, {
    address: "192.0.2.10",
  });
  assert.equal(failed.status, 400, "a failed answer counts too");
  const refused = await from("192.0.2.10");
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get("retry-after")) > 0);
  assert.match(refused.headers.get("ratelimit") ?? "", /^"staff";r=0;t=\d+$/);
  assert.equal((await refused.json()).error, "rate_limited");
  assert.equal((await from("192.0.2.11")).status, 200, "another address has its own budget");
  app.clock.advance(60_000);
  assert.equal((await from("192.0.2.10")).status, 200, "the next minute starts afresh");
});

Deno.test("no log line holds a name, a code, an invite, a cookie, a credential id or an address", async () => {
  const code = "log-audit-enrol-code-0123456789";
  await using app = await createApp({ env: { STAFF_ENROL_CODE: code, RATE_LIMIT_STAFF: "100" } });
  const address = "198.51.100.77";
  const auth = new SoftAuthenticator(app.config.baseUrl);
  const first = await enrolWith(app, auth, { code, name: "Zelda Quartermaine" }, address);
  const { link, token } = await cliInvite(app, "Yorick Invitee");
  const second = await enrolWith(app, new SoftAuthenticator(app.config.baseUrl), {
    invite: token,
  }, address);
  const signIn = await signInWith(app, auth, { address });
  // Refusals of every kind, each logged.
  await ceremonyPost(app, STAFF_PATHS.enrolOptions, { code, name: "Xavier Spent" }, { address });
  await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token }, { address });
  await ceremonyPost(app, STAFF_PATHS.signIn, signIn.answer, { address });
  await ceremonyPost(app, STAFF_PATHS.signIn, signIn.answer, { address, origin: "https://x.test" });
  await signInWith(app, auth, { address, userHandle: btoa("Wanda").replaceAll("=", "") });
  const member = await getMember(app.kv, memberOf(first.cookie!));
  const zelda = staffer(member!, first.cookie!);
  await staffPost(app, zelda, STAFF_PATHS.invites, { name: "Victor Link" });
  await staffPost(app, zelda, STAFF_PATHS.signOut, {});

  const secrets = [
    "Zelda",
    "Quartermaine",
    "Yorick",
    "Xavier",
    "Wanda",
    "Victor",
    code,
    token,
    link,
    address,
    first.cookie!.split("=")[1]!,
    second.cookie!.split("=")[1]!,
    signIn.cookie!.split("=")[1]!,
    first.answer.id,
    signIn.answer.id,
  ];
  assert.ok(app.logs.length > 10, "the flows were logged");
  for (const line of app.logs.map((r) => JSON.stringify(r))) {
    for (const secret of secrets) assert.ok(!line.includes(secret), `${secret} in ${line}`);
  }
  const refusals = app.logs.filter((r) => r.msg === "staff ceremony refused");
  assert.deepEqual(refusals.map((r) => [r.ceremony, r.reason]), [
    ["enrol", "code_spent"],
    ["enrol", "invite_unknown"],
    ["sign_in", "unknown_challenge"],
    ["sign_in", "origin"],
    ["sign_in", "user_mismatch"],
  ]);
  for (const r of refusals) {
    assert.deepEqual(Object.keys(r).sort(), ["ceremony", "level", "msg", "reason", "request_id"]);
  }
});

Deno.test("STAFF_CONSOLE=off: no sign-in or enrolment page, no ceremony endpoint", async () => {
  await using app = await createApp({
    env: { STAFF_CONSOLE: "off", STAFF_ENROL_CODE: "console-off-code-Vb7Rq2Xm9Lt4" },
  });
  for (const path of [STAFF_PATHS.signIn, STAFF_PATHS.enrol, STAFF_PATHS.members]) {
    const res = await app.request(path);
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
  for (const path of CEREMONY_POSTS) {
    const res = await ceremonyPost(app, path, { code: "c".repeat(24), name: "Ada" });
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
});
