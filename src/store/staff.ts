/**
 * @module
 * The staff console's records: members, their passkeys, their sessions, the invites and
 * one-time enrolment codes that make a member, and the challenge of each passkey ceremony.
 * Every secret (a session cookie, an invite, an enrolment code, a challenge) is stored under
 * its SHA-256 digest only.
 *
 * Keys (store/keys.ts):
 * - `["staff_members", member_id]` → {@linkcode StaffMember}
 * - `["staff_passkeys", credential_id]` → {@linkcode StaffPasskey}, and
 *   `["staff_member_passkeys", member_id, credential_id]` → `true`, written together
 * - `["staff_sessions", sha256(token)]` → {@linkcode StaffSession}, and
 *   `["staff_member_sessions", member_id, sha256(token)]` → `true`, written together
 * - `["staff_invites", sha256(token)]` → {@linkcode StaffInvite}
 * - `["staff_ceremonies", sha256(challenge)]` → {@linkcode Ceremony}
 * - `["staff_codes_spent", sha256(code)]` → when it was spent, and by whom
 *
 * **Removal is exact.** A session is served only after a strong read of both the session and
 * its member, in one round trip (`getSession`), on every request: a removed member's open
 * session is refused by the next request on any instance, with no cache to wait out. Removal
 * also deletes the member's passkeys and sessions, page by page.
 */

import type { Atomic, Kv } from "./store.ts";
import { commitWrite, type Write } from "./commits.ts";
import {
  allStaffMembers,
  ceremonyKey,
  memberPasskeyKey,
  memberSessionKey,
  passkeysOf,
  sessionsOf,
  spentCodeKey,
  staffInviteKey,
  staffMemberKey,
  staffPasskeyKey,
  staffSessionKey,
} from "./keys.ts";
import { KV_LIMITS } from "./limits.ts";

export interface StaffMember {
  member_id: string;
  /** As the inviter or the member typed it; shown in the console and the audit trail. */
  name: string;
  /** ms since the epoch */
  created_at: number;
  /** Who let them in: a member id, `"cli"` (an invite printed by the CLI) or `"code"`. */
  invited_by: string;
}

export interface StaffPasskey {
  member_id: string;
  /** base64url, as WebAuthn's `credential.id` */
  credential_id: string;
  /** The COSE public key. */
  public_key: Uint8Array;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  transports: string[];
  /** ms since the epoch */
  created_at: number;
}

export interface StaffSession {
  member_id: string;
  /** ms since the epoch */
  created_at: number;
  /** ms since the epoch: the absolute end, whatever the use. */
  expires_at: number;
  /** ms since the epoch: the last request seen, written at most once a minute. */
  seen_at: number;
}

export interface StaffInvite {
  /** The name the new member will have. */
  name: string;
  /** A member id, or `"cli"`. */
  invited_by: string;
  /** ms since the epoch */
  created_at: number;
  /** ms since the epoch */
  expires_at: number;
}

/** A passkey ceremony begun: what it is for, until when; spent by its answer. */
export type Ceremony =
  | { kind: "sign_in"; expires_at: number }
  | {
    kind: "enrol";
    expires_at: number;
    /** The invite's digest, or the enrolment code's, whichever the page presented. */
    by: { invite: string } | { code: string };
    /** The new member's id and name, fixed when the ceremony began. */
    member_id: string;
    name: string;
  };

export function getMember(kv: Kv, memberId: string): Promise<StaffMember | null> {
  return getMemberEntry(kv, memberId).then((e) => e.value);
}

/** A member's entry, for a commit that must check the member is still there. */
export function getMemberEntry(
  kv: Kv,
  memberId: string,
): Promise<Deno.KvEntryMaybe<StaffMember>> {
  return kv.get<StaffMember>(staffMemberKey(memberId));
}

/** Every staff member (a handful: a page of the store's largest list). */
export async function listMembers(kv: Kv): Promise<StaffMember[]> {
  const out: StaffMember[] = [];
  const iter = kv.list<StaffMember>(allStaffMembers(), { limit: KV_LIMITS.mutations });
  for await (const e of iter) out.push(e.value);
  return out;
}

/** Whether anyone has enrolled: the console's sign-in is off until someone has. */
export async function anyMember(kv: Kv): Promise<boolean> {
  const iter = kv.list(allStaffMembers(), { limit: 1 });
  for await (const _ of iter) return true;
  return false;
}

// Sessions

