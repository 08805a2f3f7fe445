/**
 * @module
 * Signing in to the staff console with a passkey: the page, and its two ceremony POSTs.
 * Discoverable credentials only: the options list no credential, and the browser offers the
 * passkeys it holds for this site; the answer names its credential, whose stored passkey
 * names the member, and the answer's user handle must be that member's id.
 *
 * The sign-in's one commit spends the ceremony, records the passkey's new signature counter
 * (checked, so two answers with one passkey cannot both land), checks the member is still
 * there (a removal on another instance meanwhile fails it: no session, and no `sign_in` in
 * the trail after the removal), stores the session and its audit entry. Sign-in is off, with a page saying so, until a first member has enrolled.
 */

import { Buffer } from "node:buffer";
import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import type { Write } from "../store/commits.ts";
import { commitCounted } from "../http/rate_limit.ts";
import {
  anyMember,
  getMemberEntry,
  getPasskey,
  setCounter,
  spendCeremony,
} from "../store/staff.ts";
import { auditEntry } from "../store/staff_audit.ts";
import {
  authenticationAnswer,
  beginCeremonyAnswer,
  CEREMONY_TTL_MS,
  ceremonyEndpoint,
  signedInAnswer,
  takeCeremony,
} from "./ceremony.ts";
import { html, seeOther, staffError, staffPage } from "./html.ts";
import { staffVisit, startSession } from "./session.ts";
import { signInOptions, verifySignIn } from "./webauthn.ts";

/** `GET /staff/sign-in`: the passkey button; the console itself when already signed in. */
export async function signInPage(req: Request, ctx: Context): Promise<Response> {
  try {
    if (await staffVisit(req, ctx)) return seeOther(STAFF_PATHS.queue);
    if (!(await anyMember(ctx.kv))) return _noMembersYet();
    return staffPage(
      "Sign in",
      html`<p>Staff sign in with a passkey: the phone, computer or security key on which you
  enrolled unlocks it with its PIN or biometric. There is no password.</p>
<form class="passkey" data-ceremony="sign-in" data-options="${STAFF_PATHS.signInOptions}"
  data-answer="${STAFF_PATHS.signIn}">
  <button type="submit" class="btn btn-primary">Sign in with a passkey</button>
</form>
<p id="passkey-status" class="passkey-status" role="status" aria-live="polite"></p>
<noscript><p class="notice notice-error">Signing in with a passkey needs JavaScript: switch it on for
  this site.</p></noscript>
<p>New to the console? Open the invite link a colleague gave you, or
  <a href="${STAFF_PATHS.enrol}">enrol with an enrolment code</a>.</p>`,
      { script: "passkey.js" },
    );
  } catch (err) {
    return staffError(err);
  }
}

function _noMembersYet(): Response {
  return staffPage(
    "No staff yet",
    html`<p>Sign-in is off until a first staff member enrols.</p>
<p>On a server, print an invite link with
  <code>deno task review invite --name "Your Name"</code> and open it. On Deno Deploy, set
  <code>STAFF_ENROL_CODE</code> as a secret environment variable and
  <a href="${STAFF_PATHS.enrol}">enrol with it</a> (docs/operations.md says how).</p>`,
  );
}

/** `POST /staff/sign-in/options`: a challenge for the browser's passkeys. */
export const signInBegin = ceremonyEndpoint("sign_in", "begin", async (_body, ctx) => {
  if (!(await anyMember(ctx.kv))) {
    throw new HttpError(403, "no_members", "sign-in is off until a first staff member enrols");
  }
  const options = await signInOptions(ctx.config.baseUrl);
  return beginCeremonyAnswer(
    ctx,
    { kind: "sign_in", expires_at: ctx.now() + CEREMONY_TTL_MS },
    options,
  );
});

/** `POST /staff/sign-in`: the browser's answer; a session cookie when it verifies. */
export const signInFinish = ceremonyEndpoint("sign_in", "answer", async (body, ctx) => {
  const answer = authenticationAnswer(body);
  const { entry: ceremony, challenge } = await takeCeremony(ctx, answer, "sign_in");
  const passkey = await getPasskey(ctx.kv, answer.id);
  if (!passkey.value) {
    throw new HttpError(400, "unknown_passkey", "this passkey is not enrolled here (or no longer)");
  }
  const handle = answer.response.userHandle;
  if (!handle || Buffer.from(handle, "base64url").toString("utf8") !== passkey.value.member_id) {
    throw new HttpError(400, "user_mismatch", "this passkey's answer names another member");
  }
  const found = await getMemberEntry(ctx.kv, passkey.value.member_id);
  if (!found.value) {
    throw new HttpError(400, "unknown_passkey", "this passkey is not enrolled here (or no longer)");
  }
  const member = found.value;
  const counter = await verifySignIn(ctx.config.baseUrl, answer, challenge, passkey.value);
  const session = startSession(ctx, member);
  const now = ctx.now();
  const write: Write = {
    write(op) {
      spendCeremony(op, ceremony);
      setCounter(op, passkey as Deno.KvEntry<typeof passkey.value>, counter);
      // The member as read: a removal since (another instance's) fails the commit.
      op.check(found);
      session.write.write(op);
      auditEntry(op, {
        member_id: member.member_id,
        actor: member.name,
        session: session.sessionTag,
        action: "sign_in",
        target: null,
        detail: null,
      }, now);
    },
    proof: session.write.proof,
  };
  if (!(await commitCounted(ctx, write)).ok) {
    throw new HttpError(400, "replayed", "this passkey answer was used already: sign in again");
  }
  return signedInAnswer(session.setCookie);
});
