/**
 * Rate limits over a far-away store shared by two handlers (two instances): exact under
 * concurrent bursts, the global cap never passed, lost answers and stale replicas counted
 * once, and what instance clock skew does to the one-minute windows (docs/architecture.md,
 * "Rate limits"). Counts, not times.
 */

import assert from "node:assert/strict";
import { type RemoteStore, remoteStore } from "../_remote_store.ts";
import { createApp, FakeClock, type TestApp } from "../_helpers.ts";
import { rateCounterKey } from "../../src/store/keys.ts";
import { WINDOW_MS } from "../../src/http/rate_limit.ts";

async function farAway(): Promise<RemoteStore & AsyncDisposable> {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: 2 });
  return Object.assign(kv, { [Symbol.asyncDispose]: () => Promise.resolve(local.close()) });
}

const JSON_TYPE = { "Content-Type": "application/json" };

function registration(app: TestApp, address: string): Promise<number> {
  return app.request("/agent/identity", {
    method: "POST",
    headers: JSON_TYPE,
    body: '{"type":"anonymous"}',
    address,
  }).then(async (r) => (await r.body?.cancel(), r.status));
}

function leadFrom(app: TestApp, address: string, n: number, key?: string): Promise<Response> {
  return app.request("/api/v1/intake", {
    method: "POST",
    headers: key ? { ...JSON_TYPE, "Idempotency-Key": key } : JSON_TYPE,
    body: JSON.stringify({ email: "ops@example.com", description: `burst ${n}` }),
    address,
  });
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => (t[s] = (t[s] ?? 0) + 1, t), {});

async function counter(kv: Deno.Kv, clock: FakeClock, bucket: string, address: string) {
  const window = Math.floor(clock.now() / WINDOW_MS);
  return (await kv.get<number>(rateCounterKey(bucket, address, window))).value ?? 0;
}

/** Two instances: two handlers, each with its own memory, on one store and one clock. */
async function twoInstances(kv: Deno.Kv, env: Record<string, string>, clock = new FakeClock()) {
  return [await createApp({ kv, env, clock }), await createApp({ kv, env, clock })] as const;
}

Deno.test("a burst from one address admits exactly the limit, on one instance and across two", async (t) => {
  await t.step("one instance: 30 at once, limit 7", async () => {
    await using kv = await farAway();
    await using app = await createApp({ kv, env: { RATE_LIMIT_REGISTER: "7" } });
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => registration(app, "198.51.100.1")),
    );
    assert.deepEqual(tally(statuses), { 201: 7, 429: 23 });
    assert.equal(await counter(kv.local, app.clock, "register", "198.51.100.1"), 7);
  });
  await t.step("two instances, alternating: 40 at once, limit 7, a few answers lost", async () => {
    await using kv = await farAway();
    const [a, b] = await twoInstances(kv, { RATE_LIMIT_REGISTER: "7" });
    kv.faults.lostAnswer(3);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => registration(i % 2 ? a : b, "198.51.100.2")),
    );
    kv.faults.heal();
    assert.deepEqual(tally(statuses), { 201: 7, 429: 33 });
    assert.equal(await counter(kv.local, a.clock, "register", "198.51.100.2"), 7);
    assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["clients"] }))).length, 7);
  });
  await t.step("two instances: 20 leads at once from one address, limit 5", async () => {
    await using kv = await farAway();
    const [a, b] = await twoInstances(kv, { RATE_LIMIT_SUBMIT: "5" });
    const statuses = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          leadFrom(i % 2 ? a : b, "198.51.100.3", i).then(async (
            r,
          ) => (await r.body?.cancel(), r.status)),
      ),
    );
    assert.deepEqual(tally(statuses), { 202: 5, 429: 15 });
    assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }))).length, 5);
  });
});

Deno.test("the global cap is never passed across two instances: 40 registrations from 40 addresses", async () => {
  await using kv = await farAway();
  const [a, b] = await twoInstances(kv, { RATE_LIMIT_REGISTER_GLOBAL: "9" });
  const statuses = await Promise.all(
    Array.from({ length: 40 }, (_, i) => registration(i % 2 ? a : b, `203.0.113.${i}`)),
  );
  const admitted = statuses.filter((s) => s === 201).length;
  assert.deepEqual(tally(statuses), { 201: admitted, 429: 40 - admitted });
  // Exactly the cap: every place is taken in the commit of the registration that uses it.
  assert.equal(admitted, 9);
  assert.equal(await counter(kv.local, a.clock, "register_all", "*"), 9);
  assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["clients"] }))).length, 9);
});

