/**
 * @module
 * Opening the store, and the cheap read that proves it answers.
 */

import type { DeadlineOptions } from "./deadline.ts";
import { isLocalStore } from "./limits.ts";
import { healthKey } from "./keys.ts";
import { retryLocked } from "./retry_locked.ts";
import { type Kv, Store } from "./store.ts";

/**
 * Opens the store: a file path, `:memory:`, a KV Connect URL, or the platform default, as
 * a `Store` (store.ts), local or remote as `path` says. A SQLite file that another process
 * is writing to can refuse even the open with "database is locked", so that is retried too.
 */
export async function openStore(
  path: string | undefined,
  deadline: DeadlineOptions = {},
): Promise<Store> {
  const kv = await retryLocked(() => Deno.openKv(path));
  return new Store(kv, { ...deadline, local: isLocalStore(path) });
}

/** A cheap read that proves the store answers, for `GET /readyz`. */
export async function pingStore(kv: Kv): Promise<void> {
  await kv.get(healthKey());
}

/**
 * Writes the health key once and returns the commit's versionstamp: on Deno Deploy, what
 * tells the attached database from a store that lives in the instance (ops/platform.ts).
 */
export async function stampHealth(kv: Kv, now: number): Promise<string> {
  const res = await kv.set(healthKey(), { started_at: now });
  return res.versionstamp;
}
