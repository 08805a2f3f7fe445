/**
 * A hostile review of the passkey ceremonies: a removed member, a thief who made invites
 * before the owner's removal, a stolen enrolment code used twice at once, a new passkey
 * that claims an enrolled credential id, answers posted to the other ceremony, a cookie
 * planted before sign-in, challenge records an anonymous caller can make, and an invite
 * token put where it does not belong (a query string).
 */

import assert from "node:assert/strict";
import { createApp, type TestApp } from "../_helpers.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { CEREMONY_TTL_MS } from "../../src/staff/ceremony.ts";
import { cookieName } from "../../src/staff/session.ts";
import { digest } from "../../src/oauth/secrets.ts";
import {
  type Ceremony,
  getInvite,
  getMemberEntry,
  getPasskey,
  listMembers,
  removeMember,
  spendInvite,
  type StaffInvite,
  type StaffMember,
} from "../../src/store/staff.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { SoftAuthenticator } from "./_authenticator.ts";
import {
  ceremonyPost,
  cliInvite,
  cookieOf,
  enrolWith,
  memberOf,
  signInWith,
  staffer,
} from "./_ceremony.ts";
import { signedIn, type Staffer, staffGet, staffPost } from "./_staff.ts";

/** An app whose ceremonies are not rate limited (the limit has its own tests). */
function unlimited(env: Record<string, string> = {}) {
  return createApp({ env: { RATE_LIMIT_STAFF: "0", ...env } });
}

/** A member enrolled from a CLI invite with a software passkey, signed in. */
async function enrolled(app: TestApp, name: string) {
  const auth = new SoftAuthenticator(app.config.baseUrl);
  const { token } = await cliInvite(app, name);
  const done = await enrolWith(app, auth, { invite: token });
  assert.equal(done.res.status, 200);
  const member = (await listMembers(app.kv)).find((m) => m.member_id === memberOf(done.cookie!))!;
  return { auth, who: staffer(member, done.cookie!), credentialId: done.answer.id as string };
}

/** The token of an invite link made on the console's Staff page by `who`. */
async function consoleInvite(app: TestApp, who: Staffer, name: string): Promise<string> {
  const res = await staffPost(app, who, STAFF_PATHS.invites, { name });
  assert.equal(res.status, 200);
  const token = (await res.text()).match(/#invite=([\w-]+)"/)?.[1];
  assert.ok(token, "the page shows the link");
  return token;
}

async function refusal(res: Response): Promise<[number, string, string | null]> {
  return [res.status, (await res.json()).error, res.headers.get("set-cookie")];
}

Deno.test("an invite made by a member since removed enrols nobody, even with its ceremony begun before", async () => {
  await using app = await unlimited();
  const sam = await signedIn(app, "Sam Keeper");
  // A thief with Kim's unlocked laptop makes two invites, and begins one enrolment at once.
  const kim = await signedIn(app, "Kim Stolen");
  const later = await consoleInvite(app, kim, "Mallory One");
  const now = await consoleInvite(app, kim, "Mallory Two");
  const thief = new SoftAuthenticator(app.config.baseUrl);
  const begun = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: now });
  assert.equal(begun.status, 200);
  const answer = await thief.create((await begun.json()).options);

  // Sam removes Kim, as docs/operations.md says to for a lost device.
  const removed = await staffPost(app, sam, `/staff/members/${kim.member.member_id}/remove`, {});
  assert.equal(removed.status, 303);

  const finished = await ceremonyPost(app, STAFF_PATHS.enrol, answer);
  assert.deepEqual(await refusal(finished), [400, "invite_revoked", null]);
  const begin = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: later });
  assert.deepEqual(await refusal(begin), [400, "invite_revoked", null]);
  assert.deepEqual((await listMembers(app.kv)).map((m) => m.name), ["Sam Keeper"]);

  // Exact, not only at the read: a removal between the enrolment's read and its commit
  // fails the commit, which checks the inviter's record.
  const lee = await signedIn(app, "Lee Racing");
  const raced = await consoleInvite(app, lee, "Mallory Three");
  const invite = await getInvite(app.kv, digest(raced));
  const inviter = await getMemberEntry(app.kv, lee.member.member_id);
  assert.equal(await removeMember(app.kv, lee.member.member_id), "removed");
  const op = app.kv.atomic();
  spendInvite(op, invite as Deno.KvEntry<StaffInvite>, inviter as Deno.KvEntry<StaffMember>);
  assert.equal((await op.commit()).ok, false);

  // An invite of a member who stays, and one the CLI printed, still enrol.
  const fromSam = await consoleInvite(app, sam, "Nia New");
  const nia = await enrolWith(app, new SoftAuthenticator(app.config.baseUrl), { invite: fromSam });
  assert.equal(nia.res.status, 200);
  const { token } = await cliInvite(app, "Cli Person");
  const cli = await enrolWith(app, new SoftAuthenticator(app.config.baseUrl), { invite: token });
  assert.equal(cli.res.status, 200);
});

