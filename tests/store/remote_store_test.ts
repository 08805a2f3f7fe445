/**
 * The far-away test store (tests/_remote_store.ts): its latency, its limits (each at the
 * edge Deno's own store agrees with), its faults and its count of sequential round trips.
 * Timings are lower bounds (a timer never fires early) and generous upper ones only.
 */

import assert from "node:assert/strict";
import {
  keyBytes,
  type RemoteStore,
  remoteStore,
  STORE_LIMITS,
  valueBytes,
} from "../_remote_store.ts";
import { Store } from "../../src/store/store.ts";

async function open(options: Parameters<typeof remoteStore>[1] = {}) {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, options);
  return Object.assign(kv, { [Symbol.dispose]: () => local.close() }) as RemoteStore & Disposable;
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const out = await f();
  return [out, performance.now() - started];
}

async function refusal(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
  } catch (err) {
    assert.ok(err instanceof TypeError, String(err));
    return err.message;
  }
  return "accepted";
}

/** What Deno's own store says of the same call: "accepted" or its message. */
async function denoSays(f: (kv: Deno.Kv) => Promise<unknown>): Promise<string> {
  using kv = await Deno.openKv(":memory:");
  return await refusal(() => f(kv));
}

Deno.test("remote store: a strong operation waits the latency, an eventual read far less", async () => {
  using kv = await open({ latencyMs: 400, eventualLatencyMs: 0 });
  await kv.local.set(["a"], 1);
  const [got, strong] = await timed(() => kv.get(["a"]));
  assert.equal(got.value, 1);
  assert.ok(strong >= 395, `strong get took ${strong} ms`);
  const [, commit] = await timed(() => kv.set(["b"], 2));
  assert.ok(commit >= 395, `commit took ${commit} ms`);
  const [eventual, fast] = await timed(() => kv.get(["b"], { consistency: "eventual" }));
  assert.equal(eventual.value, 2);
  assert.ok(fast < 350, `eventual get took ${fast} ms`);
  assert.deepEqual(
    { get: kv.stats.get, commit: kv.stats.commit, eventual: kv.stats.eventual },
    { get: 2, commit: 1, eventual: 1 },
  );
});

Deno.test("remote store: a write is visible to others before its writer hears back", async () => {
  using kv = await open({ latencyMs: 400 });
  const write = kv.set(["a"], 1);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await kv.local.get(["a"])).value, 1);
  await write;
});

Deno.test("remote store: sequential operations are trips, parallel ones count once", async () => {
  using kv = await open({ latencyMs: 20 });
  kv.mark();
  await kv.get(["a"]);
  await kv.set(["a"], 1);
  assert.equal(kv.trips(), 2);
  kv.mark();
  await Promise.all([
    kv.get(["a"]),
    kv.getMany([["a"], ["b"]]),
    kv.atomic().set(["c"], 1).commit(),
  ]);
  assert.equal(kv.trips(), 1);
  assert.deepEqual(kv.log.map((o) => [o.kind, o.wave, o.depth]), [
    ["get", kv.stats.waves, 1],
    ["getMany", kv.stats.waves, 1],
    ["commit", kv.stats.waves, 1],
  ]);
  assert.deepEqual(kv.sinceMark(), {
    get: 1,
    getMany: 1,
    list: 0,
    commit: 1,
    enqueue: 0,
    eventual: 0,
    refused: 0,
    waves: 1,
  });
  // Chains that overlap count by their length, not as one wave.
  kv.mark();
  await Promise.all([0, 1, 2].map(async (i) => {
    await new Promise((r) => setTimeout(r, i * 5));
    await kv.get(["a"]);
    await kv.get(["b"]);
    await kv.get(["c"]);
  }));
  assert.equal(kv.trips(), 3);
});

