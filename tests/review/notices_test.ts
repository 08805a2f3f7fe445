/**
 * `deno task review notices`: the notice backlog as the operator reads it, now that
 * `/readyz` no longer says it; and the CLI's exit when the store does not answer.
 */

import assert from "node:assert/strict";
import { runReview } from "../../src/review/cli.ts";
import { NOTICE_STALE_MS } from "../../src/review/backlog.ts";
import { type Kv, Store } from "../../src/store/store.ts";
import { createApp, post } from "../_helpers.ts";
import { LEAD, QUOTE } from "../_fixtures.ts";
import { remoteStore } from "../_remote_store.ts";

function io(kv: Kv, now: () => number) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { kv, now, out: (l: string) => out.push(l), err: (l: string) => err.push(l) },
  };
}

Deno.test("review notices: how many wait, how old the oldest is, and when that is stale", async () => {
  await using app = await createApp();
  const none = io(app.kv, app.clock.now);
  assert.equal(await runReview(["notices"], none.io), 0);
  assert.deepEqual(none.out, ["No review notice is waiting."]);

  assert.equal((await post(app, "/api/v1/intake", LEAD)).status, 202);
  app.clock.advance(60_000);
  assert.equal((await post(app, "/api/v1/quotes", QUOTE)).status, 202);
  app.clock.advance(30_000);
  const two = io(app.kv, app.clock.now);
  assert.equal(await runReview(["notices"], two.io), 0);
  assert.deepEqual(two.out, ["2 review notices waiting; the oldest for 90 s."]);

  app.clock.advance(NOTICE_STALE_MS);
  const stale = io(app.kv, app.clock.now);
  assert.equal(await runReview(["notices"], stale.io), 0);
  assert.match(stale.out[0]!, /^2 review notices waiting; the oldest for 17 min\. Stale: over 15/);
  const json = io(app.kv, app.clock.now);
  assert.equal(await runReview(["notices", "--json"], json.io), 0);
  assert.deepEqual(JSON.parse(json.out[0]!), {
    waiting: 2,
    oldest_age_s: 990,
    stale: true,
    stale_after_s: 900,
  });
  assert.doesNotMatch(JSON.stringify([two.out, stale.out, json.out]), /example\.com|lead_|quote_/);
});

Deno.test("review CLI: a store that does not answer ends the run with exit 1 and a plain message", async () => {
  const local = await Deno.openKv(":memory:");
  const store = remoteStore(local);
  const run = io(new Store(store, { deadlineMs: 200 }), Date.now);
  store.faults.hang();
  assert.equal(await runReview(["notices"], run.io), 1);
  assert.deepEqual(run.out, []);
  assert.match(run.err[0]!, /^error: the store did not answer in time/);
  store.faults.heal();
  local.close();
});
