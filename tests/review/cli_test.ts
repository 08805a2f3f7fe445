/**
 * The staff review CLI (`deno task review`) against a temporary KV file: list,
 * show, approve and reject, exit codes, and the versionstamp check that keeps two
 * reviewers from overwriting each other. Mostly in-process through `runReview`.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { newRequestId } from "../../src/intake/ids.ts";
import { getSubmission, type SubmissionRecord } from "../../src/store/submissions.ts";
import { submissionKey } from "../../src/store/keys.ts";
import { openStore } from "../../src/store/open.ts";
import type { Kv } from "../../src/store/store.ts";
import { runReview } from "../../src/review/cli.ts";
import { REVIEW_BACKOFF_MS, sendNotices } from "../../src/review/notifier.ts";
import { createApp, FakeClock, repeatsAnew } from "../_helpers.ts";
import { root } from "../_service.ts";

/** The reviewer's clock; the submissions are made on {@linkcode FakeClock}, a day earlier. */
const DECIDED_AT = Date.UTC(2026, 10, 23, 9, 30);

const LEAD = {
  email: "ada.lovelace@example.org",
  description: "Cage 4B needs its cross-connects re-patched before Friday",
  company: "Analytical Engines GmbH",
  contact_name: "Ada Lovelace",
  city: "Frankfurt",
  service_type: "remote hands",
  rack_label: "FRA2-4B-R12",
};

const QUOTE = {
  company: "Difference Works Ltd",
  contact_name: "Charles Babbage",
  email: "charles.babbage@example.net",
  city: "Amsterdam",
  service_type: "smart-hands",
  description: "Swap four failed NVMe drives in rack 12, row C",
  engineer_count: 2,
  estimated_hours: 3,
  purchase_order: "PO-2026-0042",
};

interface Store extends AsyncDisposable {
  kv: Deno.Kv;
  path: string;
  /** Submits through the real handler (on this store's handle) and returns the 202 body. */
  submit(kind: "lead" | "quote", body?: unknown): Promise<Record<string, unknown>>;
  /** Submits a lead and returns only the status. */
  post(): Promise<number>;
  /** Closes the KV (idempotent), e.g. before another process opens the file. */
  close(): void;
}

