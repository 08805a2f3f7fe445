/**
 * The staff commands of `deno task review` (issue 28, point 2): invite prints a one-time
 * link, staff lists members, remove-staff ends a member's sessions; each audited as cli.
 */

import assert from "node:assert/strict";
import { createApp, FakeClock } from "../_helpers.ts";
import { runReview } from "../../src/review/cli.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { listMembers } from "../../src/store/staff.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { root } from "../_service.ts";
import { signedIn, staffGet } from "../staff/_staff.ts";

interface Run {
  code: number;
  out: string[];
  err: string[];
}

async function review(
  kv: Deno.Kv,
  clock: FakeClock,
  args: string[],
  baseUrl: () => string = () => "https://api.test",
): Promise<Run> {
  const run: Run = { code: 0, out: [], err: [] };
  run.code = await runReview(args, {
    kv,
    now: clock.now,
    out: (line) => run.out.push(line),
    err: (line) => run.err.push(line),
    baseUrl,
  });
  return run;
}

Deno.test("review invite prints the link alone on stdout, stores only its digest, audits as cli", async () => {
  await using app = await createApp();
  const run = await review(app.kv, app.clock, ["invite", "--name", "Sam Reviewer"]);
  assert.equal(run.code, 0, run.err.join("\n"));
  assert.equal(run.out.length, 1);
  const link = run.out[0]!;
  assert.match(link, /^https:\/\/api\.test\/staff\/enrol#invite=[\w-]{43}$/);
  assert.match(
    run.err.join("\n"),
    /enrols Sam Reviewer .* works once, until 2026-11-22T01:00:00\.000Z/,
  );
  const token = link.split("#invite=")[1]!;
  const stored = await Array.fromAsync(app.kv.list({ prefix: ["staff_invites"] }));
  assert.equal(stored.length, 1);
  assert.ok(!JSON.stringify(stored[0]!.key).includes(token), "the token itself is not a key");
  const [entry] = await listAudit(app.kv, app.clock.now(), 1);
  assert.deepEqual(
    [entry?.action, entry?.actor, entry?.member_id, entry?.session],
    ["invite", "cli", null, "cli"],
  );
});

Deno.test("review invite refuses a missing or bad --name and a bad BASE_URL", async () => {
  await using app = await createApp();
  const missing = await review(app.kv, app.clock, ["invite"]);
  assert.equal(missing.code, 2);
  assert.match(missing.err[0]!, /invite needs --name/);
  assert.equal((await review(app.kv, app.clock, ["invite", "Sam"])).code, 2);
  const control = await review(app.kv, app.clock, ["invite", "--name", "Sam\u001b[31m"]);
  assert.equal(control.code, 1);
  assert.match(control.err[0]!, /no control characters/);
  const badBase = await review(app.kv, app.clock, ["invite", "--name", "Sam"], () => {
    throw new TypeError("not a configuration error");
  }).catch((err) => err);
  assert.ok(badBase instanceof Error, "an unexpected error is not swallowed");
  const { loadConfig } = await import("../../src/config.ts");
  const config = await review(
    app.kv,
    app.clock,
    ["invite", "--name", "Sam"],
    () => loadConfig({ BASE_URL: "https://api.test/path" }).baseUrl,
  );
  assert.equal(config.code, 1);
  assert.match(config.err[0]!, /BASE_URL must be an origin/);
  assert.deepEqual(await Array.fromAsync(app.kv.list({ prefix: ["staff_invites"] })), []);
});

Deno.test("review staff lists members; remove-staff ends their sessions at once", async () => {
  await using app = await createApp();
  const empty = await review(app.kv, app.clock, ["staff"]);
  assert.deepEqual([empty.code, empty.out], [0, []]);
  assert.match(empty.err[0]!, /No staff member yet/);
  const sam = await signedIn(app, "Sam Reviewer");
  const kim = await signedIn(app, "Kim");
  const listed = await review(app.kv, app.clock, ["staff"]);
  assert.equal(listed.code, 0);
  assert.match(listed.out[0]!, /^member_id +created +passkeys +name$/);
  assert.ok(
    listed.out.includes(
      `${sam.member.member_id}  2026-11-22T00:00:00.000Z  1         Sam Reviewer`,
    ),
    listed.out.join("\n"),
  );
  const json = JSON.parse((await review(app.kv, app.clock, ["staff", "--json"])).out.join("\n"));
  assert.deepEqual(json.map((m: { name: string }) => m.name).sort(), ["Kim", "Sam Reviewer"]);

  assert.equal((await review(app.kv, app.clock, ["remove-staff"])).code, 2);
  assert.equal((await review(app.kv, app.clock, ["remove-staff", "sam"])).code, 2);
  const unknown = await review(app.kv, app.clock, [
    "remove-staff",
    "stf_00000000000000000000000000000000",
  ]);
  assert.equal(unknown.code, 1);
  const removed = await review(app.kv, app.clock, ["remove-staff", kim.member.member_id]);
  assert.equal(removed.code, 0, removed.err.join("\n"));
  assert.match(removed.out[0]!, /\(Kim\) removed: their sessions ended on every instance/);
  assert.equal((await staffGet(app, kim, STAFF_PATHS.members)).status, 303);
  assert.equal((await staffGet(app, sam, STAFF_PATHS.members)).status, 200);
  const [entry] = await listAudit(app.kv, app.clock.now(), 1);
  assert.deepEqual([entry?.action, entry?.actor, entry?.target], [
    "remove_member",
    "cli",
    kim.member.member_id,
  ]);

  const lastOne = await review(app.kv, app.clock, ["remove-staff", sam.member.member_id]);
  assert.equal(lastOne.code, 0, "the CLI may remove the last member");
  assert.match(lastOne.err[0]!, /No staff member is left: sign-in is off/);
  assert.deepEqual(await listMembers(app.kv), []);
});

Deno.test("review --help lists the staff commands, and each has its own help", async () => {
  await using app = await createApp();
  const usage = (await review(app.kv, app.clock, ["--help"])).out.join("\n");
  for (const line of ['invite --name "…"', "staff [--json]", "remove-staff <member_id>"]) {
    assert.ok(usage.includes(line), line);
  }
  const help = await review(app.kv, app.clock, ["invite", "--help"]);
  assert.match(help.out[0]!, /^usage: deno task review invite --name/);
  const unknown = await review(app.kv, app.clock, ["invitee"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err[0]!, /unknown command "invitee"/);
});

Deno.test("the real task prints a link on BASE_URL (its --allow-env grants BASE_URL and PORT)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-staff-cli-" });
  try {
    const run = async (env: Record<string, string>) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["task", "--quiet", "review", "invite", "--name", "Sam"],
        cwd: root,
        env: { KV_PATH: `${dir}/kv.sqlite3`, NO_COLOR: "1", ...env },
      }).output();
      const text = new TextDecoder();
      return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
    };
    const onBase = await run({ BASE_URL: "https://staff.example.com" });
    assert.equal(onBase.code, 0, onBase.stderr);
    assert.match(onBase.stdout, /^https:\/\/staff\.example\.com\/staff\/enrol#invite=[\w-]{43}\n$/);
    const onPort = await run({ PORT: "8123" });
    assert.equal(onPort.code, 0, onPort.stderr);
    assert.match(onPort.stdout, /^http:\/\/localhost:8123\/staff\/enrol#invite=/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