/**
 * A replica that has seen nothing: every eventual read finds every key absent. The commits
 * that follow check versionstamps, so the stale reads only cost a failed check and a
 * strong read back.
 */
function staleReplica(kv: Deno.Kv): Deno.Kv {
  const absent = (key: Deno.KvKey) => ({ key, value: null, versionstamp: null });
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return (key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) =>
          o?.consistency === "eventual" ? Promise.resolve(absent(key)) : target.get(key, o);
      }
      if (prop === "getMany") {
        return (keys: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) =>
          o?.consistency === "eventual"
            ? Promise.resolve(keys.map(absent))
            : target.getMany(keys, o);
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("eventual reads that are stale cost a retry, never a count or a replay", async (t) => {
  await using kv = await farAway();
  const stale = staleReplica(kv);
  const clock = new FakeClock();
  await t.step("three instances, each knowing nothing, limit 2: two admitted", async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      await using app = await createApp({ kv: stale, env: { RATE_LIMIT_REGISTER: "2" }, clock });
      statuses.push(await registration(app, "198.51.100.9"));
    }
    assert.deepEqual(statuses, [201, 201, 429]);
    assert.equal(await counter(kv.local, clock, "register", "198.51.100.9"), 2);
  });
  await t.step(
    "an Idempotency-Key sent again to another instance replays the first answer",
    async () => {
      const ids = [];
      for (let i = 0; i < 2; i++) {
        await using app = await createApp({ kv: stale, clock });
        const res = await leadFrom(app, "198.51.100.10", 1, "stale-1");
        assert.equal(res.status, 202);
        ids.push((await res.json()).request_id);
      }
      assert.equal(ids[0], ids[1]);
      assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }))).length, 1);
    },
  );
});

Deno.test("clock skew: instances s seconds apart share every window key, and open the next s seconds early", async () => {
  await using kv = await farAway();
  const limit = 3;
  const env = { RATE_LIMIT_REGISTER: String(limit) };
  const skew = 5_000;
  // Instance A's clock is right; B's runs 5 s ahead. A is 58 s into a window, B 3 s into the next.
  const start = Math.floor(Date.UTC(2026, 10, 22) / WINDOW_MS) * WINDOW_MS + 58_000;
  const clockA = Object.assign(new FakeClock(), { t: start });
  const clockB = Object.assign(new FakeClock(), { t: start + skew });
  await using a = await createApp({ kv, env, clock: clockA });
  await using b = await createApp({ kv, env, clock: clockB });
  const burst = async (app: TestApp, n: number) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await registration(app, "198.51.100.20"));
    return out;
  };
  const advance = (ms: number) => (clockA.advance(ms), clockB.advance(ms));
  // A fills its window; B, already in the next window, fills that one.
  assert.deepEqual(await burst(a, limit + 1), [201, 201, 201, 429]);
  assert.deepEqual(await burst(b, limit + 1), [201, 201, 201, 429]);
  // Three seconds later A reaches the window B filled: one key, one count, nothing more.
  advance(3_000);
  assert.deepEqual(await burst(a, 1), [429]);
  // B opens the window after s seconds before A does: 57 s after the first request, a third
  // limit's worth, which with no skew takes more than 60 s. In any span of T seconds at most
  // (ceil((T + s) / 60) + 1) * limit are admitted: here T = 57, s = 5, three windows.
  advance(2 * WINDOW_MS - 58_000 - skew - 3_000);
  assert.deepEqual(await burst(a, 1), [429], "A is still in the window B filled");
  assert.deepEqual(await burst(b, limit + 1), [201, 201, 201, 429]);
  assert.equal(clockA.now() - start, 2 * WINDOW_MS - 58_000 - skew);
  // Never more than the limit under one window key, whoever's clock chose it.
  const counters = await Array.fromAsync(
    kv.local.list<number>({ prefix: ["rate_counters"] }),
  );
  const perAddress = counters.filter((e) => e.key[2] === "register");
  assert.deepEqual(perAddress.map((e) => e.value), [limit, limit, limit]);
});
