/**
 * @module
 * Enrolling a staff member: the page, and its two ceremony POSTs. A member enrols with one
 * of two one-time things:
 *
 * - **an invite** (invites.ts), whose token passkey.js reads from the link's fragment; the
 *   member's name is the invite's. It dies with the member who made it: once they are
 *   removed, it enrols nobody (`invite_revoked`);
 * - **`STAFF_ENROL_CODE`**, for a first member where no shell can print an invite (Deno
 *   Deploy), with a name the member types. The code is spent under its digest, whatever the
 *   variable still says: it works once, and a new value works once again (how an operator
 *   recovers when every staff device is lost; docs/operations.md).
 *
 * The options fix the new member's id and name in the ceremony. The answer's one commit
 * spends the ceremony and the invite (or the code), stores the member with the passkey, a
 * session and the audit entry: a replayed answer, or a second enrolment with one invite,
 * finds something spent and lands nothing. Guesses at an invite or the code are bounded with
 * every ceremony begun, by the cap on all callers together (ceremony.ts), and the code must be
 * strong enough to start the service at all (config.ts).
 */

import { z } from "zod";
import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { commitCounted } from "../http/rate_limit.ts";
import { digest, matchesDigest } from "../oauth/secrets.ts";
import type { Write } from "../store/commits.ts";
import {
  addMember,
  type Ceremony,
  getInvite,
  getMemberEntry,
  getSpentCode,
  spendCeremony,
  spendCode,
  spendInvite,
  type StaffInvite,
  type StaffMember,
} from "../store/staff.ts";
import { auditEntry } from "../store/staff_audit.ts";
import {
  beginCeremonyAnswer,
  CEREMONY_TTL_MS,
  ceremonyEndpoint,
  registrationAnswer,
  signedInAnswer,
  takeCeremony,
} from "./ceremony.ts";
import { html, staffError, staffPage } from "./html.ts";
import { memberName, NAME_MAX, NAME_RULE, newMemberId } from "./invites.ts";
import { startSession } from "./session.ts";
import { enrolmentOptions, verifyEnrolment } from "./webauthn.ts";

type Enrolment = Extract<Ceremony, { kind: "enrol" }>;

/** `GET /staff/enrol`: the form passkey.js completes with the invite of the link's fragment. */
export function enrolPage(_req: Request, ctx: Context): Response {
  try {
    const byCode = ctx.config.staffEnrolCode !== undefined
      ? html`
        <fieldset class="by-code">
          <legend>No invite link? Enrol with the enrolment code</legend>
          <p>The operator who set <code>STAFF_ENROL_CODE</code> gives it to you once.</p>
          <label for="enrol-name">Your name</label>
          <input id="enrol-name" name="name" maxlength="${NAME_MAX}" autocomplete="name">
          <label for="enrol-code">Enrolment code</label>
          <input id="enrol-code" name="code" type="password" autocomplete="off">
        </fieldset>
      `
      : html`<p class="by-code">Open the invite link a colleague gave you (it ends in
    <code>#invite=…</code>); a link you typed without that part cannot enrol you.</p>`;
    return staffPage(
      "Create your passkey",
      html`<p>Staff sign in with a passkey, kept by your phone, computer or security key and
  unlocked with its PIN or biometric. There is no password.</p>
<form class="passkey" data-ceremony="enrol" data-options="${STAFF_PATHS.enrolOptions}"
  data-answer="${STAFF_PATHS.enrol}">
  <input type="hidden" name="invite" value="">
  <p class="by-invite" hidden>You are enrolling with an invite link.</p>
  ${byCode}
  <button type="submit" class="btn btn-primary">Create passkey</button>
</form>
<p id="passkey-status" class="passkey-status" role="status" aria-live="polite"></p>
<noscript><p class="notice notice-error">Creating a passkey needs JavaScript: switch it on for this
  site.</p></noscript>`,
      { script: "passkey.js" },
    );
  } catch (err) {
    return staffError(err);
  }
}

const _token = z.string().min(16).max(128).regex(/^[A-Za-z0-9_-]+$/);
const _EnrolRequest = z.union([
  z.object({ invite: _token }),
  z.object({ code: z.string().min(1).max(256), name: z.string().max(4 * NAME_MAX) }),
]);

