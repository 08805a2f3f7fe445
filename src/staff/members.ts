/**
 * @module
 * The console's staff page: who can sign in, an invite for someone new, and the removal of a
 * member (a lost device, someone who left). Handlers get the signed-in visit from the
 * route table's wrappers (routes.ts).
 *
 * **Removal** ends every session of the member at once, on every instance (store/staff.ts).
 * The console will not remove the last member, which would leave the console with nobody
 * who can sign in: the commit checks that a member who stays (the one removing, or another
 * when members remove themselves) is still there. The CLI (`review remove-staff`) may remove
 * the last member: the person with the store can always invite again.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import type { Params } from "../http/router.ts";
import { listMembers, removeMember, type StaffMember } from "../store/staff.ts";
import { type AuditAction, auditEntry, type AuditFact } from "../store/staff_audit.ts";
import { html, seeOther, type SignedIn, staffPage } from "./html.ts";
import {
  INVITE_TTL_MS,
  inviteMember,
  isMemberId,
  memberName,
  NAME_MAX,
  NAME_RULE,
} from "./invites.ts";
import { clearCookie, type StaffVisit } from "./session.ts";

/** `GET /staff/members`: the members, each with a remove form, and the invite form. */
export async function membersPage(
  _req: Request,
  ctx: Context,
  visit: StaffVisit,
): Promise<Response> {
  const members = await listMembers(ctx.kv);
  const names = new Map(members.map((m) => [m.member_id, m.name]));
  const rows = members.map((m) =>
    html`
      <tr data-member-id="${m.member_id}">
        <td>${m.name}${m.member_id === visit.member.member_id ? " (you)" : ""}</td>
        <td><code>${m.member_id}</code></td>
        <td>${new Date(m.created_at).toISOString().slice(0, 10)}</td>
        <td>${_invitedBy(m, names)}</td>
        <td>
          <form method="post" action="${_removePath(m.member_id)}">
            <input type="hidden" name="csrf" value="${visit.csrf}">
            <button type="submit" class="btn btn-small btn-danger">Remove</button>
          </form>
        </td>
      </tr>
    `
  );
  return staffPage(
    "Staff",
    html`
      <p>Everyone here signs in with a passkey. Removing a member ends their sessions at
        once; a member who lost their device is removed, then invited again.</p>
      <table class="members">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Member id</th>
            <th scope="col">Since</th>
            <th scope="col">Invited by</th>
            <th scope="col">Remove</th>
          </tr>
        </thead>
        <tbody>${rows}</tbody>
      </table>
      <h2>Invite someone</h2>
      <form method="post" action="${STAFF_PATHS.invites}" class="invite">
        <input type="hidden" name="csrf" value="${visit.csrf}">
        <label for="invite-name">Their name</label>
        <input id="invite-name" name="name" required maxlength="${NAME_MAX}">
        <button type="submit" class="btn btn-primary">Create invite link</button>
      </form>
      <p>The link works once, for ${INVITE_TTL_MS / 3_600_000} hour, and is shown only once.</p>
    `,
    { who: _who(visit) },
  );
}

function _invitedBy(m: StaffMember, names: Map<string, string>): string {
  if (m.invited_by === "cli") return "the review CLI";
  if (m.invited_by === "code") return "the enrolment code";
  return names.get(m.invited_by) ?? "a former member";
}

function _removePath(memberId: string): string {
  return STAFF_PATHS.removeMember.replace(":member_id", memberId);
}

/** `POST /staff/invites`: a one-time link for `name`, shown on this page only. */
export async function createInviteLink(
  _req: Request,
  ctx: Context,
  { visit, form }: { visit: StaffVisit; form: URLSearchParams },
): Promise<Response> {
  const name = memberName(form.get("name"));
  if (!name) throw new HttpError(400, "name_invalid", NAME_RULE);
  const now = ctx.now();
  const { link, expiresAt } = await inviteMember(
    ctx.kv,
    { name, invitedBy: visit.member.member_id, baseUrl: ctx.config.baseUrl, now },
    _fact(visit, "invite", null),
  );
  return staffPage(
    "Invite link",
    html`<p>Give this link to ${name}, in a private message. It creates their passkey and works
  once, until ${new Date(expiresAt).toISOString().slice(0, 16).replace("T", " ")} UTC. It is
  not shown again: lost, make another.</p>
<p><input class="invite-link" readonly value="${link}" aria-label="Invite link for ${name}"></p>
<p><a href="${STAFF_PATHS.members}">Back to staff</a></p>`,
    { who: _who(visit) },
  );
}

/** `POST /staff/members/:member_id/remove`: removes a member, never the last one. */
export async function removeStaffMember(
  _req: Request,
  ctx: Context,
  { visit }: { visit: StaffVisit; form: URLSearchParams },
  params: Params,
): Promise<Response> {
  const target = params.member_id ?? "";
  if (!isMemberId(target)) throw new HttpError(404, "not_found", "no such member");
  const self = target === visit.member.member_id;
  const keep = self
    ? (await listMembers(ctx.kv)).find((m) => m.member_id !== target)?.member_id
    : visit.member.member_id;
  if (!keep) {
    throw new HttpError(
      409,
      "last_member",
      "you are the last staff member: invite someone before you remove yourself",
    );
  }
  const now = ctx.now();
  const removal = await removeMember(ctx.kv, target, {
    keep,
    extra: (op) => auditEntry(op, _fact(visit, "remove_member", target), now),
  });
  if (removal === "absent") {
    throw new HttpError(404, "not_found", "no such member: removed already?");
  }
  if (removal === "alone") {
    throw new HttpError(
      409,
      "conflict",
      "staff changed meanwhile and this would leave nobody: look again",
    );
  }
  if (self) return seeOther(STAFF_PATHS.signIn, { "Set-Cookie": clearCookie(ctx.config.baseUrl) });
  return seeOther(STAFF_PATHS.members);
}

function _fact(visit: StaffVisit, action: AuditAction, target: string | null): AuditFact {
  return {
    member_id: visit.member.member_id,
    actor: visit.member.name,
    session: visit.sessionTag,
    action,
    target,
    detail: null,
  };
}

function _who(visit: StaffVisit): SignedIn {
  return { name: visit.member.name, csrf: visit.csrf };
}
