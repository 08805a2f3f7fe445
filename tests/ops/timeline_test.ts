/**
 * The review webhook on Deno Deploy's timelines (`DENO_TIMELINE`): production POSTs every
 * notice; a git branch's or a preview's timeline, which reads the Development context's
 * variables and keeps its own database, logs them instead, unless
 * `REVIEW_WEBHOOK_TIMELINES=all`. Each case stores a submission through the handler
 * and runs the notices job as its schedule would.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { declareBackground } from "../../src/ops/background.ts";
import { configForTimeline } from "../../src/ops/platform.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { LEAD } from "../_fixtures.ts";
import { createApp, post } from "../_helpers.ts";

const HOOK = "https://hooks.test/review";

/** What the notices job does with one stored submission on `timeline`, with `env` set. */
async function noticeOn(timeline: string | undefined, env: Record<string, string> = {}) {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const posted: string[] = [];
  const config = configForTimeline(
    loadConfig({ BASE_URL: "https://api.test", REVIEW_WEBHOOK_URL: HOOK, ...env }),
    timeline === undefined ? {} : { DENO_TIMELINE: timeline },
    (r) => app.logs.push(r),
  );
  const jobs = new Map<string, () => Promise<void>>();
  const background = declareBackground((name, _schedule, _signal, run) => jobs.set(name, run));
  background.start({
    kv: app.kv,
    config,
    now: app.clock.now,
    log: (r) => app.logs.push(r),
    fetch: (url, init) => {
      posted.push(`${url} ${JSON.parse(String(init?.body)).request_id}`);
      return Promise.resolve(new Response(null, { status: 204 }));
    },
  });
  try {
    const res = await post(app, "/api/v1/intake", LEAD);
    assert.equal(res.status, 202);
    const { request_id } = await res.json();
    await jobs.get("dcfs review notices")!();
    const record = (await getSubmission(app.kv, request_id)).value!;
    const off = app.logs.filter((l) =>
      /^review webhook off outside production/.test(String(l.msg))
    );
    return { request_id, posted, via: record.notified_via, notified: !!record.notified_at, off };
  } finally {
    await background.stop();
  }
}

Deno.test("on the production timeline, and off Deploy, the notices job POSTs to the webhook", async () => {
  for (const timeline of ["production", undefined]) {
    const seen = await noticeOn(timeline);
    assert.deepEqual(seen.posted, [`${HOOK} ${seen.request_id}`], String(timeline));
    assert.equal(seen.via, "webhook");
    assert.deepEqual(seen.off, []);
  }
});

Deno.test("on a git-branch or preview timeline, notices are logged, not POSTed, and start says so", async () => {
  for (const timeline of ["git-branch/feature-x", "preview/a1b2c3d4"]) {
    const seen = await noticeOn(timeline);
    assert.deepEqual(seen.posted, [], `${timeline}: nothing reaches the webhook`);
    // Still marked notified, as with no webhook: `review show` says how.
    assert.equal(seen.notified, true);
    assert.equal(seen.via, "log");
    assert.equal(seen.off.length, 1);
    assert.equal(seen.off[0]!.timeline, timeline);
    assert.match(String(seen.off[0]!.msg), /REVIEW_WEBHOOK_TIMELINES=all/);
  }
});

Deno.test("REVIEW_WEBHOOK_TIMELINES=all POSTs on a branch timeline too", async () => {
  const seen = await noticeOn("git-branch/feature-x", { REVIEW_WEBHOOK_TIMELINES: "all" });
  assert.deepEqual(seen.posted, [`${HOOK} ${seen.request_id}`]);
  assert.equal(seen.via, "webhook");
  assert.deepEqual(seen.off, []);
});

Deno.test("with no webhook set, a branch timeline changes nothing and logs nothing about it", () => {
  assert.throws(
    () => loadConfig({ REVIEW_WEBHOOK_TIMELINES: "branches" }),
    /^ConfigError: REVIEW_WEBHOOK_TIMELINES must be production or all; got "branches"$/,
  );
  const logs: Record<string, unknown>[] = [];
  const config = loadConfig({ BASE_URL: "https://api.test" });
  const seen = configForTimeline(config, { DENO_TIMELINE: "git-branch/x" }, (r) => logs.push(r));
  assert.equal(seen, config);
  assert.deepEqual(logs, []);
});
