/**
 * The fate of submissions nobody decides: `PENDING_RETENTION_DAYS` (off by default) erases
 * pending ones that many days after they were made, from where its last pass stopped; `review
 * purge --status … --before …` lists, and with `--yes` erases, those of one status, and writes
 * one audit entry. Decided submissions are never taken by the pending pass, and a submission
 * decided while pending ones are purged is kept.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { declareBackground } from "../../src/ops/background.ts";
import { runReview } from "../../src/review/cli.ts";
import { pendingRetentionPass } from "../../src/review/retention.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp, post, reviewCli as cli, type TestApp } from "../_helpers.ts";

const DAY = 86_400_000;

let sent = 0;

/** A new submission: each body differs, since the same one within 10 minutes is a replay. */
async function submit(app: TestApp, body: typeof LEAD = LEAD): Promise<string> {
  app.clock.advance(1_000);
  const path = body === QUOTE ? "/api/v1/quotes" : "/api/v1/intake";
  const unique = { ...body, description: `${body.description} (${++sent})` };
  const res = await post(app, path, unique, { "Idempotency-Key": crypto.randomUUID() });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).request_id;
}

const exists = async (app: TestApp, id: string) => (await getSubmission(app.kv, id)).value !== null;

/** The app's store, counting records read (`getMany` of `submissions` keys). */
function countingReads(kv: Deno.Kv, after?: () => Promise<void>) {
  let records = 0;
  let pages = 0;
  const counted = new Proxy(kv, {
    get(target, prop) {
      if (prop === "getMany") {
        return async (keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
          const entries = await target.getMany(keys, options);
          const read = keys.filter((k) => k[0] === "submissions").length;
          records += read;
          if (read && pages++ === 0) await after?.();
          return entries;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: counted, records: () => records };
}

function passDeps(app: TestApp, env: Record<string, string>, kv: Deno.Kv = app.kv) {
  return {
    kv,
    config: loadConfig({ BASE_URL: "https://api.test", ...env }),
    now: app.clock.now,
    log: (r: Record<string, unknown>) => app.logs.push(r),
  };
}

Deno.test("without PENDING_RETENTION_DAYS pending submissions are kept, however old", async () => {
  await using app = await createApp();
  const pending = await submit(app);
  app.clock.advance(3650 * DAY);
  assert.equal(await pendingRetentionPass(passDeps(app, {})), 0);
  assert.ok(await exists(app, pending));
  assert.deepEqual(
    await Array.fromAsync(app.kv.list({ prefix: ["pending_retention_cursor"] })),
    [],
  );
});

Deno.test("PENDING_RETENTION_DAYS erases pending submissions that many days old; recent and decided ones stay", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const oldPending = await submit(app);
  const oldQuote = await submit(app, QUOTE);
  const oldApproved = await submit(app);
  const oldRejected = await submit(app);
  assert.equal((await cli(app, "approve", oldApproved)).code, 0);
  assert.equal((await cli(app, "reject", oldRejected)).code, 0);
  app.clock.advance(20 * DAY);
  const recent = await submit(app);
  const deps = passDeps(app, { PENDING_RETENTION_DAYS: "30" });

  app.clock.advance(9 * DAY);
  assert.equal(await pendingRetentionPass(deps), 0, "29 days: all kept");
  app.clock.advance(1 * DAY);
  assert.equal(await pendingRetentionPass(deps), 2);
  assert.equal(await exists(app, oldPending), false);
  assert.equal(await exists(app, oldQuote), false);
  for (const id of [oldApproved, oldRejected, recent]) assert.ok(await exists(app, id), id);
  assert.deepEqual(app.logs.filter((l) => l.msg === "pending retention purge"), [
    { level: "info", msg: "pending retention purge", erased: 2, days: 30 },
  ]);
  // SPEC §3, human review required for every submission: the pass erases what nobody
  // decided and decides nothing itself; the only decisions in the trail are the people's.
  const trail = await listAudit(app.kv, app.clock.now(), 10);
  assert.deepEqual(trail.map((e) => e.action).sort(), ["approve", "reject"], "no audit entry");

  app.clock.advance(21 * DAY);
  assert.equal(await pendingRetentionPass(deps), 1, "the recent one, 30 days after it came");
  assert.equal(await exists(app, recent), false);
  for (const id of [oldApproved, oldRejected]) assert.ok(await exists(app, id), id);
});

Deno.test("the pending pass reads 300 submissions a page of 100 at a time, then goes on from where it stopped", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) ids.push(await submit(app));
  // Every third one decided; the rest stay pending.
  for (const id of ids.filter((_, i) => i % 3 === 0)) {
    assert.equal((await cli(app, "approve", id)).code, 0);
  }
  app.clock.advance(31 * DAY);
  const counting = countingReads(app.kv);
  let pauses = 0;
  const deps = passDeps(app, { PENDING_RETENTION_DAYS: "30" }, counting.kv);
  assert.equal(await pendingRetentionPass(deps, () => Promise.resolve(void pauses++)), 200);
  assert.equal(pauses, 3, "a pause after each page");
  for (const [i, id] of ids.entries()) assert.equal(await exists(app, id), i % 3 === 0, id);
  const firstReads = counting.records();
  assert.ok(firstReads >= 300, `${firstReads} records read`);

  // An hour later, with a new arrival: nothing before the last key read is read again.
  const fresh = await submit(app);
  app.clock.advance(60 * 60_000);
  assert.equal(await pendingRetentionPass(deps), 0);
  assert.equal(counting.records() - firstReads, 0, "no record read again");
  app.clock.advance(31 * DAY);
  assert.equal(await pendingRetentionPass(deps), 1);
  assert.equal(await exists(app, fresh), false);
  assert.equal(counting.records() - firstReads, 1, "only the new one read");
});

Deno.test("a submission decided while its page is being erased is kept", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const first = await submit(app);
  const second = await submit(app);
  app.clock.advance(31 * DAY);
  // Right after the page's records are read, a reviewer approves the first.
  const counting = countingReads(app.kv, async () => {
    assert.equal((await cli(app, "approve", first)).code, 0);
  });
  const deps = passDeps(app, { PENDING_RETENTION_DAYS: "30" }, counting.kv);
  assert.equal(await pendingRetentionPass(deps), 1);
  assert.ok(await exists(app, first), "decided meanwhile: kept");
  assert.equal(await exists(app, second), false);
});

