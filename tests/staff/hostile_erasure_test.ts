/**
 * A submitter who controls submitted text controls how many submissions share an email: a
 * flood under someone's address must not make one console request read, render or erase
 * them all at once. The console's erase by email works a page at a time.
 */

import assert from "node:assert/strict";
import { createApp } from "../_helpers.ts";
import { LEAD, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { ERASE_PAGE } from "../../src/staff/erasure.ts";
import { listAudit } from "../../src/store/staff_audit.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { signedIn, staffPost } from "./_staff.ts";
import { pageText, rowIds, submit } from "./_review.ts";

Deno.test("erase by email with more matches than a page: each request lists and erases one page", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  const email = "flooded@example.com";
  const extra = 5;
  const theirs: string[] = [];
  for (let i = 0; i < ERASE_PAGE + extra; i++) {
    theirs.push(await submit(app, "lead", { ...LEAD, email }));
  }
  const other = await submit(app, "lead", LEAD);

  const dry = await staffPost(app, sam, "/staff/erase-email", { email });
  assert.equal(dry.status, 200);
  const page = await dry.text();
  assert.equal(rowIds(page).length, ERASE_PAGE, "one page of rows, not the whole flood");
  assert.match(page, new RegExp(`More than ${ERASE_PAGE} submissions have the email`));
  assert.match(page, new RegExp(`>Erase ${ERASE_PAGE} submissions</button>`));

  const first = await staffPost(app, sam, "/staff/erase-email", { email, confirm: "yes" });
  assert.equal(first.status, 303);
  const location = first.headers.get("location")!;
  assert.equal(location, `/staff/erase-email?erased=${ERASE_PAGE}&more=1`);
  const left = [];
  for (const id of theirs) if ((await getSubmission(app.kv, id)).value) left.push(id);
  assert.equal(left.length, extra);
  const result = await pageText(app, sam, location);
  assert.match(result, new RegExp(`Erased ${ERASE_PAGE} submissions`));
  assert.match(result, /More submissions have this address/);

  const rest = await staffPost(app, sam, "/staff/erase-email", { email });
  assert.deepEqual(rowIds(await rest.text()).sort(), left.sort());
  const second = await staffPost(app, sam, "/staff/erase-email", { email, confirm: "yes" });
  assert.equal(second.headers.get("location"), `/staff/erase-email?erased=${extra}`);
  for (const id of theirs) assert.equal((await getSubmission(app.kv, id)).value, null);
  assert.ok((await getSubmission(app.kv, other)).value, "another address is kept");
  const details = (await listAudit(app.kv, app.clock.now(), 10))
    .filter((e) => e.action === "erase_email").map((e) => e.detail);
  assert.deepEqual(details.sort(), [`${ERASE_PAGE} submissions`, `${extra} submissions`]);
});