/** A KV file in a fresh temporary directory, removed on dispose. */
async function tempStore(env: Record<string, string> = {}): Promise<Store> {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-review-" });
  const path = `${dir}/kv.sqlite3`;
  const kv = await Deno.openKv(path);
  const clock = new FakeClock();
  const app = await createApp({ kv, clock, env });
  const anew = repeatsAnew();
  let open = true;
  const close = () => {
    if (open) kv.close();
    open = false;
  };
  return {
    kv,
    path,
    close,
    async submit(kind, body = kind === "lead" ? LEAD : QUOTE) {
      clock.advance(1_000); // ids sort by creation time
      const res = await app.request(kind === "lead" ? "/api/v1/intake" : "/api/v1/quotes", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
        body: JSON.stringify(anew(body)),
      });
      assert.equal(res.status, 202, await res.clone().text());
      return await res.json();
    },
    async post() {
      const res = await app.request("/api/v1/intake", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
        body: JSON.stringify(anew(LEAD)),
      });
      await res.body?.cancel();
      return res.status;
    },
    async [Symbol.asyncDispose]() {
      close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

interface Run {
  code: number;
  out: string[];
  err: string[];
}

/** Runs one CLI command in-process, capturing its output lines. */
async function review(kv: Kv, ...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runReview(args, {
    kv,
    now: () => DECIDED_AT,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err };
}

/** Runs one CLI command in-process with more of its io set. */
async function runReviewWith(
  kv: Deno.Kv,
  command: string,
  extra: { store: string },
): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runReview([command], {
    kv,
    now: () => DECIDED_AT,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    ...extra,
  });
  return { code, out, err };
}

/** Runs a command that must succeed and prints one block; returns it. */
async function ok(kv: Deno.Kv, ...args: string[]): Promise<string> {
  const run = await review(kv, ...args);
  assert.equal(run.code, 0, run.err.join("\n"));
  assert.deepEqual(run.err, []);
  assert.equal(run.out.length, 1);
  return run.out[0]!;
}

async function listJson(kv: Deno.Kv, ...filters: string[]): Promise<Record<string, unknown>[]> {
  return JSON.parse(await ok(kv, "list", "--json", ...filters));
}

async function stored(kv: Deno.Kv, id: string): Promise<SubmissionRecord> {
  const entry = await getSubmission(kv, id);
  assert.ok(entry.value, `no record for ${id}`);
  return entry.value;
}

/** Every key of the store with its value and versionstamp. */
async function snapshot(kv: Deno.Kv): Promise<Map<string, Deno.KvEntry<unknown>>> {
  const all = new Map<string, Deno.KvEntry<unknown>>();
  for await (const e of kv.list({ prefix: [] })) all.set(JSON.stringify(e.key), e);
  return all;
}

Deno.test("review CLI list prints a table, or with --json only a JSON array, filtered by --status and --kind", async (t) => {
  await using store = await tempStore();
  const { kv } = store;

  await t.step("an empty store: no submissions, and a warning that names the cause", async () => {
    const run = await review(kv, "list");
    assert.equal(run.code, 0);
    assert.deepEqual(run.out, ["no submissions"]);
    assert.equal(run.err.length, 1);
    assert.match(run.err[0]!, /^warning: this store holds no submissions at all.*KV_PATH/);
    const named = await runReviewWith(kv, "list", { store: "/srv/kv.sqlite3" });
    assert.equal(named.err[0], "store: /srv/kv.sqlite3");
    const json = await review(kv, "list", "--json");
    assert.deepEqual([json.out, json.err], [["[]"], []], "--json prints the array alone");
  });

  const lead = String((await store.submit("lead")).request_id);
  const quote = String((await store.submit("quote")).request_id);
  const rejected = String((await store.submit("lead")).request_id);
  assert.equal((await review(kv, "reject", rejected)).code, 0);

  await t.step("the table has a header and one row per submission", async () => {
    const [header, ...rows] = (await ok(kv, "list")).split("\n");
    assert.match(
      header!,
      /^REQUEST_ID\s+URGENCY\s+KIND\s+STATUS\s+CREATED_AT\s+VIA\s+COMPANY\s+CONTACT\s+CITY\s+SERVICE\s+NOTIFICATION$/,
    );
    assert.equal(rows.length, 3);
    const row = (id: string) => rows.find((r) => r.startsWith(`${id} `)) ?? "";
    assert.match(
      row(lead),
      /^lead_\w+\s+-\s+lead\s+pending\s+2026-11-22T00:00:01\.000Z\s+api\s+Analytical Engines GmbH\s+Ada Lovelace\s+Frankfurt\s+remote-hands\s+pending$/,
    );
    assert.match(
      row(quote),
      /^quote_\w+\s+-\s+quote\s+pending\s+2026-11-22T00:00:02\.000Z\s+api\s+Difference Works Ltd\s+Charles Babbage\s+Amsterdam\s+smart-hands\s+pending$/,
    );
    assert.match(row(rejected), /^lead_\w+\s+-\s+lead\s+rejected\s+2026-11-22T00:00:03\.000Z\s/);
  });

  await t.step(
    "--json prints only a JSON array with request_id, kind, status, created_at",
    async () => {
      const items = await listJson(kv);
      for (const item of items) {
        for (const field of ["request_id", "kind", "status", "created_at"]) {
          assert.equal(typeof item[field], "string", `${field} of ${item.request_id}`);
        }
      }
      // Compared by creation time: the order itself is checked in its own test below.
      assert.deepEqual(
        items.map((i) => [i.request_id, i.kind, i.status, i.created_at])
          .sort((a, b) => String(a[3]).localeCompare(String(b[3]))),
        [
          [lead, "lead", "pending", "2026-11-22T00:00:01.000Z"],
          [quote, "quote", "pending", "2026-11-22T00:00:02.000Z"],
          [rejected, "lead", "rejected", "2026-11-22T00:00:03.000Z"],
        ],
      );
    },
  );

  await t.step("the list tells duplicates apart by who sent them, never by free text", async () => {
    const listed = await ok(kv, "list");
    for (const text of [LEAD.company, LEAD.contact_name, QUOTE.company, QUOTE.city]) {
      assert.ok(listed.includes(text), text);
    }
    assert.ok(!listed.includes(LEAD.description), "descriptions stay in show");
    assert.ok(!(await ok(kv, "list", "--json")).includes(LEAD.contact_name), "--json as before");
  });

  await t.step("--status and --kind filter, alone and together", async () => {
    const ids = async (...f: string[]) =>
      (await listJson(kv, ...f)).map((i) => String(i.request_id)).sort();
    assert.deepEqual(await ids("--status", "pending"), [lead, quote].sort());
    assert.deepEqual(await ids("--status", "rejected"), [rejected]);
    assert.deepEqual(await ids("--status", "approved"), []);
    assert.deepEqual(await ids("--kind", "lead"), [lead, rejected].sort());
    assert.deepEqual(await ids("--kind", "quote"), [quote]);
    assert.deepEqual(await ids("--kind", "lead", "--status", "pending"), [lead]);
    assert.equal(await ok(kv, "list", "--status", "approved"), "no submissions");
  });
});

Deno.test("review CLI list shows submissions newest first, leads and quotes interleaved", async () => {
  // The ids start with their kind, so a key-ordered list would put every lead before every
  // quote: the list reads the time index (src/store/submission_index.ts).
  await using store = await tempStore();
  const quote = String((await store.submit("quote")).request_id);
  const lead = String((await store.submit("lead")).request_id);
  const items = await listJson(store.kv);
  assert.deepEqual(items.map((i) => [i.request_id, i.created_at]), [
    [lead, "2026-11-22T00:00:02.000Z"],
    [quote, "2026-11-22T00:00:01.000Z"],
  ]);
  const rows = (await ok(store.kv, "list")).split("\n").slice(1);
  assert.deepEqual(rows.map((r) => r.split(/\s+/)[0]), [lead, quote]);
});

Deno.test("review CLI show prints the stored request, its estimate and the notification state", async (t) => {
  await using store = await tempStore();
  const { kv } = store;
  const lead = String((await store.submit("lead")).request_id);
  const accepted = await store.submit("quote");
  const quote = String(accepted.request_id);

  await t.step(
    "show --json holds the record and the request with its additional properties",
    async () => {
      const view = JSON.parse(await ok(kv, "show", lead, "--json"));
      assert.equal(view.request_id, lead);
      assert.equal(view.kind, "lead");
      assert.equal(view.status, "pending");
      assert.equal(view.decision, null);
      assert.equal(view.notification, "pending");
      assert.deepEqual(view.request, LEAD);
      assert.equal(view.request.rack_label, "FRA2-4B-R12");
    },
  );

  await t.step("a quote shows the budget estimate it was answered with", async () => {
    const view = JSON.parse(await ok(kv, "show", quote, "--json"));
    assert.deepEqual(view.request, QUOTE);
    assert.equal(view.service_id, "smart-hands");
    assert.deepEqual(view.budget_estimate, accepted.budget_estimate);
    assert.equal(view.budget_estimate.non_binding, true);
  });

  await t.step("the text view", async () => {
    const text = await ok(kv, "show", quote);
    const lines = text.split("\n");
    assert.match(lines[0]!, new RegExp(`^${quote}\\s+quote\\s+pending$`));
    assert.ok(lines.includes("created:      2026-11-22T00:00:02.000Z"));
    assert.ok(lines.includes("notification: pending"));
    assert.ok(lines.includes("via:          the REST API"));
    const e = (await stored(kv, quote)).budget_estimate!;
    const money = (n: number) => `${n.toLocaleString("en-US")} ${e.currency}`;
    assert.ok(
      lines.includes(`estimate:     ${money(e.low)} – ${money(e.high)} (non-binding)`),
      "the estimate reads as a range",
    );
    assert.ok(
      lines.some((l) => /^ {2}basis: {6}2 × 3 h at [\d,.]+ EUR\/h, minimum \d+ h$/.test(l)),
    );
    assert.ok(
      lines.includes("  timing:     0 of 3 h out of hours, read in Europe/Amsterdam"),
      "the hours out of hours and the site's time zone",
    );
    assert.ok(text.includes(`"purchase_order": "PO-2026-0042"`));
    assert.ok(text.includes(`"email": "${QUOTE.email}"`), "staff see the full request");
  });

  await t.step("an estimate stored before the site's time was read shows no timing", async () => {
    const record = await stored(kv, quote);
    const {
      hours_out_of_hours: _h,
      time_zone: _z,
      notice_hours: _n,
      short_notice: _s,
      ...basis
    } = record.budget_estimate!.basis;
    const older = { ...record, budget_estimate: { ...record.budget_estimate!, basis } };
    await kv.set(submissionKey(quote), older);
    const lines = (await ok(kv, "show", quote)).split("\n");
    assert.ok(lines.some((l) => l.startsWith("  basis:      2 × 3 h at ")));
    assert.ok(!lines.some((l) => l.startsWith("  timing:")));
    await kv.set(submissionKey(quote), record);
  });

  await t.step("notification: logged, not sent, when no webhook is configured", async () => {
    await sendNotices({
      kv,
      config: loadConfig({ BASE_URL: "https://api.test" }),
      now: () => Date.UTC(2026, 10, 22, 0, 5),
      log: () => {},
    });
    const view = JSON.parse(await ok(kv, "show", lead, "--json"));
    assert.equal(view.notification, "logged");
    assert.equal(view.notified_at, "2026-11-22T00:05:00.000Z");
    assert.equal(view.notified_via, "log");
    assert.ok((await ok(kv, "show", lead)).includes(
      "notification: logged (2026-11-22T00:05:00.000Z; no webhook was configured)",
    ));
    const row = (await ok(kv, "list")).split("\n").find((r) => r.startsWith(lead));
    assert.match(row ?? "", /\slogged$/);
    const item = JSON.parse(await ok(kv, "list", "--json")).find(
      (i: { request_id: string }) => i.request_id === lead,
    );
    assert.equal(item.notification, "logged");
    assert.equal(item.notified_via, "log");
  });

  await t.step(
    "notification: retrying, then failing, while the webhook keeps failing",
    async () => {
      const clock = { t: Date.UTC(2026, 10, 22, 0, 10) };
      const deps = {
        kv,
        config: loadConfig({
          BASE_URL: "https://api.test",
          REVIEW_WEBHOOK_URL: "https://hooks.test/",
        }),
        now: () => clock.t,
        log: () => {},
        fetch: () => Promise.resolve(new Response("down", { status: 503 })),
      };
      // Submitted after the lead's notice went out, so only this quote is still in the outbox.
      const quote2 = String((await store.submit("quote")).request_id);
      await sendNotices(deps);
      const view = JSON.parse(await ok(kv, "show", quote2, "--json"));
      assert.equal(view.notification, "retrying");
      assert.equal(view.notification_attempts, 1);
      assert.equal(view.last_error, "webhook answered 503");
      for (let i = 1; i < REVIEW_BACKOFF_MS.length; i++) {
        clock.t += 3_600_000;
        await sendNotices(deps);
      }
      assert.equal(JSON.parse(await ok(kv, "show", quote2, "--json")).notification, "failing");
      assert.ok(
        (await ok(kv, "show", quote2)).includes(
          `notification: failing after ${REVIEW_BACKOFF_MS.length} attempts: webhook answered 503`,
        ),
      );
      const row = (await ok(kv, "list")).split("\n").find((r) => r.startsWith(quote2));
      assert.match(row ?? "", /\sfailing$/);

      // The webhook answers at last: only now is the notice "sent".
      clock.t += 3_600_000;
      await sendNotices({
        ...deps,
        fetch: () => Promise.resolve(new Response(null, { status: 204 })),
      });
      const sent = JSON.parse(await ok(kv, "show", quote2, "--json"));
      assert.equal(sent.notification, "sent");
      assert.equal(sent.notified_via, "webhook");
      assert.ok(
        (await ok(kv, "show", quote2)).includes(`notification: sent (${sent.notified_at})`),
      );
      const sentRow = (await ok(kv, "list")).split("\n").find((r) => r.startsWith(quote2));
      assert.match(sentRow ?? "", /\ssent$/);
    },
  );
});

Deno.test("review CLI approve records a human decision with time, note and reviewer, and nothing else", async (t) => {
  await using store = await tempStore();
  const { kv } = store;
  const id = String((await store.submit("quote")).request_id);
  const other = String((await store.submit("lead")).request_id);
  const before = await snapshot(kv);
  const record = await stored(kv, id);

  const run = await review(
    kv,
    "approve",
    id,
    "--note",
    "  Checked capacity with the FRA team  ",
    "--by",
    "Grace Hopper",
  );

  await t.step("exit 0 and a line that says nothing was ordered", () => {
    assert.equal(run.code, 0);
    assert.deepEqual(run.err, []);
    assert.deepEqual(run.out, [
      `${id} approved at 2026-11-23T09:30:00.000Z. Nothing was ordered, invoiced or dispatched.`,
    ]);
  });

  await t.step(
    "the record holds the decision, with the clock's time, and is otherwise unchanged",
    async () => {
      assert.deepEqual(await stored(kv, id), {
        ...record,
        status: "approved",
        decision: {
          status: "approved",
          decided_at: "2026-11-23T09:30:00.000Z",
          by: "Grace Hopper",
          note: "Checked capacity with the FRA team",
        },
      });
    },
  );

  await t.step("no other key of the store was added, removed or changed", async () => {
    const after = await snapshot(kv);
    const changed = JSON.stringify(["submissions", id]);
    // The decision index gains the decided submission (store/submission_index.ts), and the
    // audit trail the action, in the trail and under its target (store/staff_audit.ts).
    const decided = JSON.stringify([
      "submissions_decided",
      Date.parse("2026-11-23T09:30:00.000Z"),
      id,
    ]);
    const audit = [...after.keys()].filter((k) => k.startsWith('["staff_audit'));
    assert.deepEqual(audit.map((k) => JSON.parse(k)[0]).sort(), ["staff_audit", "staff_audit_of"]);
    assert.deepEqual([...after.keys()].sort(), [...before.keys(), decided, ...audit].sort());
    for (const [key, entry] of before) {
      if (key !== changed) assert.deepEqual(after.get(key), entry, key);
    }
    assert.equal((await stored(kv, other)).status, "pending");
  });

  await t.step(
    "the audit trail names the CLI and the action, not the note or the name",
    async () => {
      const run = await review(kv, "audit", "--json");
      assert.equal(run.code, 0);
      const [entry, ...rest] = JSON.parse(run.out.join("\n"));
      assert.deepEqual(rest, []);
      assert.deepEqual(
        { ...entry, entry_id: undefined },
        {
          at: DECIDED_AT,
          entry_id: undefined,
          member_id: null,
          actor: "cli",
          session: "cli",
          action: "approve",
          target: id,
          detail: "with a note",
        },
      );
    },
  );

  await t.step("show reports the decision", async () => {
    const lines = (await ok(kv, "show", id)).split("\n");
    assert.ok(lines.includes("decision:     approved at 2026-11-23T09:30:00.000Z by Grace Hopper"));
    assert.ok(lines.includes("note:         Checked capacity with the FRA team"));
  });
});

Deno.test("review CLI reject records the decision; without --note and --by they are null", async () => {
  await using store = await tempStore();
  const id = String((await store.submit("lead")).request_id);
  const run = await review(store.kv, "reject", id);
  assert.equal(run.code, 0);
  assert.deepEqual(run.out, [
    `${id} rejected at 2026-11-23T09:30:00.000Z. Nothing was ordered, invoiced or dispatched.`,
  ]);
  const record = await stored(store.kv, id);
  assert.equal(record.status, "rejected");
  assert.deepEqual(record.decision, {
    status: "rejected",
    decided_at: "2026-11-23T09:30:00.000Z",
    by: null,
    note: null,
  });
  assert.deepEqual((await listJson(store.kv, "--status", "rejected")).map((i) => i.request_id), [
    id,
  ]);
});

Deno.test("review CLI refuses with exit 1 to decide a submission that is already decided", async (t) => {
  await using store = await tempStore();
  const id = String((await store.submit("lead")).request_id);
  assert.equal((await review(store.kv, "approve", id, "--note", "first")).code, 0);
  const decided = await getSubmission(store.kv, id);

  for (const command of ["approve", "reject"]) {
    await t.step(`${command} after approve`, async () => {
      const run = await review(store.kv, command, id, "--note", "second");
      assert.equal(run.code, 1);
      assert.deepEqual(run.out, []);
      assert.deepEqual(run.err, [
        `error: ${id} is already approved (2026-11-23T09:30:00.000Z)`,
      ]);
      const now = await getSubmission(store.kv, id);
      assert.equal(now.versionstamp, decided.versionstamp, "the record was not written");
      assert.equal(now.value?.decision?.note, "first");
    });
  }
});

Deno.test("review CLI answers exit 1 for an unknown request id", async (t) => {
  await using store = await tempStore();
  await store.submit("lead");
  const missing = newRequestId("quote", Date.UTC(2026, 10, 22));
  for (
    const args of [["show", missing], ["show", missing, "--json"], ["approve", missing], [
      "reject",
      missing,
    ]]
  ) {
    await t.step(args.join(" "), async () => {
      const run = await review(store.kv, ...args);
      assert.equal(run.code, 1);
      assert.deepEqual(run.out, []);
      assert.deepEqual(run.err, [`error: no submission ${missing}`]);
    });
  }
  assert.equal((await getSubmission(store.kv, missing)).versionstamp, null, "nothing was created");
});

Deno.test("review CLI answers exit 2 with the usage for bad usage", async (t) => {
  await using store = await tempStore();
  const id = String((await store.submit("lead")).request_id);
  const before = await snapshot(store.kv);
  const cases: [string, string[], RegExp][] = [
    ["no command", [], /no command given/],
    ["an unknown command", ["order", id], /unknown command "order"/],
    ["show without an id", ["show"], /a request id is required/],
    ["a malformed id", ["show", "lead_123"], /"lead_123" is not a request id/],
    ["an id of another kind", ["approve", id.replace("lead_", "order_")], /is not a request id/],
    ["an extra argument", ["approve", id, "now"], /unexpected argument "now"/],
    ["list with an id", ["list", id], /list takes no request id/],
    ["a bad --status", ["list", "--status", "done"], /--status must be pending/],
    ["a bad --kind", ["list", "--kind", "order"], /--kind must be lead or quote/],
    ["an unknown option", ["list", "--everything"], /--everything/],
    ["--note without a value", ["approve", id, "--note"], /--note/],
    ["an over-long --note", ["approve", id, "--note", "x".repeat(1001)], /at most 1000/],
  ];
  for (const [name, args, message] of cases) {
    await t.step(name, async () => {
      const run = await review(store.kv, ...args);
      assert.equal(run.code, 2);
      assert.deepEqual(run.out, []);
      assert.equal(run.err.length, 1);
      assert.match(run.err[0]!, /^error: /);
      assert.match(run.err[0]!, message);
      assert.match(run.err[0]!, /\nusage: deno task review <command>\n/);
    });
  }
  assert.deepEqual(await snapshot(store.kv), before, "bad usage wrote nothing");
});

/** Races an approve against a reject on one fresh pending submission and checks the outcome. */
async function race(store: Store, kvA: Kv, kvB: Kv): Promise<void> {
  const id = String((await store.submit("lead")).request_id);
  const [approve, reject] = await Promise.all([
    review(kvA, "approve", id, "--by", "A"),
    review(kvB, "reject", id, "--by", "B"),
  ]);
  assert.deepEqual([approve.code, reject.code].sort(), [0, 1]);
  const [winner, loser] = approve.code === 0 ? [approve, reject] : [reject, approve];
  assert.deepEqual(loser.out, []);
  assert.match(loser.err[0]!, /is already (approved|rejected)|changed while you were deciding/);
  const status = winner === approve ? "approved" : "rejected";
  const record = await stored(store.kv, id);
  assert.equal(record.status, status);
  assert.equal(record.decision?.status, status);
  assert.equal(record.decision?.by, winner === approve ? "A" : "B");
}

Deno.test("review CLI: of two concurrent decisions on one pending submission exactly one wins", async (t) => {
  await using store = await tempStore();
  for (let round = 1; round <= 5; round++) {
    await t.step(`round ${round}`, () => race(store, store.kv, store.kv));
  }
});

Deno.test("review CLI: when two reviewers' processes decide at once, the loser exits 1 instead of crashing", async (t) => {
  // Two stores opened on the same file as the CLI opens one (openStore) stand in for two
  // reviewers' processes. Deno KV's SQLite backend throws "database is locked" for a
  // checked commit that raced another connection's write, instead of answering
  // { ok: false }: the Store retries it, so the loser learns it lost and exits 1.
  await using store = await tempStore();
  const [mine, other] = [await openStore(store.path), await openStore(store.path)];
  try {
    for (let round = 1; round <= 10; round++) {
      await t.step(`round ${round}`, () => race(store, mine, other));
    }
  } finally {
    mine.close();
    other.close();
  }
});

Deno.test("submissions are still accepted while a reviewer decides in another process", async () => {
  // Same cause as above, on the service side: the submission's checked commits (rate-limit
  // counter, record) throw "database is locked" when the reviewer's CLI writes to the file
  // at the same moment, and the customer gets a 500 for a valid request.
  await using store = await tempStore({ RATE_LIMIT_SUBMIT: "0" });
  const pending: string[] = [];
  for (let i = 0; i < 40; i++) pending.push(String((await store.submit("lead")).request_id));
  const reviewer = await Deno.openKv(store.path);
  try {
    let submitting = true;
    const [statuses] = await Promise.all([
      Promise.all(Array.from({ length: 60 }, () => store.post())).finally(() => submitting = false),
      (async () => {
        // The reviewer works through the queue for as long as customers are submitting.
        for (const id of pending) {
          if (!submitting) break;
          await review(reviewer, "approve", id).catch(() => {});
        }
      })(),
    ]);
    const counts: Record<number, number> = {};
    for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
    assert.deepEqual(counts, { 202: 60 });
  } finally {
    reviewer.close();
  }
});

Deno.test("deno task review list --json prints only a JSON array of the submissions in KV_PATH", async () => {
  await using store = await tempStore();
  const lead = String((await store.submit("lead")).request_id);
  const quote = String((await store.submit("quote")).request_id);
  store.close();

  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "review", "list", "--json"],
    cwd: root,
    env: { KV_PATH: store.path, NO_COLOR: "1" },
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stderr, "");
  const items = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(Array.isArray(items));
  assert.deepEqual(
    items.map((i: Record<string, unknown>) => [i.request_id, i.kind, i.status, i.created_at]),
    [
      [quote, "quote", "pending", "2026-11-22T00:00:02.000Z"],
      [lead, "lead", "pending", "2026-11-22T00:00:01.000Z"],
    ],
  );
});