Deno.test("the hourly retention job runs the pending pass after the decided one", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const pending = await submit(app);
  const decided = await submit(app);
  assert.equal((await cli(app, "approve", decided)).code, 0);
  app.clock.advance(91 * DAY);
  let job: (() => Promise<void>) | undefined;
  const background = declareBackground((name, _schedule, _signal, run) => {
    if (name === "dcfs retention") job = run;
  });
  background.start(
    passDeps(app, { PENDING_RETENTION_DAYS: "90", SUBMISSION_RETENTION_DAYS: "90" }),
  );
  try {
    await job!();
  } finally {
    await background.stop();
  }
  assert.equal(await exists(app, pending), false);
  assert.equal(await exists(app, decided), false);
  assert.deepEqual(app.logs.map((l) => l.msg).filter((m) => String(m).includes("retention")), [
    "retention purge",
    "pending retention purge",
  ]);
});

Deno.test("review purge --status pending --before lists first, erases with --yes, and writes one audit entry", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const oldPending = await submit(app);
  const oldApproved = await submit(app);
  assert.equal((await cli(app, "approve", oldApproved)).code, 0);
  app.clock.advance(40 * DAY);
  const recent = await submit(app);
  const audited = async () => (await listAudit(app.kv, app.clock.now(), 10)).map((e) => e.action);

  await t.step("without --yes, a dry run: what would go, and how to erase it", async () => {
    const run = await cli(app, "purge", "--status", "pending", "--before", "30d");
    assert.equal(run.code, 0, run.err);
    const lines = run.out.split("\n");
    assert.match(lines[0]!, new RegExp(`^would erase ${oldPending} \\(lead, created .*\\)$`));
    assert.match(lines[1]!, /^1 submission pending, created before .*Z; nothing erased$/);
    assert.equal(lines[2], "to erase them, run the same command with --yes");
    assert.equal(lines.length, 3);
    assert.ok(await exists(app, oldPending));
    assert.deepEqual(await audited(), ["approve"], "a dry run writes no audit entry");
  });
  await t.step("--dry-run says the same", async () => {
    const run = await cli(app, "purge", "--status", "pending", "--before", "30d", "--dry-run");
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /nothing erased/);
    assert.ok(await exists(app, oldPending));
  });
  await t.step("--yes erases, prints each, and writes one audit entry as cli", async () => {
    const run = await cli(app, "purge", "--status", "pending", "--before", "30d", "--yes");
    assert.equal(run.code, 0, run.err);
    const lines = run.out.split("\n");
    assert.match(lines[0]!, new RegExp(`^erased ${oldPending} \\(lead, created .*\\): \\d+ keys`));
    assert.match(lines[1]!, /^erased 1 submission pending, created before .*Z$/);
    assert.equal(await exists(app, oldPending), false);
    assert.ok(await exists(app, oldApproved), "decided: not taken by a purge of pending ones");
    assert.ok(await exists(app, recent), "created within 30 days: kept");
    const [entry] = await listAudit(app.kv, app.clock.now(), 1);
    assert.equal(entry!.action, "purge");
    assert.equal(entry!.actor, "cli");
    assert.equal(entry!.member_id, null);
    assert.equal(entry!.target, null);
    assert.match(entry!.detail!, /^1 submission pending, created before \d{4}-\d\d-\d\dT.*Z$/);
  });
  await t.step("a run that finds nothing erases nothing, and says so in the trail", async () => {
    app.clock.advance(1_000);
    const dry = await cli(app, "purge", "--status", "pending", "--before", "30d");
    assert.match(dry.out, /^0 submissions pending, created before .*; nothing erased$/);
    const run = await cli(app, "purge", "--status", "pending", "--before", "30d", "--yes");
    assert.equal(run.code, 0);
    assert.match(run.out, /^erased 0 submissions pending, created before /);
    const [entry] = await listAudit(app.kv, app.clock.now(), 1);
    assert.match(entry!.detail!, /^0 submissions pending/);
  });
});