/**
 * A session and its member, read strongly together in one round trip (the cookie names the
 * member): the member's removal ends the session at once (see the module documentation).
 * Null when either is missing or they disagree.
 */
export async function getSession(
  kv: Kv,
  sessionHash: string,
  memberId: string,
): Promise<{ entry: Deno.KvEntry<StaffSession>; member: StaffMember } | null> {
  const [session, member] = await kv.getMany<[StaffSession, StaffMember]>([
    staffSessionKey(sessionHash),
    staffMemberKey(memberId),
  ]);
  if (!session.value || !member.value || session.value.member_id !== memberId) return null;
  return { entry: session as Deno.KvEntry<StaffSession>, member: member.value };
}

/** The write of a new session and its index entry; its proof is the session key itself. */
export function newSession(sessionHash: string, session: StaffSession): Write {
  const key = staffSessionKey(sessionHash);
  const expireIn = Math.max(1, session.expires_at - session.created_at);
  return {
    write(op) {
      op.check({ key, versionstamp: null })
        .set(key, session, { expireIn })
        .set(memberSessionKey(session.member_id, sessionHash), true, { expireIn });
    },
    proof: {
      keys: [key],
      landed: ([e]) => (e?.value as StaffSession | null)?.created_at === session.created_at,
    },
  };
}

/** Records a request seen, unless the session changed (a sign-out) meanwhile. */
export async function touchSession(
  kv: Kv,
  entry: Deno.KvEntry<StaffSession>,
  now: number,
): Promise<void> {
  const expireIn = Math.max(1, entry.value.expires_at - now);
  await kv.atomic().check(entry).set(entry.key, { ...entry.value, seen_at: now }, { expireIn })
    .commit();
}

/** Ends one session (sign-out, or one past its end); `extra` joins the commit (an audit entry). */
export async function endSession(
  kv: Kv,
  sessionHash: string,
  memberId: string,
  extra?: (op: Atomic) => void,
) {
  const op = kv.atomic().delete(staffSessionKey(sessionHash))
    .delete(memberSessionKey(memberId, sessionHash));
  extra?.(op);
  await op.commit();
}

// Members and passkeys

/** The passkey of a credential id, as a sign-in presents it. */
export function getPasskey(
  kv: Kv,
  credentialId: string,
): Promise<Deno.KvEntryMaybe<StaffPasskey>> {
  return kv.get<StaffPasskey>(staffPasskeyKey(credentialId));
}

/** A member's passkeys (at most a page: a member adds a few). */
export async function passkeysOfMember(kv: Kv, memberId: string): Promise<StaffPasskey[]> {
  const ids: string[] = [];
  for await (const e of kv.list(passkeysOf(memberId), { limit: KV_LIMITS.getMany })) {
    ids.push(String(e.key.at(-1)));
  }
  const entries = await kv.getMany<StaffPasskey[]>(ids.map(staffPasskeyKey));
  return entries.flatMap((e) => e.value ? [e.value] : []);
}

/** The mutations that store a new member with a first passkey (checked to be new). */
export function addMember(op: Atomic, member: StaffMember, passkey: StaffPasskey) {
  const key = staffMemberKey(member.member_id);
  const pk = staffPasskeyKey(passkey.credential_id);
  op.check({ key, versionstamp: null }, { key: pk, versionstamp: null })
    .set(key, member)
    .set(pk, passkey)
    .set(memberPasskeyKey(member.member_id, passkey.credential_id), true);
}

/**
 * The mutations that record a passkey's new counter after a sign-in, unless the passkey
 * changed meanwhile (another sign-in with it, or a replay): the commit then fails.
 */
export function setCounter(
  op: Atomic,
  entry: Deno.KvEntry<StaffPasskey>,
  counter: number,
) {
  op.check(entry).set(entry.key, { ...entry.value, counter });
}

/** What {@linkcode removeMember} came to. */
type Removal = "removed" | "absent" | "alone";

/**
 * Removes a member: the member record first (which alone ends every session at once), then
 * their passkeys and sessions, a commit of at most {@linkcode KV_LIMITS}.mutations keys at a
 * time. `extra` joins the first commit (the audit entry). With `keep`, that commit also
 * checks that member `keep` is still there, so that two members removing each other at once
 * cannot leave nobody: `"alone"` when `keep` is gone. `"absent"` when there was no member.
 */