Deno.test("a removed member finishing a sign-in begun before the removal gets no session", async () => {
  await using app = await unlimited();
  const sam = await signedIn(app, "Sam Keeper");
  const kim = await enrolled(app, "Kim Leaving");
  const begin = await ceremonyPost(app, STAFF_PATHS.signInOptions, {});
  const answer = await kim.auth.get((await begin.json()).options);
  const path = `/staff/members/${kim.who.member.member_id}/remove`;
  assert.equal((await staffPost(app, sam, path, {})).status, 303);
  const before = (await listAudit(app.kv, app.clock.now(), 100)).length;

  const res = await ceremonyPost(app, STAFF_PATHS.signIn, answer);
  assert.deepEqual(await refusal(res), [400, "unknown_passkey", null]);
  assert.equal((await getPasskey(app.kv, kim.credentialId)).value, null);
  const sessions = await Array.fromAsync(app.kv.list({ prefix: ["staff_member_sessions"] }));
  assert.deepEqual(sessions.map((e) => e.key[1]), [sam.member.member_id], "Sam's alone");
  assert.equal((await listAudit(app.kv, app.clock.now(), 100)).length, before, "no sign_in");
  // The old cookie, and a fresh passkey ceremony, open nothing.
  assert.equal((await staffGet(app, kim.who, STAFF_PATHS.queue)).status, 303);
  const again = await signInWith(app, kim.auth);
  assert.equal(again.res.status, 400);
  assert.equal(again.cookie, undefined);
});

/**
 * A store whose next commit first runs `hook` (set by the test): what another instance does
 * between a request's reads and its commit.
 */
function interleaved(real: Deno.Kv): { kv: Deno.Kv; before(hook: () => Promise<void>): void } {
  let next: (() => Promise<void>) | undefined;
  const kv = new Proxy(real, {
    get(target, prop) {
      if (prop !== "atomic") {
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = async () => {
          const hook = next;
          next = undefined;
          await hook?.();
          return await commit();
        };
        return op;
      };
    },
  });
  return { kv, before: (hook) => next = hook };
}

Deno.test("a removal landing between a sign-in's reads and its commit: no session, no sign_in entry", async () => {
  const real = await Deno.openKv(":memory:");
  const store = interleaved(real);
  await using app = await createApp({ kv: store.kv, env: { RATE_LIMIT_STAFF: "0" } });
  try {
    const kim = await enrolled(app, "Kim Leaving");
    const begin = await ceremonyPost(app, STAFF_PATHS.signInOptions, {});
    const answer = await kim.auth.get((await begin.json()).options);
    const id = kim.who.member.member_id;
    // The member record goes first (removeMember's first commit), as on another instance.
    store.before(async () => {
      const op = real.atomic().delete(["staff_members", id]);
      assert.ok((await op.commit()).ok);
    });
    const res = await ceremonyPost(app, STAFF_PATHS.signIn, answer);
    assert.equal(res.status, 400, "the sign-in's commit checks the member too");
    assert.equal(res.headers.get("set-cookie"), null);
    await res.body?.cancel();
    const signIns = (await listAudit(real, app.clock.now(), 100))
      .filter((e) => e.action === "sign_in");
    assert.deepEqual(signIns, [], "the trail never says a removed member signed in");
  } finally {
    real.close();
  }
});

