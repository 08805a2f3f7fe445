/**
 * The console's review pages through a real listening port: the headers that keep them out
 * of caches and frames arrive on the wire, the session cookie (plain-http localhost:
 * `dcfs_staff`, no `Secure`) opens them, and a decision posted from the console's own
 * origin lands while one from another origin does not.
 */

import assert from "node:assert/strict";
import { STAFF_HEADERS } from "../../src/staff/html.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { listen } from "../_helpers.ts";
import { LEAD } from "../_fixtures.ts";
import { signedIn } from "./_staff.ts";
import { submit } from "./_review.ts";

Deno.test("the console's pages and forms over a real port carry no-store, DENY and the CSP", async () => {
  await using app = await listen();
  const sam = await signedIn(app);
  assert.match(sam.cookie, /^dcfs_staff=/);
  const id = await submit(app, "lead", LEAD);
  const get = (path: string, headers: Record<string, string> = { Cookie: sam.cookie }) =>
    fetch(new URL(path, app.baseUrl), { headers, redirect: "manual" });

  for (
    const path of [
      "/staff/",
      `/staff/submissions/${id}`,
      "/staff/erase-email",
      "/staff/clients",
      "/staff/audit",
    ]
  ) {
    const res = await get(path);
    assert.equal(res.status, 200, path);
    for (const [name, value] of Object.entries(STAFF_HEADERS)) {
      assert.equal(res.headers.get(name), value, `${path} ${name}`);
    }
    const text = await res.text();
    assert.ok(text.trimStart().startsWith("<!doctype html>"), path);
    const out = await get(path, {});
    assert.equal(out.status, 303, path);
    assert.equal(out.headers.get("location"), "/staff/sign-in");
    await out.body?.cancel();
  }

  const page = await (await get(`/staff/submissions/${id}`)).text();
  const versionstamp = page.match(/name="versionstamp" value="([0-9a-f]+)"/)![1]!;
  const post = (origin: string) =>
    fetch(new URL(`/staff/submissions/${id}/decision`, app.baseUrl), {
      method: "POST",
      headers: {
        Cookie: sam.cookie,
        Origin: origin,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf: sam.csrf, versionstamp, decision: "approve", note: "" }),
      redirect: "manual",
    });
  const foreign = await post("https://evil.test");
  assert.equal(foreign.status, 403);
  assert.equal(foreign.headers.get("x-frame-options"), "DENY");
  await foreign.body?.cancel();
  assert.equal((await getSubmission(app.kv, id)).value?.status, "pending");
  const own = await post(app.baseUrl);
  assert.equal(own.status, 303);
  assert.equal(own.headers.get("location"), `/staff/submissions/${id}`);
  assert.equal(own.headers.get("cache-control"), "no-store, no-transform");
  await own.body?.cancel();
  assert.equal((await getSubmission(app.kv, id)).value?.status, "approved");
});
