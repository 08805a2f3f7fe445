/**
 * The demand record (store/demand.ts) and its batches as the service writes them: instances
 * on one store add up, a lost answer counts once, a store that fails loses the batch and
 * says so, every count expires 40 days after its write, and the top places are summed over
 * the days read, a day's read bounded.
 */

import assert from "node:assert/strict";
import { type RemoteStore, remoteStore } from "../_remote_store.ts";
import { createApp, FakeClock, type TestApp } from "../_helpers.ts";
import { Store } from "../../src/store/store.ts";
import {
  addDemand,
  DAY_CAP,
  DEMAND_RETENTION_DAYS,
  type DemandCount,
  demandDay,
  topDemand,
} from "../../src/store/demand.ts";
import { DAY_MS } from "../../src/time.ts";

async function farAway(latencyMs = 2): Promise<RemoteStore & AsyncDisposable> {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs });
  return Object.assign(kv, { [Symbol.asyncDispose]: () => Promise.resolve(local.close()) });
}

/** Every stored count, by place name. */
async function stored(kv: Deno.Kv): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const e of kv.list<{ n: number; name: string }>({ prefix: ["demand"] })) {
    out[e.value.name] = e.value.n;
  }
  return out;
}

/** `n` reads of each of `cities` on `app` (GET /api/v1/locations), not yet flushed. */
async function read(app: TestApp, cities: readonly string[], n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    for (const city of cities) {
      const res = await app.request(`/api/v1/locations?${new URLSearchParams({ city })}`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  }
}

const CITIES = ["Reykjavik", "Boise", "Timbuktu", "Nairobi", "Perth", "Lagos", "Cork"];
const NAMES = ["Reykjavík", "Boise", "Timbuktu", "Nairobi", "Perth", "Lagos", "Cork"];

Deno.test("two instances flushing the same places at once add up: no update is lost", async () => {
  await using kv = await farAway();
  const clock = new FakeClock();
  await using one = await createApp({ kv, clock });
  await using two = await createApp({ kv, clock });
  for (let round = 1; round <= 3; round++) {
    await read(one, CITIES, 2);
    await read(two, CITIES, 3);
    await Promise.all([one.handler.demand.flush(), two.handler.demand.flush()]);
    assert.deepEqual(await stored(kv.local), Object.fromEntries(NAMES.map((n) => [n, 5 * round])));
  }
  // Both read every count as absent, so one commit of each round failed its check.
  assert.ok(kv.stats.commit > 6, `${kv.stats.commit} commits: the instances never conflicted`);
  assert.deepEqual([...one.logs, ...two.logs].filter((l) => l.level !== "info"), []);
});

Deno.test("a flush whose commit's answer was lost counts once", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv });
  await read(app, CITIES, 2);
  const commits = kv.stats.commit;
  kv.faults.lostAnswer(1);
  await app.handler.demand.flush();
  kv.faults.heal();
  assert.equal(kv.stats.commit, commits + 1, "one commit, sent twice by the client");
  assert.deepEqual(await stored(kv.local), Object.fromEntries(NAMES.map((n) => [n, 2])));
});

Deno.test("a flush the store fails loses its batch, logs one warning without a place, and never throws", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv: new Store(kv, { deadlineMs: 50 }) });
  await read(app, CITIES);
  kv.faults.hang();
  await app.handler.demand.flush();
  kv.faults.heal();
  const warnings = app.logs.filter((l) => l.level === "warn");
  assert.deepEqual(warnings, [{
    level: "warn",
    msg: "demand counts not written",
    lost: CITIES.length,
    reason: "the store did not answer in time; retry shortly",
  }]);
  // The hung commit may land once healed: at most once.
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(Object.values(await stored(kv.local)).every((n) => n <= 1));
});

Deno.test(`every count is written to expire ${DEMAND_RETENTION_DAYS} days after its write`, async () => {
  const kv = await Deno.openKv(":memory:");
  const sets: { key: Deno.KvKey; expireIn?: number }[] = [];
  const spied = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const set = op.set.bind(op);
          op.set = (key, value, options) => {
            sets.push({ key, expireIn: options?.expireIn });
            return set(key, value, options);
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await using app = await createApp({ kv: spied });
  await read(app, CITIES, 2);
  await app.handler.demand.flush();
  const demand = sets.filter((s) => s.key[0] === "demand");
  assert.equal(demand.length, CITIES.length);
  assert.ok(demand.every((s) => s.expireIn === DEMAND_RETENTION_DAYS * DAY_MS));
  kv.close();
});

const place = (name: string, country = "IS") => ({ name, country, subdivision: null });

Deno.test("the top places are summed over the days read, with the days each was seen", async () => {
  using kv = await Deno.openKv(":memory:");
  const now = Date.UTC(2026, 10, 22, 12);
  const day = (ago: number) => demandDay(now - ago * DAY_MS);
  const counts: DemandCount[] = [
    { day: day(0), place: place("Akureyri"), n: 2 },
    { day: day(0), place: place("Boise", "US"), n: 1 },
    { day: day(1), place: place("Akureyri"), n: 3 },
    { day: day(29), place: place("Boise", "US"), n: 5 },
    { day: day(30), place: place("Boise", "US"), n: 100 }, // the 31st day back
    { day: day(2), place: place("Cork", "IE"), n: 1 },
  ];
  assert.deepEqual(await addDemand(kv, counts), { lost: 0 });
  const top = await topDemand(kv, now);
  assert.deepEqual(top, {
    from: day(29),
    to: day(0),
    places: 3,
    rows: [
      { ...place("Boise", "US"), requests: 6, days: 2 },
      { ...place("Akureyri"), requests: 5, days: 2 },
      { ...place("Cork", "IE"), requests: 1, days: 1 },
    ],
    cut: [],
  });
  assert.deepEqual((await topDemand(kv, now, 2, 1)).rows, [
    { ...place("Akureyri"), requests: 5, days: 2 },
  ]);
  assert.equal((await topDemand(kv, now, 31)).rows[0]!.requests, 106);
});

Deno.test(`a day is read up to ${DAY_CAP} places, and named when it reaches them`, async () => {
  using kv = await Deno.openKv(":memory:");
  const now = Date.UTC(2026, 10, 22, 12);
  const today = demandDay(now);
  const counts = Array.from({ length: DAY_CAP + 1 }, (_, i) => ({
    day: today,
    place: place(`P${String(i).padStart(5, "0")}`),
    n: 1,
  }));
  assert.deepEqual(await addDemand(kv, counts), { lost: 0 });
  const top = await topDemand(kv, now, 30, 5);
  assert.equal(top.places, DAY_CAP);
  assert.deepEqual(top.cut, [today]);
  assert.equal(top.rows.length, 5);
});
