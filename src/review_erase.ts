/**
 * @module
 * The staff CLI's commands that remove data or stop a client: `erase`, `purge` and
 * `disable-client`. Each prints what it did, one line per submission, so the output is
 * the record of a data-subject request.
 */

import {
  eraseAll,
  type Erased,
  eraseSubmission,
  findByEmail,
  findDecidedBefore,
} from "./erasure.ts";
import { disableClient, type SubmissionRecord } from "./kv.ts";
import { oneLine } from "./terminal.ts";

export interface EraseIo {
  kv: Deno.Kv;
  now: () => number;
  out: (line: string) => void;
}

/** A refusal that is not a usage error: exit 1. */
export class ReviewError extends Error {}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `erase <request_id>`: one submission and everything that points to it. */
export async function eraseOne(io: EraseIo, id: string): Promise<void> {
  const erased = await eraseSubmission(io.kv, id);
  if (!erased) throw new ReviewError(`no submission ${id}`);
  io.out(_erasedLine(erased));
}

/** `erase --email <address>`: every submission with that email (a data-subject request). */
export async function eraseEmail(io: EraseIo, email: string, dryRun: boolean): Promise<void> {
  const found = await findByEmail(io.kv, email);
  await _eraseFound(io, found, dryRun, `with email ${oneLine(email)}`);
}

/** `purge --decided-before <YYYY-MM-DD | Nd>`: decided submissions older than the cutoff. */
export async function purge(io: EraseIo, before: number, dryRun: boolean): Promise<void> {
  const found = await findDecidedBefore(io.kv, before);
  await _eraseFound(io, found, dryRun, `decided before ${new Date(before).toISOString()}`);
}

async function _eraseFound(
  io: EraseIo,
  found: SubmissionRecord[],
  dryRun: boolean,
  what: string,
): Promise<void> {
  if (dryRun) {
    for (const r of found) {
      io.out(`would erase ${r.request_id} (${r.kind}, created ${r.created_at})`);
    }
    io.out(`${found.length} submission${found.length === 1 ? "" : "s"} ${what}; nothing erased`);
    return;
  }
  const erased = await eraseAll(io.kv, found);
  for (const e of erased) io.out(_erasedLine(e));
  io.out(`erased ${erased.length} submission${erased.length === 1 ? "" : "s"} ${what}`);
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
  if (days) return now - Number(days[1]) * DAY_MS;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const at = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text ? undefined : at;
}

/** `disable-client <client_id>`: its tokens stop working at once, everywhere. */
export async function disableOne(io: EraseIo, clientId: string): Promise<void> {
  const result = await disableClient(io.kv, clientId, io.now());
  if (!result) throw new ReviewError(`no client ${clientId}`);
  const at = new Date(result.record.disabled_at!).toISOString();
  const tokens = `${result.revoked} token${result.revoked === 1 ? "" : "s"} revoked`;
  const was = result.already ? "was already disabled" : "disabled";
  io.out(`${clientId} ${was} at ${at}; ${tokens}. Its token requests now get invalid_client.`);
}

/** A client id as registration issues them (`agt_` and base64url). */
export function isClientId(text: string): boolean {
  return /^agt_[A-Za-z0-9_-]{1,124}$/.test(text);
}
