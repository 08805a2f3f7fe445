/**
 * @module
 * Replaying a submission's first answer: the one idempotency key a submission carries
 * (header or argument), the records that replay its answer (the same request, whatever key
 * or transport it comes with, for 10 minutes; an explicit key for 24 h), and the look-up
 * that finds the first answer, a key reused with other arguments (409), or the versionstamps
 * that a new submission's records must check.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import {
  getAnswerRecord,
  getIdempotency,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRecord,
  type ReplayRecord,
  SAME_REQUEST_TTL_MS,
  type SubmissionKind,
} from "../store/submissions.ts";
import { requestHash } from "./request_hash.ts";

/**
 * The idempotency key of a submission: the `Idempotency-Key` header (REST) or the
 * `idempotency_key` argument (MCP, or a REST body field). Both given and different is a
 * client mistake that no answer could satisfy.
 */
export function oneIdempotencyKey(
  header: string | undefined,
  argument: string | undefined,
): string | undefined {
  if (header !== undefined && argument !== undefined && header !== argument) {
    throw new HttpError(
      400,
      "invalid_idempotency_key",
      "the Idempotency-Key header and the idempotency_key field differ; send one",
    );
  }
  return header ?? argument;
}

/** The request's hash, and the records that replay its answer: the key's (if any) first. */
export interface ReplayScope {
  bodyHash: string;
  /** What a new submission writes, without versionstamps: [key's?, same request's]. */
  records: Omit<ReplayRecord, "versionstamp">[];
  /** True when the first of `records` is an explicit key's. */
  keyed: boolean;
}

/**
 * Who may replay this submission's answer, and for how long. Every record is per endpoint
 * kind and caller address, so one caller cannot squat or replay another's. The request
 * itself (same kind, same arguments and email as request_hash.ts compares them: a trailing
 * space is no change; the key left out, REST, MCP and the forms alike) replays for 10
 * minutes; an explicit key for 24 h.
 */
export function replayScope(
  ctx: Context,
  sub: { kind: SubmissionKind; raw: unknown; idempotencyKey?: string },
): ReplayScope {
  const { idempotency_key: _, ...request } = sub.raw as Record<string, unknown>;
  const bodyHash = requestHash(request);
  const same = {
    scope: { endpoint: `${sub.kind}:same`, address: ctx.address, key: bodyHash },
    ttl: SAME_REQUEST_TTL_MS,
  };
  if (!sub.idempotencyKey) return { bodyHash, records: [same], keyed: false };
  const key = {
    scope: { endpoint: sub.kind, address: ctx.address, key: sub.idempotencyKey },
    ttl: IDEMPOTENCY_TTL_MS,
  };
  return { bodyHash, records: [key, same], keyed: true };
}

/**
 * The first answer to the same request, or the versionstamps of `records` that a new
 * submission must check (null where absent; an expired record KV still returns, its stamp).
 */
export type Earlier = { answer: Record<string, unknown> } | { versions: (string | null)[] };

/**
 * Looks up a submission's records in one read: the key's answer for the same request, 409
 * for another; else the same request's answer, with whatever key; else the versionstamps
 * to write over. A record changes only by expiring, so an eventual read that finds one
 * unexpired finds it as it is. The same request's record of a keyed submission names the
 * key's record, which keeps the answer: one more (strong) read, only when it replays.
 */
export async function findEarlier(
  ctx: Context,
  { bodyHash, records, keyed }: ReplayScope,
  consistency: Deno.KvConsistencyLevel,
): Promise<Earlier> {
  const entries = await getIdempotency(ctx.kv, records.map((r) => r.scope), consistency);
  const live = (e: Deno.KvEntryMaybe<IdempotencyRecord> | undefined) =>
    e?.value && e.value.expires_at > ctx.now() ? e.value : null;
  const byKey = keyed ? live(entries[0]) : null;
  if (byKey && byKey.body_hash !== bodyHash) {
    const message = "this idempotency key was already used with other arguments: send the " +
      "same arguments to get the first answer again, or a new key for a new request";
    throw new HttpError(409, "idempotency_key_reused", message, {
      issues: [{ path: "idempotency_key", message }],
    });
  }
  const bySame = byKey ?? live(entries.at(-1));
  const answer = bySame ? await _answerOf(ctx, bySame) : undefined;
  if (answer !== undefined) return { answer: JSON.parse(answer) };
  return { versions: entries.map((e) => e.versionstamp) };
}

/**
 * The answer a record replays: its own, or the one its `answer_in` names, read strongly: a
 * stale read that missed it would have a live record written over (a second submission).
 * Missing, it was erased with the submission, and so was the record that names it.
 */
async function _answerOf(
  ctx: Context,
  record: IdempotencyRecord,
): Promise<string | undefined> {
  if (record.response !== undefined) return record.response;
  if (!record.answer_in) return undefined;
  const keeping = await getAnswerRecord(ctx.kv, record.answer_in);
  return keeping.value?.request_id === record.request_id ? keeping.value.response : undefined;
}