Deno.test("review CLI escapes every control and format character of submitted text", async (t) => {
  await using store = await tempStore();
  // CSI and OSC (C1), a bidi override, a line separator, an escape, a zero-width joiner.
  const hostile = "Acme\u009B31m\u009D0;pwned\u0007 \u202Egnp.exe\u202C\u2028line\u001B[2J\u200D";
  // Invisible in a terminal, so `email\u034F` would pass for `email`.
  const invisible = "email\u034F\u3164\uFE0F\u00A0\u2800\uE000";
  const id = String(
    (await store.submit("lead", {
      ...LEAD,
      company: hostile,
      description: hostile,
      [invisible]: "spoofed@example.com",
    })).request_id,
  );
  const unsafe = /[[\p{Cc}\p{Cf}\p{Z}\p{Co}\p{Default_Ignorable_Code_Point}\u2800]--[ ]]/v;
  await t.step("show prints them as \\u escapes", async () => {
    const text = await ok(store.kv, "show", id);
    for (const line of text.split("\n")) assert.doesNotMatch(line, unsafe, line);
    assert.ok(text.includes("\\u009B31m\\u009D0;pwned\\u0007 \\u202Egnp.exe\\u202C\\u2028line"));
    assert.ok(
      text.includes('"email\\u034F\\u3164\\uFE0F\\u00A0\\u2800\\uE000": "spoofed@example.com"'),
    );
  });
  await t.step("show --json stays JSON and gives back the exact text", async () => {
    const text = await ok(store.kv, "show", id, "--json");
    for (const line of text.split("\n")) assert.doesNotMatch(line, unsafe, line);
    assert.equal(JSON.parse(text).request.company, hostile);
  });
  await t.step("a reviewer's note and name are escaped too", async () => {
    await ok(store.kv, "approve", id, "--note", "ok\u009B2J\nnext", "--by", "R\u202Eev");
    const text = await ok(store.kv, "show", id);
    assert.ok(text.includes("note:         ok\\u009B2J\\u000Anext"));
    assert.ok(text.includes("by R\\u202Eev"));
  });
  await t.step("an argument echoed in an error is escaped", async () => {
    const run = await review(store.kv, "order\u009B2J");
    assert.equal(run.code, 2);
    assert.doesNotMatch(run.err[0]!.split("\n")[0]!, unsafe);
  });
});

