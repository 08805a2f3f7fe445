/**
 * @module
 * Exact caching of token and client records. Both never change once written, except
 * that they disappear (a revocation, a disabled client) or, for a client, are rewritten
 * at most once a day to extend its life. Every revocation and every disabled client
 * also bumps one marker key, `["revocations"]`, in the same commit as its delete.
 *
 * A record is served from this process's cache only after a read of the marker that
 * **started after the request arrived** came back with the versionstamp the record was
 * cached under. So a request that arrives after a revocation's `200` (on any instance)
 * always sees the new marker, misses, and reads the store, where the token is gone. One
 * marker read is shared by every request that arrived before it started: under load the
 * store sees a marker read every few hundred microseconds, not one read per request.
 * Expiry is still decided by each record's `expires_at` against the clock, per request.
 *
 * A client record whose lifetime was extended elsewhere is still served from the cache
 * with its older versionstamp; the token commit checks that versionstamp, fails, and the
 * caller authenticates again with `fresh: true`, which reads the store.
 */

import { type ClientRecord, getClient, getToken, revocationKey, type TokenRecord } from "./kv.ts";

/** Entries kept per cache; the least recently used goes first. */
export const CACHE_ENTRIES = 10_000;

export interface StoreCache {
  /** The marker's versionstamp, from a read that started after this call. */
  marker(): Promise<string | null>;
  /** Cache hits and misses, for tests and benches. */
  readonly stats: { hits: number; misses: number; markerReads: number };
  readonly tokens: Lru<TokenRecord>;
  readonly clients: Lru<Deno.KvEntry<ClientRecord>>;
}

export function createStoreCache(kv: Deno.Kv, entries = CACHE_ENTRIES): StoreCache {
  const stats = { hits: 0, misses: 0, markerReads: 0 };
  let current: Promise<string | null> | undefined;
  let waiting: Promise<string | null> | undefined;
  const start = () => {
    stats.markerReads++;
    const read = kv.get(revocationKey).then((e) => e.versionstamp);
    current = read;
    const clear = () => {
      if (current === read) current = undefined;
    };
    read.then(clear, clear);
    return read;
  };
  return {
    stats,
    tokens: new Lru(entries),
    clients: new Lru(entries),
    marker() {
      // A read in flight began before this call: it may predate a revocation this caller
      // has already seen answered. Wait for it, then share the one that starts next.
      if (!current) return start();
      waiting ??= current.then(next, next);
      return waiting;
      function next() {
        waiting = undefined;
        return start();
      }
    },
  };
}

/** The token record for a digest: from the cache when the marker allows, else the store. */
export async function cachedToken(
  kv: Deno.Kv,
  cache: StoreCache,
  tokenHash: string,
): Promise<TokenRecord | null> {
  const marker = await cache.marker();
  const hit = cache.tokens.get(tokenHash, marker);
  if (hit) {
    cache.stats.hits++;
    return hit;
  }
  cache.stats.misses++;
  const record = await getToken(kv, tokenHash);
  if (record) cache.tokens.set(tokenHash, record, marker);
  return record;
}

/**
 * The client entry for an id: from the cache when the marker allows, else the store.
 * With `checkedLater`, the caller commits a write checked against the entry's
 * versionstamp (a token), which refuses a stale entry by itself: then any cached entry
 * will do, and no marker read is waited for.
 */
export async function cachedClient(
  kv: Deno.Kv,
  cache: StoreCache,
  clientId: string,
  options: { fresh?: boolean; checkedLater?: boolean } = {},
): Promise<Deno.KvEntryMaybe<ClientRecord>> {
  const marker = options.checkedLater ? ANY_MARKER : await cache.marker();
  const hit = options.fresh ? undefined : cache.clients.get(clientId, marker);
  if (hit) {
    cache.stats.hits++;
    return hit;
  }
  cache.stats.misses++;
  // Stored under a marker read before the record (never ANY_MARKER): a revocation after
  // the marker read makes the marker differ next time.
  const stored = marker === ANY_MARKER ? await cache.marker() : marker;
  const entry = await getClient(kv, clientId);
  if (entry.value) cache.clients.set(clientId, entry as Deno.KvEntry<ClientRecord>, stored);
  else cache.clients.delete(clientId);
  return entry;
}

/** Matches an entry whatever marker it was stored under (see `checkedLater`). */
export const ANY_MARKER = Symbol("any marker");

/** A bounded map of values, each stored under the marker it is valid for. */
export class Lru<T> {
  #map = new Map<string, { value: T; marker: string | null }>();
  constructor(private readonly limit: number) {}

  /** The value, if it was stored under `marker` (or any, with ANY_MARKER); else dropped. */
  get(key: string, marker: string | null | typeof ANY_MARKER): T | undefined {
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    this.#map.delete(key);
    if (marker !== ANY_MARKER && entry.marker !== marker) return undefined;
    this.#map.set(key, entry); // most recently used last
    return entry.value;
  }

  set(key: string, value: T, marker: string | null): void {
    this.#map.delete(key);
    this.#map.set(key, { value, marker });
    if (this.#map.size > this.limit) this.#map.delete(this.#map.keys().next().value!);
  }

  delete(key: string): void {
    this.#map.delete(key);
  }

  get size(): number {
    return this.#map.size;
  }
}
