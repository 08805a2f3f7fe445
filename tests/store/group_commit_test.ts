/**
 * Group commit (src/store/group_commit.ts): what each write learns, and how writes are
 * grouped. Commits fired in one tick are deterministic: the first PIPELINE go out
 * alone, at once; the rest wait for one of them and go out together.
 */

import assert from "node:assert/strict";
import {
  GROUP_LIMITS,
  GroupCommit,
  groupLimits,
  PIPELINE,
  REMOTE_PIPELINE,
} from "../../src/store/group_commit.ts";
import { isLocalStore, KV_LIMITS, SQLITE_CHECKS } from "../../src/store/limits.ts";
import { openStore } from "../../src/store/open.ts";
import { type Kv, Store } from "../../src/store/store.ts";
import { remoteStore } from "../_remote_store.ts";

/** Group commit over `raw` within `limits`, committing as `Store` does. */
function grouped(raw: Deno.Kv, limits = GROUP_LIMITS) {
  const group = new GroupCommit((apply) => {
    const op = raw.atomic();
    apply(op);
    return op.commit();
  }, limits);
  return { atomic: () => group.atomic(), groupStats: group.stats };
}

async function store() {
  const raw = await Deno.openKv(":memory:");
  return { kv: grouped(raw), raw, [Symbol.dispose]: () => raw.close() };
}

const setOne = (kv: Pick<Kv, "atomic">, key: Deno.KvKey, value: unknown = 1) =>
  kv.atomic().set(key, value).commit();

Deno.test("group commit: a write with nothing in flight commits at once, alone", async () => {
  using s = await store();
  const res = await setOne(s.kv, ["a"]);
  assert.ok(res.ok);
  assert.deepEqual(s.kv.groupStats, { commits: 1, writes: 1, split: 0 });
  assert.equal((await s.raw.get(["a"])).value, 1);
  assert.equal((await s.raw.get(["a"])).versionstamp, (res as Deno.KvCommitResult).versionstamp);
});

Deno.test("group commit: writes that arrive during a commit go out together", async () => {
  using s = await store();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => setOne(s.kv, ["k", i], i)),
  );
  assert.ok(results.every((r) => r.ok));
  // PIPELINE alone, then the other 48 in one atomic operation.
  assert.deepEqual(s.kv.groupStats, { commits: PIPELINE + 1, writes: 50, split: 0 });
  const stored = await Array.fromAsync(s.raw.list({ prefix: ["k"] }));
  assert.deepEqual(stored.map((e) => e.value), Array.from({ length: 50 }, (_, i) => i));
});

Deno.test("group commit: a group is cut at KV's mutation limit", async () => {
  using s = await store();
  const n = PIPELINE + GROUP_LIMITS.mutations + 10;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => s.kv.atomic().set(["m", i], i).sum(["count"], 1n).commit()),
  );
  assert.ok(results.every((r) => r.ok));
  // Two mutations each: 500 a group, so the 1,010 queued take three groups.
  assert.equal(s.kv.groupStats.commits, PIPELINE + 3);
  assert.equal((await s.raw.get<Deno.KvU64>(["count"])).value?.value, BigInt(n));
});

Deno.test("group commit: a group is cut before KV's size limit", async () => {
  using s = await store();
  const value = new Uint8Array(60 * 1024); // under KV's 64 KiB a value
  const results = await Promise.all(
    Array.from({ length: PIPELINE + 30 }, (_, i) => setOne(s.kv, ["big", i], value)),
  );
  // Thirty 60 KiB values are 1.8 MiB: one atomic operation would be refused.
  assert.ok(results.every((r) => r.ok));
  assert.equal(s.kv.groupStats.split, 0);
  assert.ok(s.kv.groupStats.commits >= PIPELINE + 3, `${s.kv.groupStats.commits} commits`);
  assert.equal((await Array.fromAsync(s.raw.list({ prefix: ["big"] }))).length, PIPELINE + 30);
});

Deno.test("group commit: a failed check fails only its own write", async () => {
  using s = await store();
  await s.raw.set(["taken"], "first");
  const fillers = Array.from({ length: PIPELINE }, (_, i) => setOne(s.kv, ["filler", i]));
  const [before, claim, after] = await Promise.all([
    setOne(s.kv, ["before"]),
    s.kv.atomic().check({ key: ["taken"], versionstamp: null }).set(["taken"], "second").commit(),
    setOne(s.kv, ["after"]),
    ...fillers,
  ]);
  assert.ok(before!.ok);
  assert.equal(claim!.ok, false);
  assert.ok(after!.ok);
  assert.equal((await s.raw.get(["taken"])).value, "first");
  assert.equal((await s.raw.get(["before"])).value, 1);
  assert.equal((await s.raw.get(["after"])).value, 1);
  assert.equal(s.kv.groupStats.split, 1);
});

Deno.test("group commit: a write that throws rejects alone; the others commit", async () => {
  using s = await store();
  const fillers = Array.from({ length: PIPELINE }, (_, i) => setOne(s.kv, ["filler", i]));
  const outcomes = await Promise.allSettled([
    setOne(s.kv, ["ok", 1]),
    setOne(s.kv, ["too-big"], new Uint8Array(70 * 1024)), // over KV's 64 KiB a value
    setOne(s.kv, ["ok", 2]),
    ...fillers,
  ]);
  assert.equal(outcomes[0]!.status, "fulfilled");
  assert.equal(outcomes[1]!.status, "rejected");
  assert.equal(outcomes[2]!.status, "fulfilled");
  assert.equal((await s.raw.get(["too-big"])).versionstamp, null);
  assert.equal((await Array.fromAsync(s.raw.list({ prefix: ["ok"] }))).length, 2);
});

