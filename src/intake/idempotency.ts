/**
 * @module
 * Replaying a submission's first answer: the one idempotency key a submission carries
 * (header or argument), who may replay its answer and for how long (an explicit key for
 * 24 h; without one, the request itself for 10 minutes), and the look-up that finds the
 * first answer, a key reused with other arguments (409), or the versionstamp that a new
 * record must check.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import {
  type Channel,
  getIdempotency,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyScope,
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

/** Who may replay a submission's answer, its request's hash, and for how long. */
export interface ReplayScope {
  scope: IdempotencyScope;
  bodyHash: string;
  ttl: number;
}

/**
 * Who may replay this submission's answer, and for how long. Keys are per endpoint and
 * caller address, so one caller cannot squat another's keys. Without a key, the request
 * itself is the key for a short while: an identical retry (same endpoint or tool, same
 * arguments, same email, as request_hash.ts compares them: a trailing space is no change)
 * replays the first answer instead of storing a second. The key itself is not part of the
 * request: a header and a field give the same hash.
 */
export function replayScope(
  ctx: Context,
  sub: { kind: SubmissionKind; channel: Channel; raw: unknown; idempotencyKey?: string },
): ReplayScope {
  const { idempotency_key: _, ...request } = sub.raw as Record<string, unknown>;
  const bodyHash = requestHash(request);
  const scope: IdempotencyScope = sub.idempotencyKey
    ? { endpoint: sub.kind, address: ctx.address, key: sub.idempotencyKey }
    : { endpoint: `${sub.kind}:same:${sub.channel}`, address: ctx.address, key: bodyHash };
  return { scope, bodyHash, ttl: sub.idempotencyKey ? IDEMPOTENCY_TTL_MS : SAME_REQUEST_TTL_MS };
}

/** The first answer to the same request, or the versionstamp a new record must check. */
export type Earlier = { answer: Record<string, unknown> } | { staleVersion: string | null };

/**
 * Looks up an idempotency key: the earlier answer for the same request, 409 for another
 * request, or the versionstamp to overwrite (null when absent, or the stamp of an expired
 * record that KV still returns). A record changes only by expiring, so an eventual read
 * that finds one unexpired finds it as it is.
 */
export async function findEarlier(
  ctx: Context,
  { scope, bodyHash }: ReplayScope,
  consistency: Deno.KvConsistencyLevel,
): Promise<Earlier> {
  const entry = await getIdempotency(ctx.kv, scope, consistency);
  if (!entry.value || entry.value.expires_at <= ctx.now()) {
    return { staleVersion: entry.versionstamp };
  }
  if (entry.value.body_hash !== bodyHash) {
    const message = "this idempotency key was already used with other arguments: send the " +
      "same arguments to get the first answer again, or a new key for a new request";
    throw new HttpError(409, "idempotency_key_reused", message, {
      issues: [{ path: "idempotency_key", message }],
    });
  }
  return { answer: JSON.parse(entry.value.response) };
}
