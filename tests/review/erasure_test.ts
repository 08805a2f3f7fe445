/**
 * The personal-data lifecycle through the staff CLI (in-process, where the store can be
 * inspected): erase one submission, erase by email, purge decided ones, retention run by
 * the service, and disable-client.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { retentionPass } from "../../src/review/retention.ts";
import { ERASE_BATCH, eraseSubmissions } from "../../src/store/erasure.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { runReview } from "../../src/review/cli.ts";
import { sendNotices } from "../../src/review/notifier.ts";
import { largestQuote, LEAD, QUOTE } from "../_fixtures.ts";
import { remoteStore } from "../_remote_store.ts";
import {
  bearerGet,
  createApp,
  issueToken,
  post,
  registerClient,
  reviewCli as cli,
  type TestApp,
  tokenRequest,
} from "../_helpers.ts";

const DAY = 86_400_000;

async function submit(
  app: TestApp,
  path: "/api/v1/intake" | "/api/v1/quotes",
  body: unknown,
  headers: Record<string, string> = {},
): Promise<string> {
  // Past the 10 minutes in which the same body is a replay, whatever its key: a new request.
  app.clock.advance(10 * 60_000 + 1_000);
  // A new key unless one is given.
  const res = await post(app, path, body, { "Idempotency-Key": crypto.randomUUID(), ...headers });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).request_id;
}

/**
 * Store-wide keys that belong to no submission: counters, the email index's key, and the
 * audit trail, which keeps the erasure itself (ids and counts, no submitted text).
 */
const _BOOKKEEPING = new Set([
  "rate_counters",
  "email_index_key",
  "staff_audit",
  "staff_audit_of",
]);

async function keys(app: TestApp): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const e of app.kv.list({ prefix: [] })) {
    if (!_BOOKKEEPING.has(String(e.key[0]))) out.add(JSON.stringify(e.key));
  }
  return out;
}

/** Notifier dependencies whose webhook refuses every notice: each moves on to its retry. */
function refusingNotifier(app: TestApp) {
  return {
    kv: app.kv,
    config: loadConfig({ REVIEW_WEBHOOK_URL: "https://hooks.test/review" }),
    now: app.clock.now,
    log: () => {},
    fetch: () => Promise.resolve(new Response(null, { status: 500 })),
  };
}

/**
 * The store, except that right after the first read of `key` resolves, `then` runs to
 * completion before the reader gets its value: a deterministic "someone else wrote in
 * between" for the code under test.
 */
