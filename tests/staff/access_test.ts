/**
 * Who a console session is, and what it opens (issue 28, point 2, "Sessions" and
 * "Separation"): a forged or expired cookie opens nothing; an OAuth token opens no staff
 * page, and a staff cookie no OAuth or agent route.
 */

import assert from "node:assert/strict";
import {
  bearerGet,
  createApp,
  issueToken,
  registerClient,
  type TestApp,
  tokenRequest,
} from "../_helpers.ts";
import { PATHS, STAFF_PATHS } from "../../src/http/paths.ts";
import { cookieName, SESSION_IDLE_MS, SESSION_MAX_MS } from "../../src/staff/session.ts";
import { MINUTE_MS } from "../../src/time.ts";
import { signedIn, staffGet } from "./_staff.ts";

/** The status and Location of a staff page asked for with `cookie`. */
async function visit(app: TestApp, cookie: string | null, path = STAFF_PATHS.members) {
  const res = await app.request(path, {
    headers: cookie ? { Cookie: cookie } : {},
    redirect: "manual",
  });
  await res.body?.cancel();
  return [res.status, res.headers.get("location")];
}

const SIGN_IN = [303, STAFF_PATHS.signIn];

Deno.test("no cookie, a forged cookie or another member's id in it: 303 to sign-in", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const name = cookieName(app.config.baseUrl);
  assert.equal(name, "__Host-dcfs_staff");
  const value = sam.cookie.slice(name.length + 1);
  const [memberId, secret] = value.split(".");
  assert.deepEqual(await visit(app, sam.cookie), [200, null]);
  const forged = [
    null,
    `${name}=`,
    `${name}=${memberId}`,
    `${name}=${memberId}.${"A".repeat(43)}`,
    `${name}=stf_00000000000000000000000000000000.${secret}`,
    `${name}=${memberId}.${secret}x`,
    `${name}=${"x".repeat(300)}`,
    `dcfs_staff=${value}`, // the plain-http name, on an https service
  ];
  for (const cookie of forged) assert.deepEqual(await visit(app, cookie), SIGN_IN, String(cookie));
});

Deno.test("a session ends 30 minutes after its last request", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  app.clock.advance(SESSION_IDLE_MS - MINUTE_MS);
  assert.deepEqual(await visit(app, sam.cookie), [200, null], "used within the idle time");
  app.clock.advance(SESSION_IDLE_MS - 1);
  assert.deepEqual(await visit(app, sam.cookie), [200, null], "each request starts it again");
  app.clock.advance(SESSION_IDLE_MS);
  assert.deepEqual(await visit(app, sam.cookie), SIGN_IN);
  app.clock.advance(-SESSION_IDLE_MS);
  assert.deepEqual(await visit(app, sam.cookie), SIGN_IN, "ended, not only unseen: it is gone");
});

Deno.test("a session ends 12 hours after sign-in, however busy", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  for (let t = 0; t < SESSION_MAX_MS - 20 * MINUTE_MS; t += 20 * MINUTE_MS) {
    app.clock.advance(20 * MINUTE_MS);
    assert.deepEqual(await visit(app, sam.cookie), [200, null], `at ${t / MINUTE_MS} min`);
  }
  app.clock.advance(20 * MINUTE_MS);
  assert.deepEqual(await visit(app, sam.cookie), SIGN_IN);
});

Deno.test("an OAuth Bearer token opens no staff page, and a staff cookie no OAuth or agent route", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const sam = await signedIn(app);

  // A token, alone or as a cookie named like the session's, is no session.
  const res = await bearerGet(app, STAFF_PATHS.members, token);
  assert.deepEqual([res.status, res.headers.get("location")], SIGN_IN);
  const asCookie = `${cookieName(app.config.baseUrl)}=${token}`;
  assert.deepEqual(await visit(app, asCookie), SIGN_IN);

  // The agent resource answers the session's cookie with 401.
  const agent = await app.request(PATHS.agentServices, { headers: { Cookie: sam.cookie } });
  assert.equal(agent.status, 401);
  assert.match(agent.headers.get("www-authenticate") ?? "", /^Bearer/);
  // The token endpoint does not take the cookie as client authentication.
  const stolen = await app.request(PATHS.token, {
    method: "POST",
    headers: { Cookie: sam.cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  assert.equal(stolen.status, 401);
  // And a session does not stop a token from working as before (nothing is shared).
  assert.equal((await bearerGet(app, PATHS.agentServices, token)).status, 200);
  assert.equal((await tokenRequest(app, client, { grant_type: "client_credentials" })).status, 200);
  assert.equal((await staffGet(app, sam, STAFF_PATHS.members)).status, 200);
});
