/**
 * @module
 * The audit trail of staff actions: who did what, when, from which session. An entry holds
 * identifiers and fixed words only, never submitted text (not a name, an email or a note
 * from a submission): a decision's note stays on the submission. An action done in one commit
 * writes its entry in that commit ({@linkcode auditEntry}), so neither lands without the other.
 *
 * Keys (store/keys.ts), both kept {@linkcode AUDIT_RETENTION_MS} and written together:
 * - `["staff_audit", at_ms, entry_id]` → {@linkcode AuditEntry}: the trail, read newest first,
 *   a page at a time;
 * - `["staff_audit_of", target, at_ms, entry_id]` → the same entry, for an entry with a
 *   target: the history of one submission (or client, or member) without reading the trail.
 */

import type { Atomic, Kv } from "./store.ts";
import { DAY_MS } from "../time.ts";
import { auditBefore, auditKey, auditOf, auditOfKey } from "./keys.ts";

/** How long an entry is kept: about 13 months, so a year can be looked back on. */
export const AUDIT_RETENTION_MS = 400 * DAY_MS;

/** What staff can do. */
export type AuditAction =
  | "enrol"
  | "sign_in"
  | "sign_out"
  | "invite"
  | "remove_member"
  | "approve"
  | "reject"
  | "erase"
  | "erase_email"
  | "purge"
  | "disable_client";

export interface AuditEntry {
  /** ms since the epoch */
  at: number;
  /** Random, orders entries of one millisecond. */
  entry_id: string;
  /** The member who acted, or null for the CLI (a person with the store, no member). */
  member_id: string | null;
  /** The member's name at the time (staff's own, not submitted text), or `"cli"`. */
  actor: string;
  /** The first 8 characters of the session cookie's digest, or `"cli"`. */
  session: string;
  action: AuditAction;
  /** What it acted on: a request id, a client id, a member id; never an email. */
  target: string | null;
  /** Counts and fixed words only (`"3 submissions"`), never caller text. */
  detail: string | null;
}

/** An entry's fields, less the two the store sets. */
export type AuditFact = Omit<AuditEntry, "at" | "entry_id">;

/** Who acts: a member in a session, or the CLI. */
export type AuditActor = Pick<AuditFact, "member_id" | "actor" | "session">;

/** Adds the entry of `fact` at `now` to a commit. */
export function auditEntry(op: Atomic, fact: AuditFact, now: number): void {
  const entry: AuditEntry = { at: now, entry_id: crypto.randomUUID(), ...fact };
  op.set(auditKey(now, entry.entry_id), entry, { expireIn: AUDIT_RETENTION_MS });
  if (entry.target !== null) {
    op.set(auditOfKey(entry.target, now, entry.entry_id), entry, {
      expireIn: AUDIT_RETENTION_MS,
    });
  }
}

/** Writes the entry of an action that was not one commit (an erasure by email). */
export async function appendAudit(kv: Kv, fact: AuditFact, now: number): Promise<void> {
  const op = kv.atomic();
  auditEntry(op, fact, now);
  await op.commit();
}

/**
 * A page of the trail, newest first, before `before` (the last entry of the previous page).
 * Entries past their retention that KV still returns are left out.
 */
export async function listAudit(
  kv: Kv,
  now: number,
  limit: number,
  before?: { atMs: number; id: string },
): Promise<AuditEntry[]> {
  return await _newestFirst(kv, auditBefore(before), now, limit);
}

/**
 * The newest `limit` entries about `target` (a request id, say), oldest first, from the
 * index by target: what one submission's history shows, whatever the trail's length.
 */
export async function listAuditOf(
  kv: Kv,
  target: string,
  now: number,
  limit: number,
): Promise<AuditEntry[]> {
  return (await _newestFirst(kv, auditOf(target), now, limit)).reverse();
}

/** Up to `limit` entries of `selector`, newest first, those past their retention left out. */
async function _newestFirst(
  kv: Kv,
  selector: Deno.KvListSelector,
  now: number,
  limit: number,
): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  for await (const e of kv.list<AuditEntry>(selector, { reverse: true, limit })) {
    if (e.value.at + AUDIT_RETENTION_MS > now) out.push(e.value);
  }
  return out;
}