Deno.test("a new passkey that claims an enrolled credential id enrols nobody and spends nothing", async () => {
  await using app = await unlimited();
  const sam = await enrolled(app, "Sam Owner");
  const stored = (await getPasskey(app.kv, sam.credentialId)).value;
  const { token } = await cliInvite(app, "Mallory");
  const mallory = new SoftAuthenticator(app.config.baseUrl);
  const begin = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token });
  const answer = await mallory.create((await begin.json()).options, {
    credentialId: sam.credentialId,
  });
  assert.equal(answer.id, sam.credentialId);
  const res = await ceremonyPost(app, STAFF_PATHS.enrol, answer);
  assert.deepEqual(await refusal(res), [400, "replayed", null]);
  assert.deepEqual((await getPasskey(app.kv, sam.credentialId)).value, stored, "Sam's key stays");
  assert.equal((await listMembers(app.kv)).length, 1);
  // Sam still signs in with it; the invite was not spent by the refusal.
  assert.equal((await signInWith(app, sam.auth)).res.status, 200);
  const honest = await enrolWith(app, new SoftAuthenticator(app.config.baseUrl), { invite: token });
  assert.equal(honest.res.status, 200);
});

Deno.test("one enrolment code used twice at once enrols one member", async () => {
  const code = "parallel-enrol-code-0123456789";
  await using app = await unlimited({ STAFF_ENROL_CODE: code });
  const begin = (name: string) => ceremonyPost(app, STAFF_PATHS.enrolOptions, { code, name });
  const [a, b] = await Promise.all([begin("Ann First"), begin("Bob Second")]);
  assert.deepEqual([a.status, b.status], [200, 200], "neither is spent until an answer lands");
  const answers = await Promise.all(
    [a, b].map(async (r) =>
      new SoftAuthenticator(app.config.baseUrl).create((await r.json()).options)
    ),
  );
  const done = await Promise.all(answers.map((x) => ceremonyPost(app, STAFF_PATHS.enrol, x)));
  assert.deepEqual(done.map((r) => r.status).sort(), [200, 400]);
  assert.equal(done.filter((r) => cookieOf(r)).length, 1);
  assert.equal((await listMembers(app.kv)).length, 1);
  const third = await begin("Cy Third");
  assert.deepEqual(await refusal(third), [403, "code_spent", null]);
  for (const r of done) await r.body?.cancel();
});

Deno.test("an answer posted to the other ceremony is refused", async () => {
  await using app = await unlimited();
  const sam = await enrolled(app, "Sam Owner");
  // An enrolment's answer (a new passkey) posted as a sign-in.
  const { token } = await cliInvite(app, "Nia");
  const enrol = await ceremonyPost(app, STAFF_PATHS.enrolOptions, { invite: token });
  const created = await new SoftAuthenticator(app.config.baseUrl).create(
    (await enrol.json()).options,
  );
  assert.deepEqual(await refusal(await ceremonyPost(app, STAFF_PATHS.signIn, created)), [
    400,
    "malformed",
    null,
  ]);
  // A new passkey made for a sign-in's challenge, posted as an enrolment.
  const signIn = await ceremonyPost(app, STAFF_PATHS.signInOptions, {});
  const { challenge } = (await signIn.json()).options;
  const forged = await new SoftAuthenticator(app.config.baseUrl).create({
    challenge,
    rp: { id: "api.test", name: "x" },
    user: { id: sam.who.member.member_id, name: "x" },
  });
  assert.deepEqual(await refusal(await ceremonyPost(app, STAFF_PATHS.enrol, forged)), [
    400,
    "unknown_challenge",
    null,
  ]);
  assert.equal((await listMembers(app.kv)).length, 1);
});

Deno.test("a cookie planted before sign-in is not adopted: sign-in sets a fresh one", async () => {
  await using app = await unlimited();
  const sam = await enrolled(app, "Sam Owner");
  const name = cookieName(app.config.baseUrl);
  const planted = `${name}=${sam.who.member.member_id}.${"A".repeat(43)}`;
  const begin = await app.request(STAFF_PATHS.signInOptions, {
    method: "POST",
    headers: { Origin: app.config.baseUrl, Cookie: planted },
    body: "{}",
  });
  const answer = await sam.auth.get((await begin.json()).options);
  const res = await app.request(STAFF_PATHS.signIn, {
    method: "POST",
    headers: { Origin: app.config.baseUrl, Cookie: planted },
    body: JSON.stringify(answer),
  });
  assert.equal(res.status, 200);
  const fresh = cookieOf(res)!;
  assert.notEqual(fresh, planted);
  assert.equal((await staffGet(app, { cookie: planted }, STAFF_PATHS.queue)).status, 303);
  assert.equal((await staffGet(app, { cookie: fresh }, STAFF_PATHS.queue)).status, 200);
});

