/**
 * The notice lease: a stop aborts the webhook POST in flight and leaves the notice leased,
 * never lost and never marked sent, and the lease sends it again.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { declareBackground } from "../../src/ops/background.ts";
import {
  LEASE_MS,
  type NotifierDeps,
  sendNotices,
  startReviewNotifier,
} from "../../src/review/notifier.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { LEAD } from "../_fixtures.ts";
import { createApp, outboxEntries, post, type TestApp } from "../_helpers.ts";
import { receiver, silentWebhook } from "./_notices.ts";

/** An instance's notifier dependencies, sending to `webhookUrl`. */
function instance(app: TestApp, webhookUrl: string): NotifierDeps {
  return {
    kv: app.kv,
    config: loadConfig({ BASE_URL: "https://api.test", REVIEW_WEBHOOK_URL: webhookUrl }),
    now: app.clock.now,
    log: (r) => app.logs.push(r),
  };
}

async function submit(app: TestApp): Promise<string> {
  const res = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": crypto.randomUUID() });
  assert.equal(res.status, 202);
  return (await res.json()).request_id;
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
