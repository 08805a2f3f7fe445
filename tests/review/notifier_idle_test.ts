/**
 * The notifier loop of an idle instance: what it costs the store over an hour (on a fake
 * clock whose naps pass at once), and that sleeping never makes a notice later than
 * documented: a retry goes out on its backoff, a new submission at once.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import {
  IDLE_MS,
  type NotifierDeps,
  REVIEW_BACKOFF_MS,
  sendNotices,
  startReviewNotifier,
} from "../../src/review/notifier.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { HOUR_MS } from "../../src/time.ts";
import { LEAD } from "../_fixtures.ts";
import { createApp, post, type TestApp } from "../_helpers.ts";
import { countingKv, totalOps, virtualSleep } from "./_notices.ts";

function deps(app: TestApp, kv: Deno.Kv, fetcher?: typeof fetch): NotifierDeps {
  const env: Record<string, string> = fetcher
    ? { REVIEW_WEBHOOK_URL: "https://hooks.test/review" }
    : {};
  return {
    kv,
    config: loadConfig({ BASE_URL: "https://api.test", ...env }),
    now: app.clock.now,
    log: (r) => app.logs.push(r),
    ...(fetcher ? { fetch: fetcher } : {}),
  };
}

async function submit(app: TestApp): Promise<string> {
  const res = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": crypto.randomUUID() });
  assert.equal(res.status, 202);
  return (await res.json()).request_id;
}

Deno.test("an idle notifier reads the store twice every 10 minutes, not twice a second", async () => {
  await using app = await createApp();
  const { kv, ops } = countingKv(app.kv);
  const start = app.clock.now();
  const virtual = virtualSleep(app.clock, start + HOUR_MS);
  let atStart: number | undefined;
  const notifier = startReviewNotifier(deps(app, kv), IDLE_MS, (ms, signal) => {
    atStart ??= totalOps(ops); // the first pass
    return virtual.sleep(ms, signal);
  });
  await virtual.parked;
  await notifier.stop();
  // An hour: the start, then a pass every IDLE_MS, each two list reads (the new-notice lane
  // and a page of the due index) and nothing else.
  assert.deepEqual(virtual.naps, Array(HOUR_MS / IDLE_MS).fill(IDLE_MS));
  const idle = totalOps(ops) - atStart!;
  assert.equal(idle, 2 * (HOUR_MS / IDLE_MS), JSON.stringify(ops));
  assert.equal(atStart, 2, "the first pass: the same two list reads");
  // The poll of every second it replaces: 7,200 list reads an hour.
  assert.ok(idle * 100 < 7_200);
});

Deno.test("a sleeping notifier retries a failed notice on its backoff, to the millisecond", async () => {
  await using app = await createApp();
  const tried: number[] = [];
  const d = deps(app, app.kv, () => {
    tried.push(app.clock.now());
    const status = tried.length <= REVIEW_BACKOFF_MS.length ? 503 : 204;
    return Promise.resolve(new Response(null, { status }));
  });
  const id = await submit(app);
  const virtual = virtualSleep(app.clock, app.clock.now() + HOUR_MS);
  const notifier = startReviewNotifier(d, IDLE_MS, virtual.sleep);
  await virtual.parked;
  await notifier.stop();
  // Five failures, each retried exactly on its backoff, then sent.
  const waits = tried.slice(1).map((t, i) => t - tried[i]!);
  assert.deepEqual(waits, REVIEW_BACKOFF_MS);
  assert.ok((await getSubmission(app.kv, id)).value?.notified_at);
  // Between the attempts the loop slept: one nap per backoff step, then idle naps.
  assert.deepEqual(virtual.naps.slice(0, REVIEW_BACKOFF_MS.length), REVIEW_BACKOFF_MS);
});

Deno.test("a notifier asleep for its idle interval sends a new submission's notice at once when woken", async () => {
  await using app = await createApp();
  const sent: string[] = [];
  const d = deps(app, app.kv, (_url, init) => {
    sent.push(JSON.parse(String(init?.body)).request_id);
    return Promise.resolve(new Response(null, { status: 204 }));
  });
  // Real timers, an idle interval of an hour: only the wake can send it in time.
  const notifier = startReviewNotifier(d, HOUR_MS);
  try {
    await new Promise((r) => setTimeout(r, 50)); // the first pass found nothing: asleep
    const id = await submit(app);
    notifier.wake();
    for (let i = 0; i < 500 && !sent.includes(id); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(sent, [id]);
  } finally {
    await notifier.stop();
  }
});

Deno.test("a notifier sleeps until the retry another instance wrote, not the idle interval", async () => {
  await using app = await createApp();
  let status = 503;
  const sent: number[] = [];
  const d = deps(app, app.kv, () => {
    sent.push(app.clock.now());
    return Promise.resolve(new Response(null, { status }));
  });
  // Another instance tried the notice once and failed: it is due again in 1 s.
  await submit(app);
  assert.equal(await sendNotices(d), 0);
  const retryAt = app.clock.now() + REVIEW_BACKOFF_MS[0]!;
  status = 204;
  // This instance starts: its first pass finds the notice not due yet, and sleeps until it is.
  const virtual = virtualSleep(app.clock, app.clock.now() + HOUR_MS);
  const notifier = startReviewNotifier(d, IDLE_MS, virtual.sleep);
  await virtual.parked;
  await notifier.stop();
  assert.deepEqual(sent.slice(1), [retryAt]);
  assert.equal(virtual.naps[0], REVIEW_BACKOFF_MS[0]);
});
