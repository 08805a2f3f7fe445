/**
 * The staff console's work through the real process, read back from its log: a member
 * enrolled by code reviews a submission whose text tries to script the page, decides it
 * with a note naming the submitter, invites someone, erases by email (dry run, then for
 * real), is refused a wrong code, asks for paths that hold an email, and signs out. No line
 * the process writes holds a name, an email, a note, a code, an invite, a cookie or a form
 * token.
 */

import assert from "node:assert/strict";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { overHttp } from "../_helpers.ts";
import { QUOTE } from "../_fixtures.ts";
import { type Service, startService } from "../_service.ts";
import { SoftAuthenticator } from "../staff/_authenticator.ts";
import { ceremonyPost, enrolWith, memberOf, staffer } from "../staff/_ceremony.ts";
import type { Staffer } from "../staff/_staff.ts";

const BASE_URL = "https://api.staff-hostile.example";
const CODE = "hostile-process-enrol-code-0123456789";
const EMAIL = "jane.roe@victim.example";
const NOTE = "Phoned Jane Roe on her mobile";

function requester(s: Service) {
  return { ...overHttp(s.baseUrl), config: { baseUrl: BASE_URL } };
}

/** A console request as the member's browser makes it: the cookie, and for a form Origin. */
function consoleFetch(s: Service, who: Staffer, path: string, form?: Record<string, string>) {
  const init: RequestInit = { headers: { Cookie: who.cookie }, redirect: "manual" };
  if (form) {
    init.method = "POST";
    init.headers = {
      Cookie: who.cookie,
      Origin: BASE_URL,
      "Content-Type": "application/x-www-form-urlencoded",
    };
    init.body = new URLSearchParams({ ...form, csrf: who.csrf });
  }
  return fetch(`${s.baseUrl}${path}`, init);
}

Deno.test("a day in the console through the real process leaves nothing personal in its log", async () => {
  await using s = await startService({
    BASE_URL,
    STAFF_ENROL_CODE: CODE,
    RATE_LIMIT_STAFF: "100",
    RATE_LIMIT_SUBMIT: "0",
  });
  const ada = await enrolWith(requester(s), new SoftAuthenticator(BASE_URL), {
    code: CODE,
    name: "Ada Lindqvist",
  });
  assert.equal(ada.res.status, 200, await ada.res.clone().text());
  const who = staffer({
    member_id: memberOf(ada.cookie!),
    name: "Ada Lindqvist",
    created_at: 0,
    invited_by: "code",
  }, ada.cookie!);
  const wrong = await ceremonyPost(requester(s), STAFF_PATHS.enrolOptions, {
    code: "wrong-code-guess-0123456789abcdef",
    name: "Guesser McGuess",
  });
  assert.equal(wrong.status, 403);
  await wrong.body?.cancel();

  const submitted = await fetch(`${s.baseUrl}/api/v1/quotes`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify({
      ...QUOTE,
      email: EMAIL,
      contact_name: "Jane Roe",
      company: `Roe <script>alert(1)</script> Ltd`,
    }),
  });
  assert.equal(submitted.status, 202);
  const id = (await submitted.json()).request_id;
  // The notice goes out first (logged: no webhook), or it would change the record under the
  // decision, which is then told to look again (409), as it should be.
  await s.waitFor((r) => r.submission_id === id && r.via !== undefined);
  const page = await (await consoleFetch(s, who, `/staff/submissions/${id}`)).text();
  assert.ok(!page.includes("<script>alert(1)"), "submitted text is text on the page");
  const versionstamp = page.match(/name="versionstamp" value="([0-9a-f]+)"/)![1]!;
  const steps: [string, Record<string, string> | undefined, number][] = [
    [`/staff/submissions/${id}/decision`, { versionstamp, decision: "approve", note: NOTE }, 303],
    [STAFF_PATHS.invites, { name: "Yorick Invitee" }, 200],
    [`/staff/submissions/${encodeURIComponent(EMAIL)}`, undefined, 404],
    [`/staff/nope?email=${encodeURIComponent(EMAIL)}`, undefined, 404],
    [STAFF_PATHS.eraseEmail, { email: EMAIL }, 200],
    [STAFF_PATHS.eraseEmail, { email: EMAIL, confirm: "yes" }, 303],
  ];
  let invite = "";
  for (const [path, form, status] of steps) {
    const res = await consoleFetch(s, who, path, form);
    assert.equal(res.status, status, path);
    const text = await res.text();
    invite ||= text.match(/#invite=([\w-]+)"/)?.[1] ?? "";
  }
  assert.ok(invite, "the invite page showed its link");
  const out = await consoleFetch(s, who, STAFF_PATHS.signOut, {});
  assert.equal(out.status, 303);
  await out.body?.cancel();

  // The process logs every request; let the last lines arrive.
  await s.waitFor((r) => r.path === STAFF_PATHS.signOut);
  const secrets = [
    "Ada",
    "Lindqvist",
    "Guesser",
    "Jane",
    "Roe",
    "victim.example",
    "Yorick",
    "mobile",
    CODE,
    "wrong-code-guess",
    invite,
    who.cookie.split("=")[1]!,
    who.csrf,
  ];
  const lines = s.logs.map((r) => JSON.stringify(r));
  assert.ok(lines.some((l) => l.includes('"staff ceremony refused"')));
  for (const line of lines) {
    for (const secret of secrets) assert.ok(!line.includes(secret), `${secret} in ${line}`);
  }
});
