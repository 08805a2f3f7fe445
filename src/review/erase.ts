/**
 * @module
 * The staff CLI's commands that erase submissions: `erase` (one, or all of an email
 * address: a data-subject request) and `purge` (of one status, before a date). Each prints
 * what it did, one line per submission, so the output is the record of the request, and
 * writes its audit entry. Erasing one and erasing by email are also the console's
 * ({@linkcode eraseAudited}, {@linkcode eraseByEmail}), naming the CLI or the member.
 */

import type { Kv } from "../store/store.ts";
import { type Erased, eraseSubmission } from "../store/erasure.ts";
import { appendAudit, type AuditActor, auditEntry } from "../store/staff_audit.ts";
import { emailHasher, idsByEmail } from "../store/submission_index.ts";
import { getSubmissions, type SubmissionRecord } from "../store/submissions.ts";
import { CLI_ACTOR, ReviewError, type ReviewIo } from "./io.ts";
import {
  decidedIdsBefore,
  eraseAll,
  hasStatus,
  type PurgeStatus,
  recordsBefore,
  retentionCutoff,
} from "./retention.ts";
import { oneLine } from "./terminal.ts";

type EraseIo = Pick<ReviewIo, "kv" | "now" | "out">;

/** `erase <request_id>`: one submission and everything that points to it. */
export async function eraseOne(io: EraseIo, id: string): Promise<void> {
  const erased = await eraseAudited(io.kv, id, io.now(), CLI_ACTOR);
  if (!erased) throw new ReviewError(`no submission ${id}`);
  io.out(_erasedLine(erased));
}

/** `erase --email <address>`: every submission with that email (a data-subject request). */
export async function eraseEmail(io: EraseIo, email: string, dryRun: boolean): Promise<void> {
  const what = `with email ${oneLine(email)}`;
  if (dryRun) {
    await _dryRun(io, await findByEmail(io.kv, email), what);
    return;
  }
  const { erased } = await eraseByEmail(io.kv, email, io.now(), CLI_ACTOR, {
    onErased: (e) => io.out(_erasedLine(e)),
  });
  io.out(`erased ${erased} submission${erased === 1 ? "" : "s"} ${what}`);
}

/**
 * Erases one submission, with its audit entry in the same commit (the CLI's `erase`, the
 * console's erase form); null when there is no such submission.
 */
export function eraseAudited(
  kv: Kv,
  id: string,
  now: number,
  actor: AuditActor,
): Promise<Erased | null> {
  return eraseSubmission(kv, id, (op) => {
    auditEntry(op, { ...actor, action: "erase", target: id, detail: null }, now);
  });
}

/**
 * Erases every submission whose email is `email` (a data-subject request), or the first
 * `limit` of them (the console erases a page a request: a flood of submissions under one
 * address must not make one request erase them all), then records how many in the audit
 * trail: the count only, never the address. Many commits, so the entry follows them.
 * Returns the count, and whether more have the address.
 */
export async function eraseByEmail(
  kv: Kv,
  email: string,
  now: number,
  actor: AuditActor,
  options: { onErased?: (e: Erased) => void; limit?: number } = {},
): Promise<{ erased: number; more: boolean }> {
  const { limit } = options;
  const found = await findByEmail(kv, email, limit === undefined ? undefined : limit + 1);
  const more = limit !== undefined && found.length > limit;
  const ids = found.slice(0, limit).map((r) => r.request_id);
  const erased = await eraseAll(kv, ids, options.onErased);
  const detail = `${erased} submission${erased === 1 ? "" : "s"}`;
  await appendAudit(kv, { ...actor, action: "erase_email", target: null, detail }, now);
  return { erased, more };
}

/** What a purge takes and whether it only lists them. */
interface PurgeQuery {
  status: PurgeStatus;
  /** ms: pending ones created before it, decided ones decided before it. */
  before: number;
  dryRun: boolean;
  /** The flag that erases, named by a dry run's last line (none for `--decided-before`). */
  erasesWith?: string;
}

/**
 * `purge --status <status> --before <YYYY-MM-DD | Nd> [--yes]` and `purge --decided-before`:
 * the submissions of that status before the cutoff, read an index page at a time and printed
 * as they go; each erased only if it still has that status. A run that erases writes one
 * audit entry, the count, the status and the cutoff, after its commits (also when it fails
 * part way, with what was erased by then).
 */
export async function purge(io: EraseIo, q: PurgeQuery): Promise<void> {
  const what = _purgeWhat(q.status, q.before);
  if (q.dryRun) {
    const found = await _dryRun(io, recordsBefore(io.kv, q.status, q.before), what);
    if (found && q.erasesWith) io.out(`to erase them, run the same command with ${q.erasesWith}`);
    return;
  }
  const ids = q.status === "decided"
    ? decidedIdsBefore(io.kv, q.before)
    : _idsOf(recordsBefore(io.kv, q.status, q.before));
  let erased = 0;
  try {
    await eraseAll(io.kv, ids, (e) => {
      erased++;
      io.out(_erasedLine(e));
    }, hasStatus(q.status));
  } finally {
    const detail = `${erased} submission${erased === 1 ? "" : "s"} ${what}`;
    await appendAudit(io.kv, { ...CLI_ACTOR, action: "purge", target: null, detail }, io.now());
  }
  io.out(`erased ${erased} submission${erased === 1 ? "" : "s"} ${what}`);
}

/** A purge in words: `pending, created before …`, `decided before …`. */
function _purgeWhat(status: PurgeStatus, before: number): string {
  const at = new Date(before).toISOString();
  return status === "pending" ? `pending, created before ${at}` : `${status} before ${at}`;
}

async function* _idsOf(records: AsyncIterable<SubmissionRecord>): AsyncGenerator<string> {
  for await (const r of records) yield r.request_id;
}

/**
 * The submissions whose `email` field is `email` (trimmed, any case), in id order, `limit`
 * at most, through the email index: the cost follows the matches, not the store. What a
 * dry run lists.
 */
export async function findByEmail(
  kv: Kv,
  email: string,
  limit?: number,
): Promise<SubmissionRecord[]> {
  const hash = await emailHasher(kv);
  return await getSubmissions(kv, await idsByEmail(kv, hash(email), limit));
}

/** Lists what would be erased; returns how many. */
async function _dryRun(
  io: EraseIo,
  found: Iterable<SubmissionRecord> | AsyncIterable<SubmissionRecord>,
  what: string,
): Promise<number> {
  let n = 0;
  for await (const r of found) {
    n++;
    io.out(`would erase ${r.request_id} (${r.kind}, created ${r.created_at})`);
  }
  io.out(`${n} submission${n === 1 ? "" : "s"} ${what}; nothing erased`);
  return n;
}

function _erasedLine(e: Erased): string {
  return `erased ${e.request_id} (${e.kind}, created ${e.created_at}): ${e.keys} keys in one commit`;
}

/**
 * Parses `--before` and `--decided-before`: a date (`2026-01-31`, midnight UTC) or a number
 * of days before now (`30d`). Undefined when it is neither.
 */
export function parseCutoff(text: string, now: number): number | undefined {
  const days = text.match(/^(\d{1,5})d$/);
  if (days) return retentionCutoff(now, Number(days[1]));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const at = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text ? undefined : at;
}
