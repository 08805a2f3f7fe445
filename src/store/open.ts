/**
 * @module
 * Opening the store, and the cheap read that proves it answers.
 */

import { healthKey } from "./keys.ts";
import { retryLocked } from "./retry_locked.ts";

/**
 * Opens the store: a file path, `:memory:`, a KV Connect URL, or the platform default.
 * A SQLite file that another process is writing to can refuse even the open with
 * "database is locked", so that is retried too.
 */
export function openStore(path: string | undefined): Promise<Deno.Kv> {
  return retryLocked(() => Deno.openKv(path));
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
