import assert from "node:assert/strict";
import { rateCounterKey } from "../../src/store/keys.ts";
import { WINDOW_MS } from "../../src/http/rate_limit.ts";
import { basic, createApp, registerClient } from "../_helpers.ts";

const register = (app: Awaited<ReturnType<typeof createApp>>, address = "192.0.2.1") =>
  app.request("/agent/identity", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"type":"anonymous"}',
    address,
  });

Deno.test("POST /agent/identity is rate limited per client address with 429 and RateLimit headers", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "3" } });
  for (let i = 0; i < 3; i++) {
    const res = await register(app);
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("ratelimit-policy"), '"register";q=3;w=60');
    assert.equal(res.headers.get("ratelimit"), `"register";r=${2 - i};t=60`);
    await res.body?.cancel();
  }
  const res = await register(app);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "60");
  assert.equal(res.headers.get("ratelimit-policy"), '"register";q=3;w=60');
  assert.equal(res.headers.get("ratelimit"), '"register";r=0;t=60');
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  const body = await res.json();
  assert.equal(body.error, "rate_limited");
  assert.equal(typeof body.error_description, "string");

  // Another address has its own budget; the window resets after a minute.
  const other = await register(app, "192.0.2.99");
  assert.equal(other.status, 201);
  await other.body?.cancel();
  app.clock.advance(60_000);
  const later = await register(app);
  assert.equal(later.status, 201);
  await later.body?.cancel();
});

Deno.test("Retry-After counts down to the end of the window", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "1" } });
  (await register(app)).body?.cancel();
  app.clock.advance(45_500);
  const res = await register(app);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "15");
  await res.body?.cancel();
});

Deno.test("POST /oauth2/token and /oauth2/revoke are rate limited before authentication", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_TOKEN: "2", RATE_LIMIT_REVOKE: "2" } });
  for (const [path, bucket] of [["/oauth2/token", "token"], ["/oauth2/revoke", "revoke"]]) {
    await t.step(path!, async () => {
      const send = () =>
        app.request(path!, {
          method: "POST",
          headers: {
            Authorization: basic("agt_guess", "wrong"),
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: "grant_type=client_credentials&token=x",
        });
      for (let i = 0; i < 2; i++) {
        const res = await send();
        assert.equal(res.status, 401);
        await res.body?.cancel();
      }
      const res = await send();
      assert.equal(res.status, 429);
      assert.equal(res.headers.get("ratelimit-policy"), `"${bucket}";q=2;w=60`);
      assert.equal((await res.json()).error, "rate_limited");
    });
  }
});

Deno.test("RATE_LIMIT_* = 0 switches a limit off", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "0" } });
  for (let i = 0; i < 15; i++) await registerClient(app);
  const res = await register(app);
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("ratelimit-policy"), null);
  await res.body?.cancel();
});

Deno.test("TRUST_PROXY counts the last X-Forwarded-For entry, not a forged first one", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "1", TRUST_PROXY: "true" } });
  const send = (xff: string) =>
    app.request("/agent/identity", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": xff },
      body: '{"type":"anonymous"}',
      address: "10.0.0.1",
    });
  const first = await send("198.51.100.1, 203.0.113.7");
  assert.equal(first.status, 201);
  await first.body?.cancel();
  const forged = await send("198.51.100.2, 203.0.113.7");
  assert.equal(forged.status, 429);
  await forged.body?.cancel();
  const other = await send("203.0.113.8");
  assert.equal(other.status, 201);
  await other.body?.cancel();
});

Deno.test("without TRUST_PROXY, X-Forwarded-For is ignored", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "1" } });
  const send = (xff: string) =>
    app.request("/agent/identity", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": xff },
      body: '{"type":"anonymous"}',
    });
  (await send("198.51.100.1")).body?.cancel();
  const res = await send("198.51.100.2");
  assert.equal(res.status, 429);
  await res.body?.cancel();
});

Deno.test("concurrent requests under the limit are all admitted", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_TOKEN: "1000" } });
  const responses = await Promise.all(
    Array.from({ length: 50 }, () =>
      app.request("/oauth2/token", {
        method: "POST",
        headers: {
          Authorization: basic("agt_x", "y"),
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: "grant_type=client_credentials",
      })),
  );
  const statuses = await Promise.all(
    responses.map(async (r) => (await r.body?.cancel(), r.status)),
  );
  assert.deepEqual([...new Set(statuses)], [401]);
});

Deno.test("concurrent requests over the limit admit exactly the limit", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "5" } });
  const responses = await Promise.all(Array.from({ length: 20 }, () => register(app)));
  const statuses = await Promise.all(
    responses.map(async (r) => (await r.body?.cancel(), r.status)),
  );
  assert.equal(statuses.filter((s) => s === 201).length, 5);
  assert.equal(statuses.filter((s) => s === 429).length, 15);
});

Deno.test("IPv6 addresses share one budget per /64; IPv4-mapped addresses count as IPv4", async (t) => {
  await t.step("rotating addresses inside one /64 gains nothing", async () => {
    await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "2" } });
    const statuses = [];
    for (let i = 1; i <= 4; i++) {
      const res = await register(app, `2001:db8:1:2::${i}`);
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [201, 201, 429, 429]);
    const other = await register(app, "2001:db8:1:3::1");
    assert.equal(other.status, 201);
    await other.body?.cancel();
  });
});

Deno.test("counters expire on their own: each is set with expireIn to the end of the next window", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "5" } });
  (await register(app)).body?.cancel();
  // Each registration counts per address and towards the global cap: two keys a window,
  // plain values written by check-and-set, nothing for a sweep to find.
  const entries = await Array.fromAsync(app.kv.list({ prefix: ["rate_counters"] }));
  assert.equal(entries.length, 2);
  for (const e of entries) {
    assert.equal(typeof e.value, "number");
    assert.ok(!(e.value instanceof Deno.KvU64));
  }
});

Deno.test("a caller over its limit is refused from memory: no store write, the same 429", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "2" } });
  const window = Math.floor(app.clock.now() / WINDOW_MS);
  const counted = async () =>
    (await app.kv.get<number>(rateCounterKey("register", "192.0.2.1", window))).value;
  const answers: number[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await register(app);
    answers.push(res.status);
    if (res.status === 429) {
      assert.equal(res.headers.get("ratelimit"), `"register";r=0;t=60`);
      assert.ok(res.headers.get("retry-after"));
    }
    await res.body?.cancel();
  }
  await t.step("two admitted, then eight 429s", () => {
    assert.deepEqual(answers, [201, 201, 429, 429, 429, 429, 429, 429, 429, 429]);
  });
  await t.step("no refusal was counted in the store: a refusal writes nothing", async () => {
    assert.equal(await counted(), 2);
  });
  await t.step("the next window counts again", async () => {
    app.clock.advance(60_000);
    const res = await register(app);
    assert.equal(res.status, 201);
    await res.body?.cancel();
  });
});
