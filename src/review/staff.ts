/**
 * @module
 * The staff commands of `deno task review`: `invite` prints a one-time enrolment link for
 * the staff console, `staff` lists the members, `remove-staff` removes one (their sessions
 * end at once on every instance). Each change writes its audit entry, as actor `cli`, in its
 * own commit. The link needs the service's public origin: `BASE_URL` (and `PORT`), read as
 * the service reads them.
 */

import { ConfigError } from "../config.ts";
import { oneLine } from "./terminal.ts";
import { inviteMember, isMemberId, memberName, NAME_RULE } from "../staff/invites.ts";
import {
  anyMember,
  getMember,
  listMembers,
  passkeysOfMember,
  removeMember,
} from "../store/staff.ts";
import { type AuditAction, auditEntry, type AuditFact } from "../store/staff_audit.ts";
import { ReviewError, type ReviewIo, UsageError } from "./io.ts";

/** The staff commands' lines of the CLI's usage. */
export const STAFF_USAGE = `  invite --name "…"
  staff [--json]
  remove-staff <member_id>`;

/** What each staff command does, for `<command> --help`. */
export const STAFF_HELP: Readonly<Record<string, string>> = {
  invite: `usage: deno task review invite --name "Sam Reviewer"
Prints a one-time link that enrols a staff member in the console at /staff/ with a passkey.
It works once, within an hour, and is stored only as a digest: give it privately, and make
another if it is lost. The link is on stdout alone; what it is for, on stderr. The link
starts with BASE_URL, which must be the service's public origin (as it runs with it).`,
  staff: `usage: deno task review staff [--json]
Lists the staff console's members: id, name, since when, how many passkeys.`,
  "remove-staff": `usage: deno task review remove-staff <member_id>
Removes a staff member: their sessions end at once on every instance, and their passkeys
no longer sign in. For a lost device: remove, then invite them again. It may remove the
last member: sign-in is then off until someone enrols from a new invite.`,
};

/**
 * Runs `invite`, `staff` or `remove-staff`; any other command is a usage error (this is
 * the CLI's last resort, after its submission commands).
 */
export async function runStaffCommand(
  io: ReviewIo,
  command: string | undefined,
  id: string | undefined,
  o: { name?: string; json?: boolean },
): Promise<void> {
  switch (command) {
    case "invite":
      if (id) throw new UsageError("invite takes --name, not an argument");
      if (o.name === undefined) throw new UsageError('invite needs --name "…"');
      return await _invite(io, o.name);
    case "staff":
      if (id) throw new UsageError("staff takes no argument");
      return await _list(io, o.json ?? false);
    case "remove-staff":
      if (!id || !isMemberId(id)) throw new UsageError("remove-staff needs a member id (stf_…)");
      return await _remove(io, id);
    default:
      throw new UsageError(command ? `unknown command "${oneLine(command)}"` : "no command given");
  }
}

/** `invite --name`: stores an invite and prints its link. */
async function _invite(io: ReviewIo, rawName: string): Promise<void> {
  const name = memberName(rawName);
  if (!name) throw new ReviewError(`--name: ${NAME_RULE}`);
  const baseUrl = _baseUrl(io);
  const now = io.now();
  const { link, expiresAt } = await inviteMember(
    io.kv,
    { name, invitedBy: "cli", baseUrl, now },
    _cliFact("invite", null),
  );
  io.out(link);
  io.err(
    `The link above enrols ${name} in the staff console (${baseUrl}/staff/). It works once, ` +
      `until ${new Date(expiresAt).toISOString()}, and is not shown again.`,
  );
}

/** `staff`: every member, with their passkeys counted. */
async function _list(io: ReviewIo, asJson: boolean): Promise<void> {
  const members = await listMembers(io.kv);
  const rows = await Promise.all(members.map(async (m) => ({
    member_id: m.member_id,
    name: m.name,
    created_at: new Date(m.created_at).toISOString(),
    invited_by: m.invited_by,
    passkeys: (await passkeysOfMember(io.kv, m.member_id)).length,
  })));
  if (asJson) {
    io.out(JSON.stringify(rows, null, 2));
    return;
  }
  if (!rows.length) {
    io.err('No staff member yet: print an invite with `deno task review invite --name "…"`.');
    return;
  }
  const line = (id: string, created: string, passkeys: string, name: string) =>
    `${id.padEnd(36)}  ${created.padEnd(24)}  ${passkeys.padEnd(8)}  ${name}`;
  io.out(line("member_id", "created", "passkeys", "name"));
  for (const r of rows) io.out(line(r.member_id, r.created_at, String(r.passkeys), r.name));
}

/** `remove-staff <member_id>`: removes the member; the last one too. */
async function _remove(io: ReviewIo, memberId: string): Promise<void> {
  const member = await getMember(io.kv, memberId);
  const removal = member &&
    await removeMember(io.kv, memberId, {
      extra: (op) => auditEntry(op, _cliFact("remove_member", memberId), io.now()),
    });
  if (!member || removal === "absent") throw new ReviewError(`no staff member ${memberId}`);
  io.out(
    `${memberId} (${member.name}) removed: their sessions ended on every instance, and their ` +
      "passkeys no longer sign in.",
  );
  if (!(await anyMember(io.kv))) {
    io.err("No staff member is left: sign-in is off until someone enrols from a new invite.");
  }
}

function _baseUrl(io: ReviewIo): string {
  if (!io.baseUrl) throw new ReviewError("BASE_URL is not known here");
  try {
    return io.baseUrl();
  } catch (err) {
    if (err instanceof ConfigError) throw new ReviewError(err.message);
    throw err;
  }
}

function _cliFact(action: AuditAction, target: string | null): AuditFact {
  return { member_id: null, actor: "cli", session: "cli", action, target, detail: null };
}