Deno.test("review purge --status approved, rejected or decided takes that decision, by decision time", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const approved = await submit(app);
  const rejected = await submit(app);
  const pending = await submit(app);
  assert.equal((await cli(app, "approve", approved)).code, 0);
  assert.equal((await cli(app, "reject", rejected)).code, 0);
  app.clock.advance(40 * DAY);
  const lateApproved = await submit(app);
  assert.equal((await cli(app, "approve", lateApproved)).code, 0);

  const dry = await cli(app, "purge", "--status", "decided", "--before", "30d");
  assert.match(dry.out, /2 submissions decided before .*; nothing erased/);
  let run = await cli(app, "purge", "--status", "rejected", "--before", "30d", "--yes");
  assert.match(run.out, /erased 1 submission rejected before /);
  assert.equal(await exists(app, rejected), false);
  assert.ok(await exists(app, approved));
  app.clock.advance(1_000);
  run = await cli(app, "purge", "--status", "approved", "--before", "30d", "--yes");
  assert.match(run.out, /erased 1 submission approved before /);
  assert.equal(await exists(app, approved), false);
  assert.ok(await exists(app, lateApproved), "decided 0 days ago");
  assert.ok(await exists(app, pending), "pending: never taken by a purge of decided ones");
  const trail = (await listAudit(app.kv, app.clock.now(), 10)).filter((e) => e.action === "purge");
  assert.deepEqual(trail.map((e) => [e.action, e.detail?.split(" before")[0]]), [
    ["purge", "1 submission approved"],
    ["purge", "1 submission rejected"],
  ]);
});

Deno.test("review purge --decided-before still erases at once, and now writes its audit entry", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const decided = await submit(app);
  assert.equal((await cli(app, "reject", decided)).code, 0);
  app.clock.advance(40 * DAY);
  const run = await cli(app, "purge", "--decided-before", "30d");
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /erased 1 submission decided before /);
  assert.equal(await exists(app, decided), false);
  const [entry] = await listAudit(app.kv, app.clock.now(), 1);
  assert.equal(entry!.action, "purge");
  assert.match(entry!.detail!, /^1 submission decided before /);
});

Deno.test("a pending submission decided while review purge --status pending runs is kept", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const first = await submit(app);
  const second = await submit(app);
  app.clock.advance(31 * DAY);
  const counting = countingReads(app.kv, async () => {
    assert.equal((await cli(app, "approve", first)).code, 0);
  });
  const out: string[] = [];
  const code = await runReview(["purge", "--status", "pending", "--before", "30d", "--yes"], {
    kv: counting.kv,
    now: app.clock.now,
    out: (l) => out.push(l),
    err: (l) => out.push(l),
  });
  assert.equal(code, 0, out.join("\n"));
  assert.match(out.at(-1)!, /^erased 1 submission pending/);
  assert.ok(await exists(app, first));
  assert.equal(await exists(app, second), false);
});

Deno.test("review purge refuses bad arguments with exit 2 and erases nothing", async () => {
  await using app = await createApp();
  const pending = await submit(app);
  app.clock.advance(40 * DAY);
  const tomorrow = new Date(app.clock.now() + DAY).toISOString().slice(0, 10);
  for (
    const [args, message] of [
      [["purge", "--before", "30d", "--yes"], /purge needs --status/],
      [["purge", "--status", "pending", "--yes"], /purge needs --status .* and --before/],
      [["purge", "--status", "done", "--before", "30d"], /--status must be pending, approved/],
      [["purge", "--status", "pending", "--before", "2026-02-30"], /--before must be a date/],
      [["purge", "--status", "pending", "--before", "last week"], /--before must be a date/],
      [["purge", "--status", "pending", "--before", tomorrow, "--yes"], /in the future/],
      [["purge", "--status", "pending", "--before", "30d", "--yes", "--dry-run"], /not both/],
      [["purge", "--decided-before", "30d", "--status", "pending"], /use one form/],
      [["purge", "--decided-before", "30d", "--yes"], /use one form/],
      [["purge", pending, "--status", "pending", "--before", "30d"], /takes no request id/],
    ] as [string[], RegExp][]
  ) {
    const run = await cli(app, ...args);
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.err, message, args.join(" "));
  }
  assert.ok(await exists(app, pending));
  assert.deepEqual(await listAudit(app.kv, app.clock.now(), 10), []);
});