/** `POST /staff/enrol/options`: `{invite}` or `{code, name}`; a challenge for a new passkey. */
export const enrolBegin = ceremonyEndpoint("enrol", "begin", async (body, ctx) => {
  const parsed = _EnrolRequest.safeParse(body);
  if (!parsed.success) {
    throw new HttpError(400, "malformed", "send {invite} from an invite link, or {code, name}");
  }
  const request = parsed.data;
  let by: Enrolment["by"];
  let name: string;
  if ("invite" in request) {
    by = { invite: digest(request.invite) };
    name = (await _liveInvite(ctx, by.invite)).invite.value.name;
  } else {
    by = { code: await _unspentCode(ctx, request.code) };
    const typed = memberName(request.name);
    if (!typed) throw new HttpError(400, "name_invalid", NAME_RULE);
    name = typed;
  }
  const member_id = newMemberId();
  const options = await enrolmentOptions(ctx.config.baseUrl, { member_id, name });
  const ceremony: Enrolment = {
    kind: "enrol",
    expires_at: ctx.now() + CEREMONY_TTL_MS,
    by,
    member_id,
    name,
  };
  return beginCeremonyAnswer(ctx, ceremony, options, { name });
});

/** `POST /staff/enrol`: the new passkey; the member, signed in, when it verifies. */
export const enrolFinish = ceremonyEndpoint("enrol", "answer", async (body, ctx) => {
  const answer = registrationAnswer(body);
  const { entry: ceremony, challenge } = await takeCeremony(ctx, answer, "enrol");
  const { by, member_id, name } = ceremony.value;
  const live = "invite" in by ? await _liveInvite(ctx, by.invite) : undefined;
  const passkey = await verifyEnrolment(ctx.config.baseUrl, answer, challenge);
  const now = ctx.now();
  const member: StaffMember = {
    member_id,
    name,
    created_at: now,
    invited_by: live ? live.invite.value.invited_by : "code",
  };
  const session = startSession(ctx, member);
  const write: Write = {
    write(op) {
      spendCeremony(op, ceremony);
      if (live) spendInvite(op, live.invite, live.inviter);
      if ("code" in by) spendCode(op, by.code, { spent_at: now, member_id });
      addMember(op, member, { ...passkey, member_id, created_at: now });
      session.write.write(op);
      auditEntry(op, {
        member_id,
        actor: name,
        session: session.sessionTag,
        action: "enrol",
        target: member_id,
        detail: live ? "invite" : "code",
      }, now);
    },
    proof: session.write.proof,
  };
  if (!(await commitCounted(ctx, write)).ok) {
    throw new HttpError(400, "replayed", "this enrolment was used already: start again");
  }
  return signedInAnswer(session.setCookie);
});

/**
 * The invite of a digest, unspent, in time, and made by the CLI or by a member who is still
 * one (with that member's entry, which the enrolment's commit checks): a removed member's
 * invites die with them, so a thief who made one on a stolen device before its owner was
 * removed cannot enrol with it. Refused otherwise.
 */
async function _liveInvite(
  ctx: Context,
  hash: string,
): Promise<{ invite: Deno.KvEntry<StaffInvite>; inviter?: Deno.KvEntry<StaffMember> }> {
  const entry = await getInvite(ctx.kv, hash);
  if (!entry.value) {
    throw new HttpError(
      400,
      "invite_unknown",
      "this invite link was used already or never made: ask for a new one",
    );
  }
  if (ctx.now() >= entry.value.expires_at) {
    throw new HttpError(400, "invite_expired", "this invite link has expired: ask for a new one");
  }
  const invite = entry as Deno.KvEntry<StaffInvite>;
  if (invite.value.invited_by === "cli") return { invite };
  const inviter = await getMemberEntry(ctx.kv, invite.value.invited_by);
  if (!inviter.value) {
    throw new HttpError(
      400,
      "invite_revoked",
      "the staff member who made this invite link has been removed: ask for a new one",
    );
  }
  return { invite, inviter: inviter as Deno.KvEntry<StaffMember> };
}

/** The digest of an enrolment code that is `STAFF_ENROL_CODE` and not spent; refused otherwise. */
async function _unspentCode(ctx: Context, code: string): Promise<string> {
  const set = ctx.config.staffEnrolCode;
  if (set === undefined) {
    throw new HttpError(403, "code_off", "no enrolment code is set: ask for an invite link");
  }
  const hash = digest(code);
  if (!matchesDigest(set, hash)) {
    throw new HttpError(403, "code_wrong", "this is not the enrolment code");
  }
  if ((await getSpentCode(ctx.kv, hash)).value) {
    throw new HttpError(
      403,
      "code_spent",
      "this enrolment code was used already: an operator sets a new one",
    );
  }
  return hash;
}
