/**
 * `deno task review audit`, and the audit entries the CLI writes: approve, reject, erase,
 * erase --email and disable-client name the actor and session `cli`, each decision and
 * erasure in its own commit, with no submitted text; purge, dry runs and reads write none.
 */

import assert from "node:assert/strict";
import { type AuditAction, listAudit } from "../../src/store/staff_audit.ts";
import { createApp, registerClient, reviewCli as cli, type TestApp } from "../_helpers.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { submit } from "../staff/_review.ts";

async function trail(app: TestApp) {
  return await listAudit(app.kv, app.clock.now(), 1000);
}

Deno.test("review approve, reject, erase, erase --email and disable-client write audit entries as cli", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const approved = await submit(app, "lead", LEAD);
  const rejected = await submit(app, "quote", QUOTE);
  const erased = await submit(app, "lead", LEAD);
  await submit(app, "lead", { ...LEAD, email: "sam.subject@example.org" });
  const client = await registerClient(app);
  const steps: string[][] = [
    ["approve", approved, "--note", "Call Alex back", "--by", "Grace Hopper"],
    ["reject", rejected],
    ["show", approved],
    ["list"],
    ["erase", "--email", "Sam.Subject@example.org", "--dry-run"],
    ["erase", erased],
    ["erase", "--email", "Sam.Subject@example.org"],
    ["disable-client", client.client_id],
    ["disable-client", client.client_id],
    ["purge", "--decided-before", "1d", "--dry-run"],
  ];
  for (const args of steps) {
    app.clock.advance(1_000);
    const run = await cli(app, ...args);
    assert.equal(run.code, 0, `${args.join(" ")}: ${run.err}`);
  }
  const entries = (await trail(app)).toReversed();
  const actions: AuditAction[] = ["approve", "reject", "erase", "erase_email", "disable_client"];
  assert.deepEqual(entries.map((e) => e.action), actions);
  assert.deepEqual(
    entries.map((e) => [e.member_id, e.actor, e.session, e.action, e.target, e.detail]),
    [
      [null, "cli", "cli", "approve", approved, "with a note"],
      [null, "cli", "cli", "reject", rejected, null],
      [null, "cli", "cli", "erase", erased, null],
      [null, "cli", "cli", "erase_email", null, "1 submission"],
      [null, "cli", "cli", "disable_client", client.client_id, null],
    ],
  );
  const stored = JSON.stringify(await Array.fromAsync(app.kv.list({ prefix: ["staff_audit"] })));
  for (const text of ["Grace", "Alex", "subject", "example"]) {
    assert.ok(!stored.includes(text), text);
  }
});

Deno.test("review audit prints the trail newest first, a page at a time, as a table or JSON", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step("an empty trail", async () => {
    const run = await cli(app, "audit");
    assert.equal(run.code, 0);
    assert.equal(run.out, "no staff actions recorded");
    assert.equal((await cli(app, "audit", "--json")).out, "[]");
  });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    ids.push(await submit(app, "lead", LEAD));
    assert.equal((await cli(app, "reject", ids.at(-1)!)).code, 0);
  }
  await t.step("a table, with the next page's command on stderr", async () => {
    const run = await cli(app, "audit", "--limit", "2");
    assert.equal(run.code, 0);
    const lines = run.out.split("\n");
    assert.match(lines[0]!, /^AT +ACTOR +MEMBER +SESSION +ACTION +TARGET +DETAIL$/);
    assert.equal(lines.length, 3);
    assert.match(
      lines[1]!,
      new RegExp(`^2026-11-22T00:00:\\d\\d\\.000Z +cli +- +cli +reject +${ids[4]} +-$`),
    );
    assert.match(run.err, /^more: deno task review audit --before \d+\.[0-9a-f-]{36}$/);
  });
  await t.step("--before goes on from there, to the end", async () => {
    const seen: string[] = [];
    let before: string[] = [];
    for (let pages = 0; pages < 5; pages++) {
      const run = await cli(app, "audit", "--limit", "2", "--json", ...before);
      const page = JSON.parse(run.out) as { target: string }[];
      seen.push(...page.map((e) => e.target));
      const next = run.err.match(/--before (\S+)/)?.[1];
      if (!next) break;
      before = ["--before", next];
    }
    assert.deepEqual(seen, ids.toReversed());
  });
  await t.step("no older entries", async () => {
    const json = JSON.parse((await cli(app, "audit", "--json", "--limit", "5")).out);
    const oldest = json.at(-1);
    const run = await cli(app, "audit", "--before", `${oldest.at}.${oldest.entry_id}`);
    assert.equal(run.out, "no older entries");
    assert.equal(run.err, "");
  });
  await t.step("bad usage is exit 2", async () => {
    for (
      const args of [
        ["audit", "--limit", "0"],
        ["audit", "--limit", "1001"],
        ["audit", "--before", "yesterday"],
        ["audit", "lead_1"],
      ]
    ) {
      assert.equal((await cli(app, ...args)).code, 2, args.join(" "));
    }
  });
  await t.step("--help says what it lists", async () => {
    const run = await cli(app, "audit", "--help");
    assert.match(run.out, /^usage: deno task review audit \[--limit N\]/);
    assert.match(run.out, /no submitted text/);
    assert.match(run.out, /Entries are kept 400 days\./);
    assert.match(
      (await cli(app, "--help")).out,
      /audit \[--limit N\] \[--before <at_ms>\.<entry_id>\] \[--json\]/,
    );
  });
});