export async function removeMember(
  kv: Kv,
  memberId: string,
  options: { keep?: string; extra?: (op: Atomic) => void } = {},
): Promise<Removal> {
  const keys = [staffMemberKey(memberId), ...(options.keep ? [staffMemberKey(options.keep)] : [])];
  for (;;) {
    const [entry, kept] = await kv.getMany<StaffMember[]>(keys);
    if (!entry?.value) return "absent";
    if (kept && !kept.value) return "alone";
    const op = kv.atomic().check(entry).delete(entry.key);
    if (kept) op.check(kept);
    options.extra?.(op);
    if ((await op.commit()).ok) break;
  }
  await _deleteIndexed(kv, passkeysOf(memberId), staffPasskeyKey);
  await _deleteIndexed(kv, sessionsOf(memberId), staffSessionKey);
  return "removed";
}

/** Deletes every key an index lists and the index entries, half a commit's mutations at once. */
async function _deleteIndexed(
  kv: Kv,
  index: Deno.KvListSelector,
  target: (id: string) => Deno.KvKey,
): Promise<void> {
  const batch = Math.floor(KV_LIMITS.mutations / 2);
  for (;;) {
    const keys: Deno.KvKey[] = [];
    for await (const e of kv.list(index, { limit: batch })) keys.push(e.key);
    if (!keys.length) return;
    const op = kv.atomic();
    for (const k of keys) op.delete(k).delete(target(String(k.at(-1))));
    await op.commit();
  }
}

// Invites, enrolment codes, ceremonies

/** Stores an invite under its digest, expiring with it. */
export async function createInvite(
  kv: Kv,
  inviteHash: string,
  invite: StaffInvite,
  extra?: (op: Atomic) => void,
): Promise<void> {
  const key = staffInviteKey(inviteHash);
  const write: Write = {
    write(op) {
      op.check({ key, versionstamp: null })
        .set(key, invite, { expireIn: Math.max(1, invite.expires_at - invite.created_at) });
      extra?.(op);
    },
    proof: {
      keys: [key],
      landed: ([e]) => (e?.value as StaffInvite | null)?.created_at === invite.created_at,
    },
  };
  if (!(await commitWrite(kv, write)).ok) throw new Error("invite collision");
}

/**
 * The mutations that spend an invite: it must be as it was read, and so must the member who
 * made it (`inviter`, absent for the CLI's): a member removed meanwhile takes their unused
 * invites with them.
 */
export function spendInvite(
  op: Atomic,
  entry: Deno.KvEntry<StaffInvite>,
  inviter?: Deno.KvEntry<StaffMember>,
) {
  op.check(entry).delete(entry.key);
  if (inviter) op.check(inviter);
}

export function getInvite(
  kv: Kv,
  inviteHash: string,
): Promise<Deno.KvEntryMaybe<StaffInvite>> {
  return kv.get<StaffInvite>(staffInviteKey(inviteHash));
}

/** Whether an enrolment code (by its digest) was spent already. */
export function getSpentCode(
  kv: Kv,
  codeHash: string,
): Promise<Deno.KvEntryMaybe<{ spent_at: number; member_id: string }>> {
  return kv.get(spentCodeKey(codeHash));
}

/** Records an enrolment code as spent: the commit fails if it was spent already. */
export function spendCode(
  op: Atomic,
  codeHash: string,
  spent: { spent_at: number; member_id: string },
) {
  const key = spentCodeKey(codeHash);
  op.check({ key, versionstamp: null }).set(key, spent);
}

/**
 * The write of a ceremony's challenge under its digest, for as long as the ceremony may
 * take (committed with the request's rate count); its proof is the ceremony key itself.
 */
export function beginCeremony(challengeHash: string, ceremony: Ceremony, now: number): Write {
  const key = ceremonyKey(challengeHash);
  return {
    write(op) {
      op.check({ key, versionstamp: null })
        .set(key, ceremony, { expireIn: Math.max(1, ceremony.expires_at - now) });
    },
    proof: {
      keys: [key],
      landed: ([e]) => (e?.value as Ceremony | null)?.expires_at === ceremony.expires_at,
    },
  };
}

export function getCeremony(
  kv: Kv,
  challengeHash: string,
): Promise<Deno.KvEntryMaybe<Ceremony>> {
  return kv.get<Ceremony>(ceremonyKey(challengeHash));
}

/**
 * The mutations that spend a ceremony, in the commit of what it made (a member, a session):
 * a second answer to the same challenge (a replay) finds it gone, or fails this check.
 */
export function spendCeremony(op: Atomic, entry: Deno.KvEntry<Ceremony>) {
  op.check(entry).delete(entry.key);
}