Deno.test("challenge records an anonymous caller makes are bounded by the rate limit and expire", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_STAFF: "5" } });
  await signedIn(app);
  const statuses = [];
  for (let i = 0; i < 20; i++) {
    const res = await ceremonyPost(app, STAFF_PATHS.signInOptions, {}, { address: "192.0.2.9" });
    statuses.push(res.status);
    await res.body?.cancel();
  }
  assert.deepEqual(statuses, [...Array(5).fill(200), ...Array(15).fill(429)]);
  const stored = await Array.fromAsync(app.kv.list<Ceremony>({ prefix: ["staff_ceremonies"] }));
  assert.equal(stored.length, 5, "one record per request admitted, none for the refused");
  for (const e of stored) {
    assert.ok(e.value.expires_at <= app.clock.now() + CEREMONY_TTL_MS, "each lives 5 minutes");
  }
});

Deno.test("an invite token in a query string is not used, echoed or logged", async () => {
  await using app = await unlimited();
  const { token } = await cliInvite(app, "Nia");
  const res = await app.request(`${STAFF_PATHS.enrol}?invite=${token}`);
  assert.equal(res.status, 200);
  const page = await res.text();
  assert.ok(!page.includes(token), "the page does not carry it into a form or link");
  assert.match(page, /<input type="hidden" name="invite" value="">/);
  assert.ok(!JSON.stringify(app.logs).includes(token));
  assert.equal(res.headers.get("referrer-policy"), "same-origin");
});

Deno.test("a sibling subdomain's page cannot use a member's passkey, nor post a ceremony", async () => {
  await using app = await unlimited();
  const sam = await enrolled(app, "Sam Owner");
  // A page at evil.api.test may ask for the passkeys of api.test (a registrable suffix of its
  // own host): the assertion names its origin, which is not the console's.
  const begin = await ceremonyPost(app, STAFF_PATHS.signInOptions, {});
  const phished = await sam.auth.get((await begin.json()).options, {
    origin: "https://evil.api.test",
  });
  assert.deepEqual(await refusal(await ceremonyPost(app, STAFF_PATHS.signIn, phished)), [
    400,
    "not_verified",
    null,
  ]);
  const sibling = await ceremonyPost(app, STAFF_PATHS.signIn, phished, {
    origin: "https://evil.api.test",
  });
  assert.deepEqual(await refusal(sibling), [403, "origin", null]);
});

Deno.test("ceremony bodies past 64 KiB are refused with 413, and store nothing", async () => {
  await using app = await unlimited();
  const { token } = await cliInvite(app, "Nia");
  const big = JSON.stringify({ invite: token, pad: "x".repeat(70 * 1024) });
  for (const path of [STAFF_PATHS.enrolOptions, STAFF_PATHS.enrol, STAFF_PATHS.signIn]) {
    for (const chunked of [false, true]) {
      const body = chunked
        ? new Blob([big]).stream() // no Content-Length: the reader counts
        : big;
      const res = await app.request(path, {
        method: "POST",
        headers: { Origin: app.config.baseUrl, "Content-Type": "application/json" },
        body,
      });
      assert.equal(res.status, 413, `${path} chunked=${chunked}`);
      await res.body?.cancel();
    }
  }
  assert.deepEqual(await Array.fromAsync(app.kv.list({ prefix: ["staff_ceremonies"] })), []);
});

Deno.test("the sign-in and enrolment pages are framed by nobody and cached by nobody", async () => {
  await using app = await unlimited({ STAFF_ENROL_CODE: "framed-pages-code-0123456789" });
  await signedIn(app);
  for (const path of [STAFF_PATHS.signIn, STAFF_PATHS.enrol]) {
    const res = await app.request(path);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-frame-options"), "DENY", path);
    assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
    assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform", path);
    await res.body?.cancel();
  }
});
