/**
 * @module
 * How a staff member comes to be: the one-time invite link (made in the console or by
 * `deno task review invite`), and the rules of a member's id and name that the console, the
 * CLI and an enrolment by code share.
 *
 * An invite link is `BASE_URL/staff/enrol#invite=<32 random bytes>`: the token travels in
 * the fragment, which a browser never sends, so it reaches no access log, proxy or
 * `Referer`. The store keeps its digest only, for {@linkcode INVITE_TTL_MS}; enrolment spends
 * it in the commit that stores the new member.
 */

import type { Kv } from "../store/store.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { digest, randomCredential } from "../oauth/secrets.ts";
import { createInvite } from "../store/staff.ts";
import { auditEntry, type AuditFact } from "../store/staff_audit.ts";
import { HOUR_MS } from "../time.ts";

/** An invite works for this long, once. */
export const INVITE_TTL_MS = HOUR_MS;

/** The longest member name. */
export const NAME_MAX = 80;

/** A member id: `stf_` and 32 hex digits. */
export function newMemberId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `stf_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export function isMemberId(text: string): boolean {
  return /^stf_[0-9a-f]{32}$/.test(text);
}

/**
 * A member's name as typed, trimmed: 1 to {@linkcode NAME_MAX} characters, no control or
 * format characters (it is shown in pages, the audit trail and a terminal). Undefined when
 * it breaks a rule; the caller says which.
 */
export function memberName(raw: string | null | undefined): string | undefined {
  const name = raw?.trim() ?? "";
  if (!name || name.length > NAME_MAX || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name)) return undefined;
  return name;
}

/** What {@linkcode inviteMember} says about a name that {@linkcode memberName} refuses. */
export const NAME_RULE =
  `a name is 1 to ${NAME_MAX} characters, with no control characters (it is shown to staff)`;

/**
 * Stores a one-time invite for `name`, with the audit entry of `fact` in the same commit;
 * the link (shown once: it is not kept) and when it expires.
 */
export async function inviteMember(
  kv: Kv,
  invite: { name: string; invitedBy: string; baseUrl: string; now: number },
  fact: AuditFact,
): Promise<{ link: string; expiresAt: number }> {
  const token = randomCredential("", 32);
  const expiresAt = invite.now + INVITE_TTL_MS;
  await createInvite(kv, digest(token), {
    name: invite.name,
    invited_by: invite.invitedBy,
    created_at: invite.now,
    expires_at: expiresAt,
  }, (op) => auditEntry(op, fact, invite.now));
  return { link: `${invite.baseUrl}${STAFF_PATHS.enrol}#invite=${token}`, expiresAt };
}