Deno.test("remote store: a list costs one trip a batch, with Deno's batches and cursors", async () => {
  using kv = await open({ latencyMs: 5 });
  const op = kv.local.atomic();
  for (let i = 0; i < 250; i++) op.set(["p", i], i);
  await op.commit();
  kv.mark();
  const all = await Array.fromAsync(kv.list({ prefix: ["p"] })); // batches of 100
  assert.equal(all.length, 250);
  assert.equal(kv.trips(), 3);
  kv.mark();
  const iter = kv.list<number>({ prefix: ["p"] }, { limit: 40 });
  const first = await Array.fromAsync(iter);
  const rest = await Array.fromAsync(kv.list<number>({ prefix: ["p"] }, { cursor: iter.cursor }));
  assert.deepEqual([first.length, first.at(-1)?.value, rest[0]?.value, rest.length], [
    40,
    39,
    40,
    210,
  ]);
  assert.equal(kv.sinceMark().list, 1 + 3);
});

Deno.test("remote store: a group commit over it commits a group in one trip", async () => {
  using kv = await open({ latencyMs: 20 });
  const grouped = new Store(kv, { local: true }); // two groups in flight
  kv.mark();
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => grouped.atomic().set(["g", i], i).commit()),
  );
  assert.ok(results.every((r) => r.ok));
  // Two commits go out at once (the pipeline), the other eight together after the first:
  // those eight waited for two round trips.
  assert.equal(kv.sinceMark().commit, 3);
  assert.equal(kv.trips(), 2);
});

Deno.test("remote store: the limits refuse what denokv or Deploy refuses, as Deno does", async () => {
  using kv = await open();
  const checks = (n: number) => (s: Deno.Kv) => {
    const op = s.atomic();
    for (let i = 0; i < n; i++) op.check({ key: ["c", i], versionstamp: null });
    return op.commit();
  };
  assert.equal(await refusal(() => checks(10)(kv)), "accepted");
  assert.equal(await refusal(() => checks(11)(kv)), "Too many checks (max 10)");
  assert.equal(await denoSays(checks(11)), "accepted"); // the one limit local SQLite lacks
  const keys = (n: number) => Array.from({ length: n }, (_, i) => ["k", i]);
  assert.equal(await refusal(() => kv.getMany(keys(11))), "Too many ranges (max 10)");
  assert.equal(
    await refusal(() => Array.fromAsync(kv.list({ prefix: [] }, { batchSize: 1001 }))),
    "Too many entries (max 1000)",
  );
  assert.equal(kv.stats.refused, 3);
  assert.equal(kv.stats.commit + kv.stats.getMany + kv.stats.list, 1, "refused calls are not sent");
});

Deno.test("remote store: each size limit sits exactly where Deno's own store puts it", async () => {
  using kv = await open();
  const long = (bytes: number, i = 0) => [`${i}`.padStart(4, "0") + "k".repeat(bytes - 6)];
  const cases: [string, (s: Deno.Kv) => Promise<unknown>][] = [];
  for (const bytes of [2048, 2049]) {
    cases.push([`key ${bytes}`, (s) => s.set(long(bytes), 1)]);
    cases.push([`read key ${bytes + 1}`, (s) => s.get(long(bytes + 1))]);
  }
  for (const n of [65530, 65531]) cases.push([`value ${n}`, (s) => s.set(["v"], "a".repeat(n))]);
  for (const n of [40, 41]) {
    cases.push([`${n} keys of 2 KiB`, (s) => {
      const op = s.atomic();
      for (let i = 0; i < n; i++) op.set(long(2048, i), 1);
      return op.commit();
    }]);
  }
  // 12 values of 64 KiB at 12-byte keys, counted twice: 786,720 bytes; 32,474 more fit.
  for (const extra of [32474, 32475]) {
    cases.push([`mutation size +${extra}`, (s) => {
      const op = s.atomic();
      for (let i = 0; i < 12; i++) op.set(["v", i], new Uint8Array(65536));
      return op.set(["w"], new Uint8Array(extra - 6)).delete(["x"]).check({
        key: ["y"],
        versionstamp: null,
      }).commit();
    }]);
  }
  for (const n of [1000, 1001]) {
    cases.push([`${n} mutations`, (s) => {
      const op = s.atomic();
      for (let i = 0; i < n; i++) op.delete(["d", i]);
      return op.commit();
    }]);
  }
  for (const [name, call] of cases) {
    assert.equal(`${name}: ${await refusal(() => call(kv))}`, `${name}: ${await denoSays(call)}`);
  }
});

