/**
 * The background work under the schedules main.ts declares with `Deno.cron`: here a fake
 * scheduler that records each job and runs it on demand, so a test goes through an hour
 * of schedule without waiting for it. And a notice sent without waiting for any schedule.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import {
  type BackgroundDeps,
  declareBackground,
  pacedPause,
  SCHEDULES,
} from "../../src/ops/background.ts";
import { startReviewNotifier } from "../../src/review/notifier.ts";
import {
  getSubmission,
  type SubmissionRecord,
  updateSubmission,
} from "../../src/store/submissions.ts";
import { decidedIndexKey, submissionKey, timeIndexKey } from "../../src/store/keys.ts";
import { newRequestId } from "../../src/intake/ids.ts";
import { createHandler } from "../../src/app.ts";
import { LEAD } from "../_fixtures.ts";
import { catalog, createApp, post, type TestApp } from "../_helpers.ts";

const DAY = 86_400_000;

/** Records `Deno.cron` declarations; `fire(name)` runs one as its schedule would. */
function fakeCron() {
  const jobs = new Map<string, { schedule: string; run: () => Promise<void> }>();
  return {
    jobs,
    schedule: (name: string, schedule: string, _signal: AbortSignal, run: () => Promise<void>) => {
      assert.ok(!jobs.has(name), `${name} declared twice`);
      // Deno.cron's rules for a name: at most 64 of [A-Za-z0-9_ -].
      assert.match(name, /^[A-Za-z0-9_ -]{1,64}$/);
      jobs.set(name, { schedule, run });
    },
    fire: (name: string) => jobs.get(name)!.run(),
  };
}

function deps(app: TestApp, env: Record<string, string>, fetcher?: typeof fetch) {
  return {
    kv: app.kv,
    config: loadConfig({ BASE_URL: "https://api.test", ...env }),
    now: app.clock.now,
    log: (r: Record<string, unknown>) => app.logs.push(r),
    ...(fetcher ? { fetch: fetcher } : {}),
  } satisfies BackgroundDeps;
}

async function submit(app: TestApp): Promise<string> {
  const res = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": crypto.randomUUID() });
  assert.equal(res.status, 202);
  return (await res.json()).request_id;
}

Deno.test("the two jobs are declared before the store is there, each on its schedule", async () => {
  const cron = fakeCron();
  const background = declareBackground(cron.schedule);
  assert.deepEqual(
    [...cron.jobs].map(([name, { schedule }]) => [name, schedule]),
    SCHEDULES.map((s) => [s.name, s.schedule]),
  );
  assert.deepEqual(SCHEDULES.map((s) => s.schedule), ["*/5 * * * *", "17 * * * *"]);
  // A run that starts before the store is open waits for it.
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  let waited = false;
  const early = cron.fire("dcfs retention").then(() => waited = true);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(waited, false);
  background.start(deps(app, {}));
  await early;
  await background.stop();
});

Deno.test("under the schedules: a failed notice is retried by the minute job, retention runs on its own", async () => {
  await using app = await createApp({
    env: { RATE_LIMIT_SUBMIT: "0", SUBMISSION_RETENTION_DAYS: "30" },
  });
  let webhookUp = false;
  const sent: string[] = [];
  const d = deps(
    app,
    { REVIEW_WEBHOOK_URL: "https://hooks.test/review", SUBMISSION_RETENTION_DAYS: "30" },
    (_url, init) => {
      if (!webhookUp) return Promise.resolve(new Response(null, { status: 503 }));
      sent.push(JSON.parse(String(init?.body)).request_id);
      return Promise.resolve(new Response(null, { status: 204 }));
    },
  );
  const cron = fakeCron();
  const background = declareBackground(cron.schedule);
  background.start(d);
  try {
    const id = await submit(app);
    // The first attempt fails; the notice moves to its backoff and stays in the outbox.
    await cron.fire("dcfs review notices");
    assert.equal((await getSubmission(app.kv, id)).value?.notified_at, null);
    // Within its backoff the next tick leaves it; after it, the tick sends it, once.
    webhookUp = true;
    await cron.fire("dcfs review notices");
    assert.deepEqual(sent, []);
    app.clock.advance(60_000);
    await cron.fire("dcfs review notices");
    assert.deepEqual(sent, [id]);
    await cron.fire("dcfs review notices");
    assert.deepEqual(sent, [id], "sent once");
    assert.ok((await getSubmission(app.kv, id)).value?.notified_at);

    // Decided 31 days ago: the hourly retention job erases it.
    const approve = await getSubmission(app.kv, id);
    const decidedAt = new Date(app.clock.now()).toISOString();
    await updateSubmission(app.kv, approve as Deno.KvEntry<NonNullable<typeof approve.value>>, {
      ...approve.value!,
      status: "approved",
      decision: { status: "approved", decided_at: decidedAt, by: "test", note: null },
    });
    app.clock.advance(31 * DAY);
    await cron.fire("dcfs retention");
    assert.equal((await getSubmission(app.kv, id)).value, null);
    assert.ok(app.logs.some((l) => l.msg === "retention purge" && l.erased === 1));
  } finally {
    await background.stop();
  }
  // After stop, a tick does nothing.
  await submit(app);
  await cron.fire("dcfs review notices");
  assert.equal(sent.length, 1);
});