Deno.test("review CLI --help prints the usage, and <command> --help what that command does, with exit 0", async (t) => {
  await using store = await tempStore();
  const help = async (...args: string[]) => {
    const run = await review(store.kv, ...args);
    assert.equal(run.code, 0);
    assert.deepEqual(run.err, []);
    return run.out.join("\n");
  };
  await t.step("--help and -h", async () => {
    for (const flag of ["--help", "-h"]) {
      const text = await help(flag);
      assert.match(text, /^usage: deno task review <command>\n/);
      for (const command of ["list", "show", "approve", "reject", "erase", "purge"]) {
        assert.match(text, new RegExp(`^  ${command} `, "m"));
      }
      assert.match(text, /^ {2}disable-client <client_id>$/m);
    }
  });
  for (const command of ["list", "show", "approve", "reject", "erase", "purge", "disable-client"]) {
    await t.step(`${command} --help`, async () => {
      const text = await help(command, "--help");
      assert.match(text, new RegExp(`^usage: deno task review ${command}`));
      assert.ok(text.split("\n").length >= 2, "a line on what it does");
    });
  }
});

Deno.test("deno task review list names the store it opened and warns when it is empty", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-review-empty-" });
  try {
    const path = `${dir}/kv.sqlite3`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "review", "list"],
      cwd: root,
      env: { KV_PATH: path, NO_COLOR: "1" },
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(new TextDecoder().decode(out.stdout), "no submissions\n");
    assert.match(stderr, new RegExp(`^store: ${path.replaceAll(".", "\\.")}\n`));
    assert.match(stderr, /warning: this store holds no submissions at all/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