Deno.test("remote store: key and value sizes are counted as KV encodes them", () => {
  assert.equal(
    keyBytes(["ab", 1, true, 0n, 255n, -256n, new Uint8Array([0, 1])]),
    4 + 9 + 1 + 1 + 2 + 3 + 5,
  );
  assert.equal(keyBytes([2n ** 70n]), 2 + 9);
  assert.equal(keyBytes(["é"]), 4);
  assert.equal(valueBytes(new Uint8Array(10)), 10);
  assert.equal(valueBytes(new Deno.KvU64(5n)), 8);
  assert.ok(valueBytes({ a: "x".repeat(100) }) > 100);
  assert.equal(STORE_LIMITS.checks, 10);
});

Deno.test("remote store: limits can be turned off or changed", async () => {
  {
    using kv = await open({ limits: false });
    const op = kv.atomic();
    for (let i = 0; i < 11; i++) op.check({ key: ["c", i], versionstamp: null });
    assert.ok((await op.commit()).ok);
  }
  using kv = await open({ limits: { checks: 2 } });
  const op = kv.atomic().check({ key: ["a"], versionstamp: null }, {
    key: ["b"],
    versionstamp: null,
  });
  assert.equal(
    await refusal(() => op.check({ key: ["c"], versionstamp: null }).commit()),
    "Too many checks (max 2)",
  );
});

Deno.test("remote store: hang holds operations, unapplied, until healed", async () => {
  using kv = await open({ latencyMs: 10 });
  kv.faults.hang(1);
  const hung = kv.set(["a"], 1);
  let answered = false;
  void hung.then(() => answered = true);
  const other = await kv.get(["b"]); // only the next one hangs
  assert.equal(other.value, null);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(answered, false);
  assert.equal(kv.faults.held, 1);
  assert.equal((await kv.local.get(["a"])).value, null, "not applied while it hangs");
  kv.faults.heal();
  assert.ok((await hung).ok);
  assert.equal((await kv.local.get(["a"])).value, 1);
  assert.equal(kv.faults.held, 0);
});

Deno.test("remote store: hang without a count holds every operation until healed", async () => {
  using kv = await open();
  kv.faults.hang();
  const calls = [kv.get(["a"]), kv.getMany([["a"]]), Array.fromAsync(kv.list({ prefix: [] }))];
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(kv.faults.held, 3);
  assert.equal(kv.inFlight, 3);
  kv.faults.heal();
  await Promise.all(calls);
  assert.equal(kv.inFlight, 0);
});

Deno.test("remote store: a lost answer re-sends the commit: its check now fails", async () => {
  using kv = await open({ latencyMs: 10 });
  kv.faults.lostAnswer();
  const res = await kv.atomic().check({ key: ["a"], versionstamp: null }).set(["a"], 1).commit();
  assert.equal(res.ok, false, "the caller sees the re-sent commit, whose check failed");
  assert.equal((await kv.local.get(["a"])).value, 1, "the first commit was applied");
  // Only the next commit: the one after is answered as usual.
  assert.ok(
    (await kv.atomic().check({ key: ["b"], versionstamp: null }).set(["b"], 1).commit()).ok,
  );
});

Deno.test("remote store: a lost answer re-sends a check-free sum, applied twice", async () => {
  using kv = await open();
  kv.faults.lostAnswer();
  assert.ok((await kv.atomic().sum(["n"], 1n).commit()).ok);
  assert.equal((await kv.local.get<Deno.KvU64>(["n"])).value?.value, 2n);
});

Deno.test("remote store: a burst delays the next operations, then they answer", async () => {
  using kv = await open();
  kv.faults.burst(300, 2);
  const [both, ms] = await timed(() => Promise.all([kv.set(["a"], 1), kv.get(["a"])]));
  assert.ok(both[0].ok);
  assert.ok(ms >= 295, `the burst took ${ms} ms`);
  const [, after] = await timed(() => kv.get(["a"]));
  assert.ok(after < 250, `after the burst a read took ${after} ms`);
});

Deno.test("remote store: an atomic operation is not a promise, as Deno's is not", async () => {
  using kv = await open();
  // deno-lint-ignore no-explicit-any
  assert.throws(() => (kv.atomic() as any).then(), TypeError);
});
