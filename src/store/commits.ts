/**
 * @module
 * A write and how to tell that it landed, and the commit that finds out. Over KV Connect
 * (Deno Deploy, a self-hosted `denokv`) Deno's client sends a commit again when its answer
 * is lost; a commit that had landed then comes back `ok: false`, its checks failing against
 * its own writes. Every write that matters therefore checks something a re-send fails, and
 * names the keys whose strong read-back shows whether it landed (a client record holding our
 * secret's digest, a token key holding our record, a submission key holding our id).
 */

import type { Atomic, Kv } from "./store.ts";

/** What a write's commit reads back after `ok: false`, and how it tells it landed. */
interface Proof {
  readonly keys: readonly Deno.KvKey[];
  landed(entries: readonly Deno.KvEntryMaybe<unknown>[]): boolean;
}

/** A write: its checks and mutations, added to an atomic operation, and its proof. */
export interface Write {
  write(op: Atomic): void;
  readonly proof: Proof;
}

/** What a commit came to: committed (its answer lost or not), or not, with what was read back. */
export type Committed =
  | {
    ok: true;
    /** The commit's versionstamp; null when its answer was lost and `readBack` shows it. */
    versionstamp: string | null;
    readBack: Deno.KvEntryMaybe<unknown>[] | null;
  }
  | { ok: false; readBack: Deno.KvEntryMaybe<unknown>[] };

/**
 * Commits the atomic operation `build` makes; when it comes back `ok: false`, reads `keys`
 * back strongly in one call, so the caller learns whether its commit landed after all (its
 * answer lost and the re-send refused) and, if not, what changed.
 */
export async function commitOrReadBack(
  kv: Kv,
  build: (op: Atomic) => void,
  keys: readonly Deno.KvKey[],
): Promise<
  { ok: true; versionstamp: string } | { ok: false; entries: Deno.KvEntryMaybe<unknown>[] }
> {
  const op = kv.atomic();
  build(op);
  const res = await op.commit();
  if (res.ok) return { ok: true, versionstamp: res.versionstamp };
  const entries = keys.length ? await kv.getMany([...keys]) : [];
  return { ok: false, entries };
}

/** Commits one write alone, and tells whether it landed (see {@linkcode commitOrReadBack}). */
export async function commitWrite(kv: Kv, write: Write): Promise<Committed> {
  const res = await commitOrReadBack(kv, write.write, write.proof.keys);
  if (res.ok) return { ok: true, versionstamp: res.versionstamp, readBack: null };
  if (write.proof.landed(res.entries)) {
    return { ok: true, versionstamp: null, readBack: res.entries };
  }
  return { ok: false, readBack: res.entries };
}
