/**
 * @module
 * KV's limits on one call, written once: the strictest of denokv (`proto/limits.rs`, which
 * a self-hosted store enforces over KV Connect), Deno Deploy's documented limits
 * (`deploy/kv/transactions.md`, "Limits") and Deno's own client (which caps the keys of
 * one atomic operation at 80 KiB, where Deploy says 90). Every atomic operation, `getMany`
 * and list batch of `src/store/` stays within them; `tests/_remote_store.ts` enforces the
 * same numbers in the tests that run over it (`deno task test:remote`).
 *
 * The one limit local SQLite relaxes is the checks of one atomic operation: 100 there (and
 * in Deploy's docs), 10 in denokv. Group commit may use the 100 on a local store, where
 * bigger groups mean fewer `fsync`s (store/group_commit.ts).
 */

/** Limits of one call on any store the service may run on. */
export const KV_LIMITS = {
  /** Checks of one atomic operation (denokv `MAX_CHECKS`). */
  checks: 10,
  /** Mutations of one atomic operation (denokv `MAX_MUTATIONS`; Deploy: 1,000). */
  mutations: 1000,
  /**
   * Bytes of one atomic operation: every key, and each set or sum's value and key again
   * (denokv `MAX_TOTAL_MUTATION_SIZE_BYTES`; Deploy: 800 KiB).
   */
  mutationBytes: 819_200,
  /** Bytes of the keys one atomic operation sets or sums (Deno's client; Deploy: 90 KiB). */
  keyBytes: 81_920,
  /** Keys of one `getMany` (denokv `MAX_READ_RANGES`; Deploy: 10). */
  getMany: 10,
  /** Entries of one list batch (denokv `MAX_READ_ENTRIES`; Deploy: 1,000). */
  listBatch: 1000,
} as const;

/** Checks of one atomic operation on a local SQLite store (Deno's client allows 100). */
export const SQLITE_CHECKS = 100;

/**
 * Whether the path `Deno.openKv` is given names a local SQLite store (a file or
 * `:memory:`) rather than a KV Connect URL or, unset, the platform's store (Deno Deploy's
 * KV). Unset counts as remote: a local store opened that way only pays smaller groups.
 */
export function isLocalStore(kvPath: string | undefined): boolean {
  return kvPath !== undefined && !/^https?:\/\//i.test(kvPath);
}
