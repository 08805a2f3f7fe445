/**
 * The audit trail names members unambiguously (issue 40, point 4): two members of one name
 * are told apart by their member id on `/staff/audit`, in a submission's history, in the
 * `MEMBER` column of `review audit` and in `member_id` of `review audit --json`.
 */

import assert from "node:assert/strict";
import { createApp, reviewCli as cli } from "../_helpers.ts";
import { LEAD, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { decideOnPage, pageText, submit } from "./_review.ts";
import { signedIn } from "./_staff.ts";

Deno.test("two members named Sam Reviewer are told apart in the page, the history and review audit", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const first = await signedIn(app, "Sam Reviewer");
  const second = await signedIn(app, "Sam Reviewer");
  const [one, two] = [first.member.member_id, second.member.member_id];
  const approved = await submit(app, "lead", LEAD);
  const rejected = await submit(app, "lead", LEAD);
  assert.equal((await decideOnPage(app, first, approved, "approve")).status, 303);
  app.clock.advance(1_000);
  assert.equal((await decideOnPage(app, second, rejected, "reject")).status, 303);

  // The page: each row names the member who acted, by name and id.
  const page = await pageText(app, first, "/staff/audit");
  const rows = [...page.matchAll(/<tr data-entry-id="[^"]+">([\s\S]*?)<\/tr>/g)].map((m) => m[1]!);
  assert.equal(rows.length, 2);
  const [byTwo, byOne] = rows; // newest first
  assert.match(byOne!, new RegExp(`Sam Reviewer <code class="member-id">${one}</code>`));
  assert.match(byTwo!, new RegExp(`Sam Reviewer <code class="member-id">${two}</code>`));
  assert.ok(!byOne!.includes(two) && !byTwo!.includes(one));

  // A submission's history names who decided it.
  const history = (id: string) =>
    pageText(app, first, `/staff/submissions/${id}`).then((p) =>
      p.match(/<ol class="history">([\s\S]*?)<\/ol>/)![1]!
    );
  assert.match(
    await history(approved),
    new RegExp(`approve</strong> by Sam Reviewer <code class="member-id">${one}</code>`),
  );
  assert.match(
    await history(rejected),
    new RegExp(`reject</strong> by Sam Reviewer <code class="member-id">${two}</code>`),
  );

  // review audit: a MEMBER column; --json: member_id.
  const text = await cli(app, "audit");
  assert.equal(text.code, 0, text.err);
  const lines = text.out.split("\n");
  assert.match(lines[0]!, /^AT +ACTOR +MEMBER +SESSION +ACTION +TARGET +DETAIL$/);
  assert.match(lines[1]!, new RegExp(`Sam Reviewer +${two} +\\S+ +reject +${rejected}`));
  assert.match(lines[2]!, new RegExp(`Sam Reviewer +${one} +\\S+ +approve +${approved}`));
  const json = JSON.parse((await cli(app, "audit", "--json")).out);
  assert.deepEqual(
    json.map((e: Record<string, unknown>) => [e.actor, e.member_id, e.action, e.target]),
    [["Sam Reviewer", two, "reject", rejected], ["Sam Reviewer", one, "approve", approved]],
  );
});