Deno.test("a failing pass is logged, and not thrown into the scheduler", async () => {
  await using app = await createApp();
  const d = deps(app, { SUBMISSION_RETENTION_DAYS: "30" });
  const broken = {
    ...d,
    kv: {
      ...d.kv,
      list: () => {
        throw new Error("store down");
      },
    } as never,
  };
  const cron = fakeCron();
  const background = declareBackground(cron.schedule);
  background.start(broken);
  await cron.fire("dcfs retention");
  assert.ok(app.logs.some((l) => l.msg === "retention failed" && l.level === "warn"));
  await background.stop();
});

Deno.test("a submission's notice is tried at once when the process is awake, not at the next poll", async () => {
  await using app = await createApp();
  const sent: number[] = [];
  const d = deps(app, { REVIEW_WEBHOOK_URL: "https://hooks.test/review" }, () => {
    sent.push(performance.now());
    return Promise.resolve(new Response(null, { status: 204 }));
  });
  // A poll of an hour: only the wake of a stored submission can send it in time.
  const notifier = startReviewNotifier(d, 3_600_000);
  // As main.ts wires it: the handler tells the notifier of each stored submission.
  const handler = createHandler({ ...d, catalog: catalog(), submitted: () => notifier.wake() });
  try {
    await new Promise((r) => setTimeout(r, 50)); // the first pass found nothing
    const started = performance.now();
    const res = await handler(
      new Request("https://api.test/api/v1/intake", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(LEAD),
      }),
      {
        remoteAddr: { transport: "tcp", hostname: "192.0.2.1", port: 1 },
        completed: Promise.resolve(),
      },
    );
    assert.equal(res.status, 202);
    const id = (await res.json()).request_id;
    for (let i = 0; i < 500 && !(await getSubmission(app.kv, id)).value?.notified_at; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok((await getSubmission(app.kv, id)).value?.notified_at, "sent without a poll");
    assert.ok(sent[0]! - started < 5_000, `sent after ${sent[0]! - started} ms`);
  } finally {
    await notifier.stop();
  }
});

/** `n` submissions decided `days` ago, written as the service stores them (record and indexes). */
async function decidedLongAgo(app: TestApp, n: number, days: number): Promise<void> {
  const at = app.clock.now() - days * DAY;
  for (let i = 0; i < n; i += 300) {
    const op = app.kv.atomic();
    for (let j = i; j < Math.min(n, i + 300); j++) {
      const id = newRequestId("lead", at - j);
      const created_at = new Date(at - j).toISOString();
      const record: SubmissionRecord = {
        request_id: id,
        kind: "lead",
        channel: "api",
        summary: { company: null, contact: null, city: null },
        email_hash: null,
        status: "approved",
        created_at,
        payload: { chunks: 0, bytes: 0 },
        service_id: null,
        covered: null,
        site: null,
        budget_estimate: null,
        notified_at: created_at,
        decision: { status: "approved", decided_at: created_at, by: "test", note: null },
        idempotent: false,
      };
      op.set(submissionKey(id), record).set(timeIndexKey(at - j, id), true)
        .set(decidedIndexKey(at - j, id), true);
    }
    assert.ok((await op.commit()).ok);
  }
}

Deno.test("a pass never overlaps itself in one process, and a stop ends a retention pass between pages", async () => {
  await using app = await createApp();
  // 500 submissions past a 30-day retention: five pages of the pass.
  await decidedLongAgo(app, 500, 31);
  const count = async () =>
    (await Array.fromAsync(app.kv.list({ prefix: ["submissions"] }))).length;
  let lists = 0;
  const counting = new Proxy(app.kv, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name === "list") lists++;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const cron = fakeCron();
  const background = declareBackground(cron.schedule);
  background.start({ ...deps(app, { SUBMISSION_RETENTION_DAYS: "30" }), kv: counting });
  // The start-up run and a tick at once: one pass, joined.
  const first = background.run("retention");
  const second = cron.fire("dcfs retention");
  await new Promise((r) => setTimeout(r, 0));
  const stopping = background.stop();
  await Promise.all([first, second, stopping]);
  const left = await count();
  assert.ok(left > 0 && left < 500, `stopped between pages: ${left} submissions left`);
  assert.equal(lists, 1, `${lists} pages listed: the two runs were one`);
  assert.ok(!app.logs.some((l) => l.level === "warn"), "a stop is not a failure");
  // Stopped: a tick does nothing.
  await cron.fire("dcfs retention");
  assert.equal(await count(), left);
});

Deno.test("a paced rest ends at once on a stop", async () => {
  const stop = new AbortController();
  const pause = pacedPause(stop.signal, 0.001); // a rest of 999 times the work
  await new Promise((r) => setTimeout(r, 20)); // 20 ms of "work": a rest of 20 s
  const started = performance.now();
  const resting = pause();
  setTimeout(() => stop.abort(), 10);
  await assert.rejects(resting, /stopped/);
  assert.ok(performance.now() - started < 5_000, "the rest did not run its course");
});
