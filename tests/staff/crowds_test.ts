/**
 * The staff door closed to crowds (issue 40, point 4): a caller with many addresses (IPv6
 * /64s behind a trusted proxy) meets the cap on all callers together (`staff_all`,
 * `RATE_LIMIT_STAFF_GLOBAL`, 30 a minute) on every passkey ceremony begun: guesses at the
 * enrolment code, invite tokens and anonymous sign-in challenges alike. Two instances share
 * one store; once the cap is full every begin is refused with 429, the right code too, and
 * nothing more is written.
 */

import assert from "node:assert/strict";
import { createApp, FakeClock, type TestApp } from "../_helpers.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { WINDOW_MS } from "../../src/http/rate_limit.ts";
import { rateCounterKey } from "../../src/store/keys.ts";
import { listMembers } from "../../src/store/staff.ts";
import { SoftAuthenticator } from "./_authenticator.ts";
import { cliInvite, enrolWith } from "./_ceremony.ts";
import { storeDump } from "./_review.ts";
import { signedIn } from "./_staff.ts";

const CODE = "crowds-test-enrol-code-Hq7Vz2Rk9Wm4";
const CAP = 30; // the default of RATE_LIMIT_STAFF_GLOBAL

/** Two instances on one store and one clock, behind a proxy that appends the caller. */
async function twoInstances(kv: Deno.Kv): Promise<[TestApp, TestApp]> {
  const clock = new FakeClock();
  const env = { TRUST_PROXY: "true", STAFF_ENROL_CODE: CODE };
  return [await createApp({ kv, env, clock }), await createApp({ kv, env, clock })];
}

/** A ceremony POST from the `i`th /64, as the proxy forwards it. */
function begin(app: TestApp, path: string, body: unknown, i: number): Promise<Response> {
  return app.request(path, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: app.config.baseUrl,
      "X-Forwarded-For": `2001:db8:${i.toString(16)}::1`,
    },
    body: JSON.stringify(body),
  });
}

/** The answers of `n` begins at once, from `n` /64s, alternating between the instances. */
async function crowd(
  [a, b]: [TestApp, TestApp],
  path: string,
  body: (i: number) => unknown,
  n: number,
  from = 0,
): Promise<{ status: number; error?: string }[]> {
  return await Promise.all(Array.from({ length: n }, async (_, k) => {
    const i = from + k;
    const res = await begin(i % 2 ? a : b, path, body(i), i);
    const json = await res.json();
    return json.error ? { status: res.status, error: json.error } : { status: res.status };
  }));
}

function tally(answers: { status: number; error?: string }[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const { status, error = "ok" } of answers) {
    t[`${status} ${error}`] = (t[`${status} ${error}`] ?? 0) + 1;
  }
  return t;
}

async function counter(app: TestApp): Promise<number | null> {
  const window = Math.floor(app.clock.now() / WINDOW_MS);
  return (await app.kv.get<number>(rateCounterKey("staff_all", "*", window))).value;
}

Deno.test("40 wrong enrolment codes from 40 /64s through two instances: 30 answered, then 429 with no write", async () => {
  using kv = await Deno.openKv(":memory:");
  const apps = await twoInstances(kv);
  await using a = apps[0];
  await using _b = apps[1];
  const wrong = (i: number) => ({ code: `wrong-guess-${i}-Hq7Vz2Rk9Wm4`, name: "Guesser" });
  const answers = await crowd(apps, STAFF_PATHS.enrolOptions, wrong, 40);
  assert.deepEqual(tally(answers), { "403 code_wrong": CAP, "429 rate_limited": 40 - CAP });
  assert.equal(await counter(a), CAP);

  const before = await storeDump(kv);
  const more = await crowd(apps, STAFF_PATHS.enrolOptions, wrong, 10, 40);
  assert.deepEqual(tally(more), { "429 rate_limited": 10 });
  // The right code is refused alike: past the cap an answer tells no right guess from a wrong one.
  const right = await begin(a, STAFF_PATHS.enrolOptions, { code: CODE, name: "Ada Ops" }, 99);
  assert.equal(right.status, 429);
  assert.equal(right.headers.get("ratelimit-policy"), `"staff_all";q=${CAP};w=60`);
  assert.match((await right.json()).message, /from all callers together/);
  assert.deepEqual(
    await storeDump(kv),
    before,
    "nothing written once capped: no counter, no challenge",
  );

  // The next minute the right code enrols.
  a.clock.advance(WINDOW_MS);
  const done = await enrolWith(a, new SoftAuthenticator(a.config.baseUrl), {
    code: CODE,
    name: "Ada Ops",
  });
  assert.equal(done.res.status, 200);
  assert.equal(await counter(a), 1, "the begin counted, not the answer");
  assert.ok(
    a.logs.some((r) => r.msg === "staff ceremony refused" && r.reason === "rate_limited"),
  );
});