Deno.test("group commit: two writes that check the same key never both pass", async () => {
  using s = await store();
  const fillers = Array.from({ length: PIPELINE }, (_, i) => setOne(s.kv, ["filler", i]));
  // In one atomic operation every check is made before any write, so both would pass:
  // the second starts a new group instead.
  const claim = (who: string) =>
    s.kv.atomic().check({ key: ["slot"], versionstamp: null }).set(["slot"], who).commit();
  const [first, second] = await Promise.all([claim("first"), claim("second"), ...fillers]);
  assert.deepEqual([first!.ok, second!.ok], [true, false]);
  assert.equal((await s.raw.get(["slot"])).value, "first");
});

Deno.test("group commit: reads see a write once its commit has resolved", async () => {
  using s = await store();
  await Promise.all(Array.from({ length: 10 }, (_, i) => setOne(s.kv, ["r", i], i)));
  const entries = await s.raw.getMany(Array.from({ length: 10 }, (_, i) => ["r", i]));
  assert.deepEqual(entries.map((e) => e.value), Array.from({ length: 10 }, (_, i) => i));
});

Deno.test("group commit: a second commit() commits again, as KV's own does", async () => {
  // store/retry_locked.ts retries a commit after "database is locked" by calling commit() again.
  using s = await store();
  const op = s.kv.atomic().sum(["count"], 1n);
  assert.ok((await op.commit()).ok);
  assert.ok((await op.commit()).ok);
  assert.equal((await s.raw.get<Deno.KvU64>(["count"])).value?.value, 2n);
});

/** Group commit over the far-away test store, which refuses what denokv or Deploy would. */
async function remote() {
  const local = await Deno.openKv(":memory:");
  const far = remoteStore(local, { latencyMs: 1 });
  return { far, kv: grouped(far), [Symbol.dispose]: () => local.close() };
}

Deno.test("group commit: a group holds at most 10 checks, as denokv allows", async () => {
  using s = await remote();
  const n = PIPELINE + 60;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      s.kv.atomic().check({ key: ["c", i], versionstamp: null })
        .check({ key: ["d", i], versionstamp: null }).set(["c", i], i).commit()),
  );
  assert.ok(results.every((r) => r.ok));
  assert.equal(s.far.stats.refused, 0, "no group passed a limit");
  assert.equal(s.kv.groupStats.split, 0);
  // Two checks each: five to a group.
  assert.equal(s.kv.groupStats.commits, PIPELINE + 60 / 5);
});

Deno.test("group commit: a group is cut before its keys pass 80 KiB", async () => {
  using s = await remote();
  const long = "k".repeat(1900);
  const results = await Promise.all(
    Array.from({ length: PIPELINE + 120 }, (_, i) => setOne(s.kv, [long, i], i)),
  );
  assert.ok(results.every((r) => r.ok));
  // 120 keys of ~1.9 KiB are 230 KiB: one atomic operation would be refused.
  assert.equal(s.far.stats.refused, 0);
  assert.equal(s.kv.groupStats.split, 0);
  assert.ok(s.kv.groupStats.commits >= PIPELINE + 3, `${s.kv.groupStats.commits} commits`);
});

Deno.test("group commit: on a remote store, 16 groups fly at once", async () => {
  const local = await Deno.openKv(":memory:");
  const far = remoteStore(local, { latencyMs: 20 });
  const kv = new Store(far); // remote: KV_PATH unset is Deno Deploy's KV
  far.mark();
  const n = REMOTE_PIPELINE + 10;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => setOne(kv, ["f", i], i)),
  );
  assert.ok(results.every((r) => r.ok));
  // Sixteen go out alone at once; the ten that came while they flew, together after.
  assert.equal(far.sinceMark().commit, REMOTE_PIPELINE + 1);
  assert.equal(far.trips(), 2);
  local.close();
});

Deno.test("group commit: 100 checks a group only on a local SQLite store, as openStore found it", async () => {
  assert.equal(GROUP_LIMITS.checks, KV_LIMITS.checks);
  assert.ok(GROUP_LIMITS.keyBytes < KV_LIMITS.keyBytes);
  assert.ok(GROUP_LIMITS.bytes < KV_LIMITS.mutationBytes);
  assert.equal(groupLimits(true).checks, SQLITE_CHECKS);
  assert.equal(groupLimits(true).inFlight, PIPELINE);
  assert.equal(groupLimits(false).checks, 10, "Deno Deploy's KV, KV Connect");
  assert.equal(groupLimits(false).inFlight, REMOTE_PIPELINE);
  const dir = await Deno.makeTempDir();
  try {
    const file = await openStore(`${dir}/kv.sqlite3`);
    const memory = await openStore(":memory:");
    assert.equal(file.local, true);
    assert.equal(memory.local, true);
    file.close();
    memory.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  // By KV_PATH: remote when it is unset (Deploy's KV) or a URL (KV Connect).
  assert.equal(isLocalStore(undefined), false);
  assert.equal(isLocalStore("https://kv.example.com/db"), false);
  assert.equal(isLocalStore("/var/lib/dcfs/kv.sqlite3"), true);
});
