/**
 * @module
 * The staff CLI's commands that erase submissions: `erase` (one, or all of an email
 * address: a data-subject request) and `purge` (decided before a date). Each prints what
 * it did, one line per submission, so the output is the record of the request. Erasing one
 * and erasing by email are also the console's ({@linkcode eraseAudited},
 * {@linkcode eraseByEmail}): each writes its audit entry, naming the CLI or the member.
 */

import type { Kv } from "../store/store.ts";
import { type Erased, eraseSubmission } from "../store/erasure.ts";
import { appendAudit, type AuditActor, auditEntry } from "../store/staff_audit.ts";
import { emailHasher, idsByEmail } from "../store/submission_index.ts";
import { getSubmission, getSubmissions, type SubmissionRecord } from "../store/submissions.ts";
import { CLI_ACTOR, ReviewError, type ReviewIo } from "./io.ts";
import { decidedIdsBefore, eraseAll, retentionCutoff } from "./retention.ts";
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
  if (dryRun) return await _dryRun(io, await findByEmail(io.kv, email), what);
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

/**
 * `purge --decided-before <YYYY-MM-DD | Nd>`: decided submissions older than the cutoff,
 * read from the decision index a page at a time and printed as they go.
 */
export async function purge(io: EraseIo, before: number, dryRun: boolean): Promise<void> {
  const what = `decided before ${new Date(before).toISOString()}`;
  if (dryRun) return await _dryRun(io, _decidedBefore(io.kv, before), what);
  await _erase(io, decidedIdsBefore(io.kv, before), what);
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

/** The submissions of `decidedIdsBefore`, for a dry run that shows each. */
async function* _decidedBefore(kv: Kv, before: number): AsyncGenerator<SubmissionRecord> {
  for await (const id of decidedIdsBefore(kv, before)) {
    const record = (await getSubmission(kv, id)).value;
    if (record) yield record;
  }
}

async function _dryRun(
  io: EraseIo,
  found: Iterable<SubmissionRecord> | AsyncIterable<SubmissionRecord>,
  what: string,
): Promise<void> {
  let n = 0;
  for await (const r of found) {
    n++;
    io.out(`would erase ${r.request_id} (${r.kind}, created ${r.created_at})`);
  }
  io.out(`${n} submission${n === 1 ? "" : "s"} ${what}; nothing erased`);
}

async function _erase(
  io: EraseIo,
  ids: Iterable<string> | AsyncIterable<string>,
  what: string,
): Promise<void> {
  const erased = await eraseAll(io.kv, ids, (e) => io.out(_erasedLine(e)));
  io.out(`erased ${erased} submission${erased === 1 ? "" : "s"} ${what}`);
}

function _erasedLine(e: Erased): string {
  return `erased ${e.request_id} (${e.kind}, created ${e.created_at}): ${e.keys} keys in one commit`;
}

/**
 * Parses `--decided-before`: a date (`2026-01-31`, midnight UTC) or a number of days
 * before now (`30d`). Undefined when it is neither.
 */
export function parseCutoff(text: string, now: number): number | undefined {
  const days = text.match(/^(\d{1,5})d$/);
  if (days) return retentionCutoff(now, Number(days[1]));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const at = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text ? undefined : at;
}