Deno.test("40 unknown invite tokens from 40 /64s: 30 answered, then 429 with no write, the real invite too", async () => {
  using kv = await Deno.openKv(":memory:");
  const apps = await twoInstances(kv);
  await using a = apps[0];
  await using b = apps[1];
  const { token } = await cliInvite(a, "Kim Invited");
  const guess = (i: number) => ({ invite: `${"g".repeat(40)}${i.toString().padStart(3, "0")}` });
  const answers = await crowd(apps, STAFF_PATHS.enrolOptions, guess, 40);
  assert.deepEqual(tally(answers), { "400 invite_unknown": CAP, "429 rate_limited": 40 - CAP });
  const before = await storeDump(kv);
  const real = await begin(b, STAFF_PATHS.enrolOptions, { invite: token }, 77);
  assert.equal(real.status, 429);
  await real.body?.cancel();
  assert.deepEqual(await storeDump(kv), before);
  a.clock.advance(WINDOW_MS);
  const done = await enrolWith(b, new SoftAuthenticator(b.config.baseUrl), { invite: token });
  assert.equal(done.res.status, 200);
  assert.equal((await listMembers(kv)).length, 1);
});

Deno.test("anonymous sign-in challenges: at most 30 stored a minute from all callers together", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const apps = await twoInstances(kv);
  await using a = apps[0];
  await using _b = apps[1];
  await signedIn(a); // sign-in is off until someone has enrolled
  const stored = async () =>
    (await Array.fromAsync(kv.list({ prefix: ["staff_ceremonies"] }))).length;
  await t.step("40 begins from 40 /64s: 30 challenges, 10 refused with no write", async () => {
    const answers = await crowd(apps, STAFF_PATHS.signInOptions, () => ({}), 40);
    assert.deepEqual(tally(answers), { "200 ok": CAP, "429 rate_limited": 40 - CAP });
    assert.equal(await stored(), CAP);
    const before = await storeDump(kv);
    assert.deepEqual(tally(await crowd(apps, STAFF_PATHS.signInOptions, () => ({}), 10, 40)), {
      "429 rate_limited": 10,
    });
    assert.deepEqual(await storeDump(kv), before);
  });
  await t.step(
    "each minute 30 more; a challenge lives 5 minutes, so at most 180 live",
    async () => {
      for (let minute = 1; minute <= 7; minute++) {
        a.clock.advance(WINDOW_MS);
        const answers = await crowd(apps, STAFF_PATHS.signInOptions, () => ({}), 35, minute * 100);
        assert.equal(answers.filter((r) => r.status === 200).length, CAP);
      }
      const now = a.clock.now();
      let live = 0;
      for await (const e of kv.list<{ expires_at: number }>({ prefix: ["staff_ceremonies"] })) {
        if (e.value.expires_at > now) live++;
      }
      assert.equal(live, 5 * CAP, "the last five minutes' challenges");
      assert.ok(live <= 6 * CAP);
    },
  );
});

Deno.test("a begin its address's limit refuses takes no place of the cap on all callers", async () => {
  await using app = await createApp({
    env: { STAFF_ENROL_CODE: CODE, RATE_LIMIT_STAFF: "2" },
  });
  const statuses = [];
  for (let i = 0; i < 6; i++) {
    const res = await app.request(STAFF_PATHS.enrolOptions, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.config.baseUrl },
      body: JSON.stringify({ code: `wrong-${i}-Hq7Vz2Rk9Wm4xx`, name: "Guesser" }),
      address: "198.51.100.7",
    });
    statuses.push(res.status);
    await res.body?.cancel();
  }
  assert.deepEqual(statuses, [403, 403, 429, 429, 429, 429]);
  assert.equal(await counter(app), 2);
});

Deno.test("RATE_LIMIT_STAFF_GLOBAL=0 switches the cap off", async () => {
  await using app = await createApp({
    env: { TRUST_PROXY: "true", STAFF_ENROL_CODE: CODE, RATE_LIMIT_STAFF_GLOBAL: "0" },
  });
  const answers = await crowd(
    [app, app],
    STAFF_PATHS.enrolOptions,
    (i) => ({ code: `wrong-guess-${i}-Hq7Vz2Rk9Wm4`, name: "G" }),
    40,
  );
  assert.deepEqual(tally(answers), { "403 code_wrong": 40 });
  assert.equal(await counter(app), null);
});