function afterFirstGet(kv: Deno.Kv, key: Deno.KvKey, then: () => Promise<void>): Deno.Kv {
  let done = false;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return async (k: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
          const entry = await target.get(k, options);
          if (!done && JSON.stringify(k) === JSON.stringify(key)) {
            done = true;
            await then();
          }
          return entry;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The app's store, counting the commits that went through and those whose checks failed. */
function countingCommits(
  app: Pick<TestApp, "kv">,
): { kv: Deno.Kv; commits: () => number; failed: () => number } {
  let commits = 0;
  let failed = 0;
  const kv = new Proxy(app.kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = async () => {
            const res = await commit();
            if (res.ok) commits++;
            else failed++;
            return res;
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv, commits: () => commits, failed: () => failed };
}

Deno.test("review erase <request_id> removes the submission, its payload, its outbox entry and its idempotency records in one commit", async (t) => {
  await using app = await createApp();
  const big = { ...QUOTE, description: "x".repeat(4_000), note: "y".repeat(3_000) };
  const keep = await submit(app, "/api/v1/intake", LEAD);
  const before = await keys(app);
  const id = await submit(app, "/api/v1/quotes", big, { "Idempotency-Key": "retry-1" });
  const added = [...await keys(app)].filter((k) => !before.has(k));
  assert.deepEqual(added.map((k) => JSON.parse(k)[0]).sort(), [
    "idempotency", // the key's, 24 h
    "idempotency", // the same request's, 10 minutes
    "review_due",
    "review_new",
    "review_outbox",
    "submission_idempotency",
    "submission_payloads",
    "submissions",
    "submissions_by_email",
    "submissions_by_time",
  ]);

  await t.step("one commit removes exactly those keys", async () => {
    const counting = countingCommits(app);
    const out: string[] = [];
    const code = await runReview(["erase", id], {
      kv: counting.kv,
      now: app.clock.now,
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    assert.equal(code, 0, out.join("\n"));
    assert.match(
      out[0]!,
      new RegExp(`^erased ${id} \\(quote, created .*\\): 10 keys in one commit$`),
    );
    assert.equal(counting.commits(), 1);
    assert.deepEqual(await keys(app), before);
    assert.ok((await getSubmission(app.kv, keep)).value, "the other submission is kept");
  });
  await t.step(
    "a retry with the same key is a new submission, not a replay of the erased one",
    async () => {
      const again = await submit(app, "/api/v1/quotes", big, { "Idempotency-Key": "retry-1" });
      assert.notEqual(again, id);
    },
  );
  await t.step("erasing it again is exit 1: nothing to erase", async () => {
    const run = await cli(app, "erase", id);
    assert.equal(run.code, 1);
    assert.equal(run.err, `error: no submission ${id}`);
  });
});

Deno.test("a submission record never holds the caller's address; only its idempotency records do (24 h and 10 minutes)", async () => {
  await using app = await createApp();
  app.clock.advance(1_000);
  const res = await app.request("/api/v1/intake", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": "k-7" },
    body: JSON.stringify(LEAD),
    address: "203.0.113.77",
  });
  assert.equal(res.status, 202);
  const { request_id } = await res.json();
  const shown = await cli(app, "show", request_id, "--json");
  assert.ok(!shown.out.includes("203.0.113.77"), shown.out);
  const holding = [];
  for await (const e of app.kv.list({ prefix: [] })) {
    // Counters are keyed by address, and expire at the end of the next minute.
    if (e.key[0] === "rate_counters") continue;
    if (JSON.stringify([e.key, e.value]).includes("203.0.113.77")) holding.push(e.key[0]);
  }
  assert.deepEqual(holding.sort(), ["idempotency", "idempotency", "submission_idempotency"]);
});

Deno.test("review erase reads again when the notifier moves the notice between its read and its commit", async () => {
  await using app = await createApp();
  const id = await submit(app, "/api/v1/intake", LEAD);
  const notifier = refusingNotifier(app);
  // The erasure reads the outbox entry; the notifier claims and reschedules it right after.
  const kv = afterFirstGet(app.kv, ["review_outbox", id], async () => {
    assert.equal(await sendNotices(notifier), 0);
  });
  const out: string[] = [];
  const code = await runReview(["erase", id], {
    kv,
    now: app.clock.now,
    out: (l) => out.push(l),
    err: (l) => out.push(l),
  });
  assert.equal(code, 0, out.join("\n"));
  assert.deepEqual(await keys(app), new Set(), "no due key of the moved notice is left");
});

Deno.test("review erase also removes a submission whose notice is being retried", async () => {
  await using app = await createApp();
  const id = await submit(app, "/api/v1/intake", LEAD);
  await sendNotices({
    kv: app.kv,
    config: loadConfig({ REVIEW_WEBHOOK_URL: "https://hooks.test/review" }),
    now: app.clock.now,
    log: () => {},
    fetch: () => Promise.resolve(new Response(null, { status: 500 })),
  });
  assert.equal((await cli(app, "erase", id)).code, 0);
  assert.deepEqual(await keys(app), new Set(), "the moved due key went with it");
});

Deno.test("review erase --email erases every submission with that address, ignoring case, and prints each", async (t) => {
  await using app = await createApp();
  const mine = [
    await submit(app, "/api/v1/intake", { ...LEAD, email: "Jane.Doe@Example.com" }),
    await submit(app, "/api/v1/quotes", { ...QUOTE, email: "jane.doe@example.com" }),
    await submit(app, "/api/v1/intake", { ...LEAD, email: "JANE.DOE@EXAMPLE.COM" }),
  ];
  const other = await submit(app, "/api/v1/intake", { ...LEAD, email: "john@example.com" });
  await t.step("--dry-run lists them and erases nothing", async () => {
    const before = await keys(app);
    const run = await cli(app, "erase", "--email", "JANE.DOE@example.com", "--dry-run");
    assert.equal(run.code, 0);
    for (const id of mine) assert.ok(run.out.includes(`would erase ${id}`));
    assert.match(run.out, /3 submissions with email JANE\.DOE@example\.com; nothing erased$/);
    assert.deepEqual(await keys(app), before);
  });
  await t.step("then erases them", async () => {
    const run = await cli(app, "erase", "--email", "jane.doe@EXAMPLE.com");
    assert.equal(run.code, 0);
    for (const id of mine) assert.match(run.out, new RegExp(`^erased ${id} `, "m"));
    assert.match(run.out, /erased 3 submissions with email jane\.doe@EXAMPLE\.com$/);
    for (const id of mine) assert.equal((await getSubmission(app.kv, id)).value, null);
    assert.ok((await getSubmission(app.kv, other)).value);
  });
  await t.step("an address with nothing stored is exit 0 and says so", async () => {
    const run = await cli(app, "erase", "--email", "nobody@example.com");
    assert.equal(run.code, 0);
    assert.equal(run.out, "erased 0 submissions with email nobody@example.com");
  });
});

Deno.test("review purge --decided-before erases decided submissions older than the cutoff and never pending ones", async (t) => {
  await using app = await createApp();
  const old = await submit(app, "/api/v1/intake", LEAD);
  const oldRejected = await submit(app, "/api/v1/quotes", QUOTE);
  const pending = await submit(app, "/api/v1/intake", LEAD);
  assert.equal((await cli(app, "approve", old)).code, 0);
  assert.equal((await cli(app, "reject", oldRejected)).code, 0);
  app.clock.advance(40 * DAY);
  const recent = await submit(app, "/api/v1/intake", LEAD);
  assert.equal((await cli(app, "approve", recent)).code, 0);

  await t.step("--dry-run", async () => {
    const run = await cli(app, "purge", "--decided-before", "30d", "--dry-run");
    assert.equal(run.code, 0);
    assert.match(run.out, /2 submissions decided before .*; nothing erased$/);
  });
  await t.step("30d", async () => {
    const run = await cli(app, "purge", "--decided-before", "30d");
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /erased 2 submissions decided before/);
    assert.equal((await getSubmission(app.kv, old)).value, null);
    assert.equal((await getSubmission(app.kv, oldRejected)).value, null);
    assert.ok((await getSubmission(app.kv, pending)).value, "pending is never purged");
    assert.ok((await getSubmission(app.kv, recent)).value, "decided within 30 days is kept");
  });
  await t.step("a date, midnight UTC", async () => {
    const tomorrow = new Date(app.clock.now() + DAY).toISOString().slice(0, 10);
    const run = await cli(app, "purge", "--decided-before", tomorrow);
    assert.match(run.out, /erased 1 submission decided before/);
    assert.equal((await getSubmission(app.kv, recent)).value, null);
  });
  await t.step("bad usage is exit 2", async () => {
    for (
      const args of [
        ["purge"],
        ["purge", "--decided-before", "2026-02-30"],
        ["purge", "--decided-before", "last week"],
        ["erase", "--dry-run", pending],
        ["erase", pending, "--email", "a@example.com"],
        ["erase", "--email", "nobody"],
      ]
    ) {
      const run = await cli(app, ...args);
      assert.equal(run.code, 2, args.join(" "));
    }
    assert.ok((await getSubmission(app.kv, pending)).value);
  });
});

Deno.test("review purge erases 25 at a time, and one by one those a notifier wrote meanwhile", async () => {
  await using app = await createApp({
    env: { RATE_LIMIT_SUBMIT: "0", RATE_LIMIT_SUBMIT_GLOBAL: "0" },
  });
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) ids.push(await submit(app, "/api/v1/intake", LEAD));
  for (const id of ids) assert.equal((await cli(app, "approve", id)).code, 0);
  app.clock.advance(40 * DAY);
  const notifier = refusingNotifier(app);
  // The first batch reads the third notice; the notifier then moves every due notice, so a
  // commit of the batch whose notices were read before fails its checks, and each of its
  // submissions is erased on its own.
  const moved = afterFirstGet(app.kv, ["review_outbox", ids[2]!], async () => {
    assert.equal(await sendNotices(notifier), 0, "the webhook refuses: every notice moves on");
  });
  const counted = countingCommits({ kv: moved });
  const out: string[] = [];
  const code = await runReview(["purge", "--decided-before", "30d"], {
    kv: counted.kv,
    now: app.clock.now,
    out: (l) => out.push(l),
    err: (l) => out.push(l),
  });
  assert.equal(code, 0, out.join("\n"));
  assert.match(out.at(-1)!, /^erased 30 submissions decided before /);
  assert.equal(out.filter((l) => l.startsWith("erased lead_")).length, 30);
  assert.ok(counted.failed() >= 1, "a commit failed its checks");
  assert.ok(counted.commits() < 30 + counted.failed(), `${counted.commits()} commits`);
  assert.deepEqual(await keys(app), new Set(), "nothing of the 30 is left");
});

Deno.test("a batch of 25 of the largest submissions: read at once, committed within denokv's limits; an id twice is erased once", async () => {
  await using app = await createApp({
    env: { RATE_LIMIT_SUBMIT: "0", RATE_LIMIT_SUBMIT_GLOBAL: "0" },
  });
  // The largest a submission stores: its JSON at the 64 KiB cap (two payload chunks), a
  // 255-character Idempotency-Key (its record and its pointer), a notice in the outbox.
  const ids: string[] = [];
  for (let i = 0; i < ERASE_BATCH; i++) {
    const quote = largestQuote(String(i));
    const key = `${i}-`.padEnd(255, "k");
    ids.push(await submit(app, "/api/v1/quotes", quote, { "Idempotency-Key": key }));
  }
  // Over the far-away store, which refuses what denokv or Deploy would (10 checks).
  const far = remoteStore(app.kv, { latencyMs: 5 });
  far.mark();
  const erased = await eraseSubmissions(far, [...ids, ids[0]!]);
  assert.equal(erased.length, ERASE_BATCH, "each once");
  assert.equal(far.stats.refused, 0, "no commit passed a limit");
  // Four checks each (record, notice, the key's and the same request's idempotency records):
  // two to a commit.
  assert.equal(far.sinceMark().commit, Math.ceil(ERASE_BATCH / 2), "no commit failed");
  // Record, notice, pointer, idempotency records, then every commit at once: not 25 × 4.
  assert.equal(far.trips(), 5);
  assert.ok(
    erased.every((e) => e.keys >= 10),
    "record, two chunks, notice, due and new keys, two idempotency records, pointer, index",
  );
  assert.deepEqual(await keys(app), new Set());
});

Deno.test("SUBMISSION_RETENTION_DAYS: the service erases decided submissions that many days after the decision", async () => {
  await using app = await createApp({ env: { SUBMISSION_RETENTION_DAYS: "7" } });
  const decided = await submit(app, "/api/v1/intake", LEAD);
  const pending = await submit(app, "/api/v1/intake", LEAD);
  assert.equal((await cli(app, "reject", decided)).code, 0);
  const logs: Record<string, unknown>[] = [];
  const run = () =>
    retentionPass({ kv: app.kv, config: app.config, now: app.clock.now, log: (r) => logs.push(r) });

  app.clock.advance(6 * DAY);
  assert.equal(await run(), 0);
  assert.ok((await getSubmission(app.kv, decided)).value, "kept for 7 days");

  app.clock.advance(1 * DAY + 1);
  assert.equal(await run(), 1);
  assert.equal((await getSubmission(app.kv, decided)).value, null);
  assert.ok((await getSubmission(app.kv, pending)).value);
  assert.deepEqual(logs, [{ level: "info", msg: "retention purge", erased: 1, days: 7 }]);
});

Deno.test("without SUBMISSION_RETENTION_DAYS the service keeps every submission", async () => {
  await using app = await createApp();
  const decided = await submit(app, "/api/v1/intake", LEAD);
  assert.equal((await cli(app, "approve", decided)).code, 0);
  app.clock.advance(3650 * DAY);
  assert.equal(
    await retentionPass({ kv: app.kv, config: app.config, now: app.clock.now, log: () => {} }),
    0,
  );
  assert.ok((await getSubmission(app.kv, decided)).value);
});

Deno.test("review disable-client: its tokens stop working at once and its token requests get invalid_client", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const other = await registerClient(app);
  const tokens = [await issueToken(app, client), await issueToken(app, client)];
  const otherToken = await issueToken(app, other);
  for (const token of tokens) {
    const res = await bearerGet(app, "/api/v1/agent/services", token);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }

  await t.step("exit 0, and it says what happens to its tokens", async () => {
    const run = await cli(app, "disable-client", client.client_id);
    assert.equal(run.code, 0, run.err);
    assert.match(
      run.out,
      new RegExp(
        `^${client.client_id} disabled at .*; its tokens are refused from now on, everywhere, and lapse within 15 minutes\\. Its token requests now get invalid_client\\.$`,
      ),
    );
  });
  await t.step("its tokens are refused on the next request", async () => {
    for (const token of tokens) {
      const res = await bearerGet(app, "/api/v1/agent/services", token);
      assert.equal(res.status, 401);
      await res.body?.cancel();
    }
    // Refused without being found: they stay in the store until they lapse.
    const left = await Array.fromAsync(app.kv.list<{ client_id: string }>({ prefix: ["tokens"] }));
    assert.equal(left.filter((e) => e.value.client_id === client.client_id).length, 2);
  });
  await t.step(
    "its token requests get invalid_client, like any failed authentication",
    async () => {
      const res = await tokenRequest(app, client, { grant_type: "client_credentials" });
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), {
        error: "invalid_client",
        error_description: "client authentication failed",
      });
    },
  );
  await t.step("other clients are untouched", async () => {
    const res = await bearerGet(app, "/api/v1/agent/services", otherToken);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    await issueToken(app, other);
  });
  await t.step("again: exit 0, already disabled", async () => {
    const run = await cli(app, "disable-client", client.client_id);
    assert.equal(run.code, 0);
    assert.match(run.out, /was already disabled at .*; its tokens are refused/);
  });
  await t.step("an unknown client is exit 1, a malformed id exit 2", async () => {
    const unknown = await cli(app, "disable-client", "agt_nosuchclient");
    assert.deepEqual([unknown.code, unknown.err], [1, "error: no client agt_nosuchclient"]);
    assert.equal((await cli(app, "disable-client", "dcfs_cs_secret")).code, 2);
    assert.equal((await cli(app, "disable-client")).code, 2);
  });
});

