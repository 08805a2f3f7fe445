/**
 * @module
 * A reviewer's decision on a submission, the one way both the CLI (`approve`, `reject`) and
 * the console's decide form record it: the note checked, the record read, refused when it
 * is gone, already decided or (for the console) no longer the version the reviewer saw,
 * then written with its decision index and its audit entry in one commit checked against
 * that read. The status read (`GET /api/v1/requests/{id}`, `get_request_status`) and the
 * notifier read the record only, so they see a console decision exactly as a CLI one.
 * Approving records a human decision and nothing else: nothing is ordered, invoiced or
 * dispatched.
 */

import type { Kv } from "../store/store.ts";
import { type AuditActor, auditEntry, type AuditFact } from "../store/staff_audit.ts";
import {
  getSubmission,
  type ReviewStatus,
  type SubmissionRecord,
  updateSubmission,
} from "../store/submissions.ts";

/** The longest note a decision keeps. */
export const NOTE_MAX = 1000;

/** What a decision can be. */
export type Verdict = Exclude<ReviewStatus, "pending">;

/** Why a decision was not recorded: each surface words `changed` its own way. */
type RefusalReason = "invalid" | "missing" | "decided" | "changed";

/** A decision not recorded, and why. */
export class DecisionRefused extends Error {
  constructor(readonly reason: RefusalReason, message: string) {
    super(message);
  }
}

interface DecisionRequest {
  request_id: string;
  status: Verdict;
  note?: string;
  /** Who decided, as the record keeps it: a member's name, or the CLI's `--by`. */
  by?: string | null;
  now: number;
  /** The versionstamp of the record as the reviewer saw it; absent, the record as read now. */
  seen?: string;
  /** Who acts, for the audit entry written in the decision's commit. */
  actor: AuditActor;
}

/** Records a decision; returns the record as it now is, or throws {@linkcode DecisionRefused}. */
export async function decide(kv: Kv, d: DecisionRequest): Promise<SubmissionRecord> {
  if (d.note !== undefined && d.note.length > NOTE_MAX) {
    throw new DecisionRefused("invalid", `note must be at most ${NOTE_MAX} characters`);
  }
  const id = d.request_id;
  const entry = await getSubmission(kv, id);
  if (!entry.value) throw new DecisionRefused("missing", `no submission ${id}`);
  if (d.seen !== undefined && d.seen !== entry.versionstamp) {
    throw new DecisionRefused("changed", `${id} changed since it was read`);
  }
  if (entry.value.status !== "pending") {
    const was = entry.value.decision;
    throw new DecisionRefused(
      "decided",
      `${id} is already ${entry.value.status}${was ? ` (${was.decided_at})` : ""}`,
    );
  }
  const note = d.note?.trim() || null;
  const decision = {
    status: d.status,
    decided_at: new Date(d.now).toISOString(),
    by: d.by?.trim() || null,
    note,
  };
  const next: SubmissionRecord = { ...entry.value, status: d.status, decision };
  const fact: AuditFact = {
    ...d.actor,
    action: d.status === "approved" ? "approve" : "reject",
    target: id,
    detail: note ? "with a note" : null,
  };
  // One atomic write that checks the versionstamp: two reviewers cannot overwrite each other.
  const written = await updateSubmission(
    kv,
    entry as Deno.KvEntry<SubmissionRecord>,
    next,
    (op) => auditEntry(op, fact, d.now),
  );
  if (!written) throw new DecisionRefused("changed", `${id} changed while it was being decided`);
  return next;
}
