/**
 * Liveness (`/healthz`, the process alone) and readiness (`/readyz`, the store and the
 * notice backlog), through the handler and through the real process on a store that
 * Deno KV is still clearing of expired keys.
 */

import assert from "node:assert/strict";
import { createApp, post } from "../_helpers.ts";
import { QUOTE } from "../_fixtures.ts";
import { startService } from "../_service.ts";
import { NOTICE_STALE_MS, READY_CACHE_MS, STORE_TIMEOUT_MS } from "../../src/ops/readiness.ts";

Deno.test("GET /healthz answers 200 from the process alone, even with the store closed", async () => {
  const kv = await Deno.openKv(":memory:");
  await using app = await createApp({ kv });
  kv.close();
  const res = await app.request("/healthz");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await res.json(), { ok: true });
});

Deno.test("GET /readyz: 200 while the store answers, the oldest waiting notice's age, stale after 15 minutes", async () => {
  await using app = await createApp();
  const empty = await app.request("/readyz");
  assert.equal(empty.status, 200);
  assert.equal(empty.headers.get("cache-control"), "no-store");
  const body = await empty.json();
  assert.equal(body.ready, true);
  assert.equal(body.store.ok, true);
  assert.deepEqual(body.notices, { oldest_age_s: null, stale: false, stale_after_s: 900 });

  // Two submissions wait for their notice (no notifier runs here): the older one counts.
  assert.equal(
    (await post(app, "/api/v1/intake", { email: "a@example.com", description: "x" })).status,
    202,
  );
  app.clock.advance(60_000);
  assert.equal(
    (await post(app, "/api/v1/quotes", QUOTE)).status,
    202,
  );
  app.clock.advance(30_000);
  const waiting = await (await app.request("/readyz")).json();
  assert.deepEqual(waiting.notices, { oldest_age_s: 90, stale: false, stale_after_s: 900 });

  // Stale notices are said, and leave the instance ready: every instance shares the outbox.
  app.clock.advance(NOTICE_STALE_MS);
  const stale = await app.request("/readyz");
  assert.equal(stale.status, 200);
  const staleBody = await stale.json();
  assert.equal(staleBody.notices.stale, true);
  assert.doesNotMatch(JSON.stringify(staleBody), /example\.com|lead_|quote_/);
});

Deno.test("GET /readyz answers 503 when the store is closed, and when it does not answer in time", async () => {
  const kv = await Deno.openKv(":memory:");
  await using closed = await createApp({ kv });
  kv.close();
  const down = await closed.request("/readyz");
  assert.equal(down.status, 503);
  const body = await down.json();
  assert.equal(body.ready, false);
  assert.equal(body.store.ok, false);

  // A store whose reads hang, the ping's or the backlog's: the answer comes after the
  // deadline, not never.
  for (const hang of ["get", "list"]) {
    const live = await Deno.openKv(":memory:");
    const hanging = new Proxy(live, {
      get(target, name) {
        if (name === hang) return () => hang === "get" ? new Promise(() => {}) : _never();
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await using app = await createApp({ kv: hanging });
    const started = performance.now();
    const slow = await app.request("/readyz");
    const ms = performance.now() - started;
    assert.equal(slow.status, 503, hang);
    assert.equal((await slow.json()).store.ok, false);
    assert.ok(ms >= STORE_TIMEOUT_MS - 50 && ms < 30_000, `${hang}: answered after ${ms} ms`);
    live.close();
  }
});

/** A KV list iterator that never yields. */
function _never(): AsyncIterableIterator<never> {
  return {
    next: () => new Promise(() => {}),
    [Symbol.asyncIterator]() {
      return this;
    },
  } as AsyncIterableIterator<never>;
}

Deno.test("GET /readyz asked 50 times at once reads the store once; again after a second", async () => {
  const live = await Deno.openKv(":memory:");
  let reads = 0;
  const counting = new Proxy(live, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name === "get" || name === "list") reads++;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await using app = await createApp({ kv: counting });
  const before = reads;
  const answers = await Promise.all(Array.from({ length: 50 }, () => app.request("/readyz")));
  assert.ok(answers.every((r) => r.status === 200));
  await Promise.all(answers.map((r) => r.body?.cancel()));
  const one = reads - before;
  assert.ok(one >= 1 && one <= 4, `${one} reads for 50 answers`);
  app.clock.advance(READY_CACHE_MS);
  await (await app.request("/readyz")).body?.cancel();
  assert.ok(reads - before > one, "a second later the store is asked again");
  live.close();
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