Deno.test("a token request that read its client before a disable is refused, and stores nothing", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  // The token request reads the client record; the disable commits right after that read.
  const kv = afterFirstGet(app.kv, ["clients", client.client_id], async () => {
    assert.equal((await cli(app, "disable-client", client.client_id)).code, 0);
  });
  await using racing = await createApp({ kv, clock: app.clock });
  const res = await tokenRequest(racing, client, { grant_type: "client_credentials" });
  assert.equal(res.status, 401);
  assert.equal((await res.json()).error, "invalid_client");
  assert.deepEqual(await Array.fromAsync(app.kv.list({ prefix: ["tokens"] })), []);
});

Deno.test("a token stored just before a disable is refused after it", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  assert.equal((await cli(app, "disable-client", client.client_id)).code, 0);
  const res = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(res.status, 401);
  await res.body?.cancel();
});

Deno.test("a client record is rewritten to extend its life at most once a day, not at every token", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_TOKEN: "0" } });
  const client = await registerClient(app);
  const stamp = async () => (await app.kv.get(["clients", client.client_id])).versionstamp;
  const registered = await stamp();
  await issueToken(app, client);
  const firstToken = await stamp();
  assert.notEqual(firstToken, registered, "the first token extends an unused registration");
  for (let i = 0; i < 5; i++) await issueToken(app, client);
  assert.equal(await stamp(), firstToken, "five more tokens the same day: no rewrite");
  app.clock.advance(DAY);
  await issueToken(app, client);
  assert.notEqual(await stamp(), firstToken, "a day later the lifetime is extended");
  const entry = await app.kv.get<{ expires_at: number }>(["clients", client.client_id]);
  assert.equal(entry.value?.expires_at, app.clock.now() + 30 * DAY);
});
