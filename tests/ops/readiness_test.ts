/**
 * Liveness (`/healthz`, the process alone) and readiness (`/readyz`, the store answers
 * in time and its breaker is closed, and nothing else), through the handler and through the real process on a store that
 * Deno KV is still clearing of expired keys.
 */

import assert from "node:assert/strict";
import { createApp, post } from "../_helpers.ts";
import { LEAD, QUOTE } from "../_fixtures.ts";
import { remoteStore } from "../_remote_store.ts";
import { startService } from "../_service.ts";
import { READY_CACHE_MS } from "../../src/ops/readiness.ts";
import { NOTICE_STALE_MS } from "../../src/review/backlog.ts";
import { STORE_DEADLINE_MS } from "../../src/store/deadline.ts";
import { Store } from "../../src/store/store.ts";

Deno.test("GET /healthz answers 200 from the process alone, even with the store closed", async () => {
  const kv = await Deno.openKv(":memory:");
  await using app = await createApp({ kv });
  kv.close();
  const res = await app.request("/healthz");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await res.json(), { ok: true });
});

Deno.test("GET /readyz says only ready: nothing in it moves with submissions or the webhook", async () => {
  await using app = await createApp();
  const answer = async () => {
    app.clock.advance(READY_CACHE_MS); // a fresh check each time
    const res = await app.request("/readyz");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    return await res.text();
  };
  const empty = await answer();
  assert.deepEqual(JSON.parse(empty), { ready: true });
  // Submissions wait for their notice (no notifier runs here), then grow stale: the
  // webhook failing for longer than its backoff. None of it shows.
  assert.equal((await post(app, "/api/v1/intake", LEAD)).status, 202);
  assert.equal(await answer(), empty);
  assert.equal((await post(app, "/api/v1/quotes", QUOTE)).status, 202);
  app.clock.advance(NOTICE_STALE_MS + 60_000);
  assert.equal(await answer(), empty);
});

Deno.test("GET /readyz answers 503 when the store is closed, and when it does not answer in time", async () => {
  const kv = await Deno.openKv(":memory:");
  await using closed = await createApp({ kv });
  kv.close();
  const down = await closed.request("/readyz");
  assert.equal(down.status, 503);
  assert.ok(down.headers.get("retry-after"));
  assert.deepEqual(await down.json(), { ready: false });

  // A store whose reads hang: the answer comes at the store's deadline, not never.
  const local = await Deno.openKv(":memory:");
  const hanging = remoteStore(local);
  await using app = await createApp({ kv: hanging });
  hanging.faults.hang();
  const started = performance.now();
  const slow = await app.request("/readyz");
  const ms = performance.now() - started;
  assert.equal(slow.status, 503);
  assert.deepEqual(await slow.json(), { ready: false });
  assert.ok(ms >= STORE_DEADLINE_MS - 50 && ms < 30_000, `answered after ${ms} ms`);
  hanging.faults.heal();
  local.close();
});

Deno.test("GET /readyz is 503 while the store's breaker is open, and 200 once a probe closes it", async () => {
  const local = await Deno.openKv(":memory:");
  const store = remoteStore(local);
  const kv = new Store(store, { deadlineMs: 200, probeAfterMs: 100 });
  await using app = await createApp({ kv });
  store.faults.hang(1);
  assert.equal((await post(app, "/api/v1/intake", LEAD)).status, 503); // the miss opens it
  assert.equal(kv.breakerClosed, false);
  const ready = async () => {
    app.clock.advance(READY_CACHE_MS);
    const res = await app.request("/readyz");
    await res.body?.cancel();
    return res.status;
  };
  assert.equal(await ready(), 503, "the store answers again, but the breaker is open");
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await ready(), 503, "this check sends the probe, and answers at once");
  for (let i = 0; i < 100 && !kv.breakerClosed; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(await ready(), 200);
  local.close();
});

Deno.test("GET /readyz asked 50 times at once reads the store once; again after a second", async () => {
  const local = await Deno.openKv(":memory:");
  const store = remoteStore(local);
  await using app = await createApp({ kv: store });
  const before = store.stats.get;
  const answers = await Promise.all(Array.from({ length: 50 }, () => app.request("/readyz")));
  assert.ok(answers.every((r) => r.status === 200));
  await Promise.all(answers.map((r) => r.body?.cancel()));
  assert.equal(store.stats.get - before, 1, "one ping for 50 answers");
  app.clock.advance(READY_CACHE_MS);
  await (await app.request("/readyz")).body?.cancel();
  assert.equal(store.stats.get - before, 2, "a second later the store is asked again");
  local.close();
});

Deno.test("the real process answers /healthz at once while Deno KV clears a backlog of expired keys", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-expired-" });
  const kvPath = `${dir}/kv.sqlite3`;
  try {
    // 200,000 expired keys, as tokens issued in the last minutes before a stop would leave:
    // the first read of the next process waits while KV deletes them (about 9 µs a key).
    const kv = await Deno.openKv(kvPath);
    for (let i = 0; i < 200_000; i += 1000) {
      const op = kv.atomic();
      for (let j = i; j < i + 1000; j++) {
        op.set(["tokens", `expired-${j}`], { client_id: "x" }, { expireIn: 1 });
      }
      await op.commit();
    }
    kv.close();
    await new Promise((r) => setTimeout(r, 50));

    await using service = await startService({ KV_PATH: kvPath });
    const timed = async (path: string) => {
      const started = performance.now();
      const res = await fetch(`${service.baseUrl}${path}`);
      await res.body?.cancel();
      return { status: res.status, ms: performance.now() - started };
    };
    const [live, ready] = await Promise.all([timed("/healthz"), timed("/readyz")]);
    assert.equal(live.status, 200);
    assert.ok(live.ms < 1_000, `/healthz took ${live.ms} ms`);
    assert.ok(
      live.ms < ready.ms,
      `/healthz (${live.ms} ms) waited on the store like /readyz (${ready.ms} ms)`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
