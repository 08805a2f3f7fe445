/**
 * @module
 * Opening the store, and the cheap read that proves it answers.
 */

import { type DeadlineOptions, withDeadline } from "./deadline.ts";
import { isLocalStore } from "./limits.ts";
import { healthKey } from "./keys.ts";
import { retryLocked } from "./retry_locked.ts";

/**
 * Opens the store: a file path, `:memory:`, a KV Connect URL, or the platform default,
 * with every call under its deadline (deadline.ts), and marked local or remote by `path`
 * (`storeIsLocal`). A SQLite file that another process is writing to can refuse even the
 * open with "database is locked", so that is retried too.
 */
export async function openStore(
  path: string | undefined,
  deadline: DeadlineOptions = {},
): Promise<Deno.Kv> {
  const kv = await retryLocked(() => Deno.openKv(path));
  return withDeadline(kv, { ...deadline, local: isLocalStore(path) });
}

/** A cheap read that proves the store answers, for `GET /readyz`. */
export async function pingStore(kv: Deno.Kv): Promise<void> {
  await retryLocked(() => kv.get(healthKey()));
}

/**
 * Writes the health key once and returns the commit's versionstamp: on Deno Deploy, what
 * tells the attached database from a store that lives in the instance (ops/platform.ts).
 */
export async function stampHealth(kv: Deno.Kv, now: number): Promise<string> {
  const res = await retryLocked(() => kv.set(healthKey(), { started_at: now }));
  return res.versionstamp;
}
