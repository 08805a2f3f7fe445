/**
 * Reads of many keys over the far-away test store (tests/_remote_store.ts): a page of the
 * review outbox, and a page of submissions, cost round trips by the hundred keys, not one
 * a key.
 */

import assert from "node:assert/strict";
import { remoteStore } from "../_remote_store.ts";
import { dueKey, newNoticeKey, outboxKey, submissionKey } from "../../src/store/keys.ts";
import { listDueOutbox, listNewOutbox, type OutboxEntry } from "../../src/store/outbox.ts";
import { getSubmissions } from "../../src/store/submissions.ts";
import { getEach } from "../../src/store/pages.ts";

const ids = (n: number) =>
  Array.from({ length: n }, (_, i) => `lead_${String(i).padStart(26, "0")}`);

Deno.test("getEach reads keys in order, 100 a round trip, at most 10 keys a getMany", async () => {
  await using local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: 2 });
  const keys = ids(250).map((id) => ["k", id]);
  const op = local.atomic();
  for (const [i, key] of keys.entries()) if (i % 2) op.set(key, i);
  assert.ok((await op.commit()).ok);
  kv.mark();
  const entries = await getEach<number>(kv, keys);
  assert.deepEqual(entries.map((e) => e.value), keys.map((_, i) => i % 2 ? i : null));
  assert.equal(kv.trips(), 3);
  assert.equal(kv.sinceMark().getMany, 25);
  assert.equal(kv.stats.refused, 0);
});

Deno.test("a page of 100 due notices, and of 100 new ones, read together: two round trips", async () => {
  await using local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: 2 });
  const now = Date.UTC(2026, 0, 1);
  for (const chunk of [ids(100).slice(0, 50), ids(100).slice(50)]) {
    const op = local.atomic();
    for (const id of chunk) {
      const entry: OutboxEntry = {
        request_id: id,
        kind: "lead",
        attempts: 0,
        next_attempt_at: now,
        last_error: null,
      };
      op.set(outboxKey(id), entry).set(dueKey(entry), true).set(newNoticeKey(now, id), true);
    }
    assert.ok((await op.commit()).ok);
  }
  kv.mark();
  const [fresh, page] = await Promise.all([listNewOutbox(kv, 100), listDueOutbox(kv, now, 100)]);
  assert.equal(fresh.length, 100);
  assert.deepEqual(page.due.map((e) => e.value.request_id), ids(100));
  assert.equal(kv.trips(), 2);
});

Deno.test("a page of 200 submissions: two round trips, those erased left out", async () => {
  await using local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: 2 });
  const all = ids(200);
  const op = local.atomic();
  for (const id of all.slice(1)) op.set(submissionKey(id), { request_id: id });
  assert.ok((await op.commit()).ok);
  kv.mark();
  const records = await getSubmissions(kv, all);
  assert.deepEqual(records.map((r) => r.request_id), all.slice(1));
  assert.equal(kv.trips(), 2);
});
