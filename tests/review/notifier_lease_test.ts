/**
 * The notice lease: a stop aborts the webhook POST in flight and leaves the notice leased,
 * never lost and never marked sent; and the lease holds between instances whose clocks
 * are up to `MAX_CLOCK_SKEW_MS` apart: no instance sends a notice another is still sending,
 * and a notice left by a crashed (or stopped) instance is taken over once its lease ends.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { declareBackground } from "../../src/ops/background.ts";
import {
  LEASE_MS,
  MAX_CLOCK_SKEW_MS,
  type NotifierDeps,
  sendNotices,
  startReviewNotifier,
} from "../../src/review/notifier.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { LEAD } from "../_fixtures.ts";
import { createApp, outboxEntries, post, type TestApp } from "../_helpers.ts";
import { receiver, silentWebhook } from "./_notices.ts";

/** An instance's notifier dependencies: its own store handle and a clock `skewMs` off. */
function instance(
  app: TestApp,
  webhookUrl: string,
  options: { kv?: Deno.Kv; skewMs?: number; fetch?: typeof fetch } = {},
): NotifierDeps {
  const { kv = app.kv, skewMs = 0 } = options;
  return {
    kv,
    config: loadConfig({ BASE_URL: "https://api.test", REVIEW_WEBHOOK_URL: webhookUrl }),
    now: () => app.clock.now() + skewMs,
    log: (r) => app.logs.push(r),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
}

async function submit(app: TestApp): Promise<string> {
  const res = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": crypto.randomUUID() });
  assert.equal(res.status, 202);
  return (await res.json()).request_id;
}

/** Two handles on one store file, as two instances have: `a` and `b`. */
async function twoHandles() {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-lease-" });
  const a = await Deno.openKv(`${dir}/kv.sqlite3`);
  const b = await Deno.openKv(`${dir}/kv.sqlite3`);
  return {
    a,
    b,
    async [Symbol.asyncDispose]() {
      a.close();
      b.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("stop() returns at once with a webhook POST in flight, and the lease sends it again", async () => {
  await using silent = silentWebhook();
  await using app = await createApp();
  const id = await submit(app);
  const claimedAt = app.clock.now();
  const notifier = startReviewNotifier(instance(app, silent.url));
  await silent.received; // the POST is out, and will never be answered
  const started = performance.now();
  await notifier.stop();
  const took = performance.now() - started;
  // Generous: a stop that waits for the POST waits out its 10 s timeout.
  assert.ok(took < 3_000, `stop() took ${Math.round(took)} ms`);

  // Neither lost nor marked sent: still in the outbox, under its lease, with no error.
  assert.deepEqual((await outboxEntries(app.kv)).map((e) => e.value), [{
    request_id: id,
    kind: "lead",
    attempts: 1,
    next_attempt_at: claimedAt + LEASE_MS,
    last_error: null,
  }]);
  assert.equal((await getSubmission(app.kv, id)).value?.notified_at, null);
  assert.ok(
    app.logs.some((l) => l.msg === "review notice cut by a stop" && l.submission_id === id),
  );
  assert.ok(!app.logs.some((l) => l.msg === "review webhook failed; will retry"));

  // The next start, once the lease is over, sends it; not before.
  await using hook = receiver();
  app.clock.advance(LEASE_MS - 1);
  assert.equal(await sendNotices(instance(app, hook.url)), 0, "still leased");
  app.clock.advance(1);
  const next = startReviewNotifier(instance(app, hook.url));
  try {
    for (let i = 0; i < 500 && !(await getSubmission(app.kv, id)).value?.notified_at; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await next.stop();
  }
  assert.ok((await getSubmission(app.kv, id)).value?.notified_at, "sent after the lease");
  assert.deepEqual(hook.hits.map((h) => JSON.parse(h.body).request_id), [id]);
});

Deno.test("a drain's stop of the schedules also aborts a scheduled pass's POST in flight", async () => {
  await using silent = silentWebhook();
  await using app = await createApp();
  const id = await submit(app);
  const jobs = new Map<string, () => Promise<void>>();
  const background = declareBackground((name, _schedule, _signal, run) => jobs.set(name, run));
  background.start(instance(app, silent.url));
  const tick = jobs.get("dcfs review notices")!();
  await silent.received;
  const started = performance.now();
  await background.stop();
  await tick;
  assert.ok(performance.now() - started < 3_000, "stopped without waiting for the webhook");
  const [entry] = await outboxEntries(app.kv);
  assert.equal(entry?.value.request_id, id);
  assert.equal(entry?.value.last_error, null);
  assert.equal((await getSubmission(app.kv, id)).value?.notified_at, null);
});

Deno.test(`clocks ${MAX_CLOCK_SKEW_MS / 1000} s apart: an instance ahead never sends a notice another is still sending`, async () => {
  await using hook = receiver();
  await using store = await twoHandles();
  await using app = await createApp({ kv: store.a });
  const id = await submit(app);
  // B's clock runs MAX_CLOCK_SKEW_MS ahead of A's: it sees A's lease end that much early.
  const b = instance(app, hook.url, { kv: store.b, skewMs: MAX_CLOCK_SKEW_MS });
  const passesOfB: number[] = [];
  const a = instance(app, hook.url, {
    fetch: async (url, init) => {
      // A's POST and the commits after it take all the bound leaves them: B passes, and
      // passes again, while A is still at it.
      for (const step of [LEASE_MS / 2, LEASE_MS / 2 - MAX_CLOCK_SKEW_MS - 1]) {
        app.clock.advance(step);
        passesOfB.push(await sendNotices(b));
      }
      return await fetch(url, init);
    },
  });
  assert.equal(await sendNotices(a), 1);
  assert.deepEqual(passesOfB, [0, 0], "B left A's lease alone");
  assert.deepEqual(hook.hits.map((h) => JSON.parse(h.body).request_id), [id], "sent once");
  assert.ok((await getSubmission(app.kv, id)).value?.notified_at);
  assert.ok(!app.logs.some((l) => l.msg === "review notice outlasted its lease"));
});

for (const skewMs of [MAX_CLOCK_SKEW_MS, -MAX_CLOCK_SKEW_MS]) {
  const side = skewMs > 0 ? "ahead" : "behind";
  Deno.test(`a crashed instance's lease is taken over by one ${Math.abs(skewMs) / 1000} s ${side} once it ends by that clock`, async () => {
    await using silent = silentWebhook();
    await using hook = receiver();
    await using store = await twoHandles();
    await using app = await createApp({ kv: store.a });
    const id = await submit(app);
    const claimedAt = app.clock.now();
    // A claims the notice and dies with its POST unanswered: the store holds the claim, and
    // nothing after it (a stop leaves exactly that).
    const a = startReviewNotifier(instance(app, silent.url));
    await silent.received;
    await a.stop();
    const b = instance(app, hook.url, { kv: store.b, skewMs });
    // By A's clock, B takes it over at the lease's end minus B's lead (or plus its lag).
    app.clock.advance(claimedAt + LEASE_MS - skewMs - 1 - app.clock.now());
    assert.equal(await sendNotices(b), 0, "not before the lease ends by B's clock");
    app.clock.advance(1);
    assert.equal(await sendNotices(b), 1, "taken over and sent");
    assert.deepEqual(hook.hits.map((h) => JSON.parse(h.body).request_id), [id]);
    assert.ok((await getSubmission(app.kv, id)).value?.notified_at);
  });
}

Deno.test("a notice whose lease the store used up before its POST is left to the lease, not sent late", async () => {
  await using hook = receiver();
  await using app = await createApp();
  const id = await submit(app);
  // The store stalls on the submission's read, past the part of the lease a POST may use.
  const stalling = new Proxy(app.kv, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name !== "get") return typeof value === "function" ? value.bind(target) : value;
      return async (key: Deno.KvKey) => {
        const got = await target.get(key);
        if (key[0] === "submissions") app.clock.advance(LEASE_MS - MAX_CLOCK_SKEW_MS);
        return got;
      };
    },
  });
  assert.equal(await sendNotices(instance(app, hook.url, { kv: stalling })), 0);
  assert.equal(hook.hits.length, 0, "no POST that could outlast the lease");
  assert.ok(app.logs.some((l) => l.msg === "review notice left to its lease"));
  // Another instance, as far ahead as the bound allows, takes it over and sends it once.
  const ahead = instance(app, hook.url, { skewMs: MAX_CLOCK_SKEW_MS });
  assert.equal(await sendNotices(ahead), 1);
  assert.equal(hook.hits.length, 1);
  assert.ok((await getSubmission(app.kv, id)).value?.notified_at);
});
