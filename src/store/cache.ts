/**
 * @module
 * Exact caching of token and client records. Both never change once written, except
 * that they disappear (a revocation, a disabled client) or, for a client, are rewritten
 * at most once a day to extend its life. Every revocation and every disabled client
 * also bumps one marker key, `["revocations"]`, in the same commit as its delete.
 *
 * **The rule.** A record is cached under a marker value `M` only when it was present in
 * the store at some moment after `M` was written: it was read after a read of the
 * marker that returned `M` had come back, or it was written by this process after
 * that. A read of the marker that returns `M` again proves no record was deleted since,
 * so the cached record is still there.
 *
 * **Freshness**, chosen by the caller:
 * - `"exact"` (a Bearer check): the entry is served only after a marker read that
 *   **started after the request arrived** came back with the value it was cached under.
 *   A request that arrives after a revocation's `200` (on any instance) sees the new
 *   marker, misses, and reads the store, where the token is gone. One marker read is
 *   shared by every request that arrived before it started: under load the store sees
 *   a marker read every few hundred microseconds, not one per request.
 * - `"cached"`: any cached entry, for a caller whose commit is checked against the
 *   entry (a token issued for a client record), or whose answer cannot depend on it
 *   being current (a revocation needs only the token's client, which never changes).
 * - `"store"`: the store, always.
 *
 * Expiry is still decided by each record's `expires_at` against the clock, per request.
 */

import type { Kv } from "./store.ts";
import { type ClientRecord, getClient, getToken, type TokenRecord } from "./credentials.ts";
import { revocationKey } from "./keys.ts";
import { emailHasher } from "./submission_index.ts";
import { countCacheLookup } from "../telemetry/metrics.ts";

/** Entries kept per cache; past it, one not used since the clock hand last passed goes. */
const CACHE_ENTRIES = 10_000;

/** How current a cached record must be; see the module documentation. */
export type Freshness = "exact" | "cached" | "store";

/** The marker value of an entry cached before this process read the marker at all. */
const NO_MARKER = Symbol("no marker read yet");
type Marker = string | null | typeof NO_MARKER;

export interface StoreCache {
  /** The marker's versionstamp, from a read that started after this call. */
  marker(): Promise<string | null>;
  /** The value of the last marker read that came back (see the rule above). */
  lastMarker(): Marker;
  /** Cache hits and misses, for tests and benches. */
  readonly stats: { hits: number; misses: number; markerReads: number };
  readonly tokens: ClockCache<TokenRecord>;
  readonly clients: ClockCache<Deno.KvEntry<ClientRecord>>;
  /** The store's email hasher (submission_index.ts), loaded once per handler. */
  emailHasher(): Promise<(email: string) => string>;
}

export function createStoreCache(kv: Kv, entries = CACHE_ENTRIES): StoreCache {
  const stats = { hits: 0, misses: 0, markerReads: 0 };
  let current: Promise<string | null> | undefined;
  let waiting: Promise<string | null> | undefined;
  let last: Marker = NO_MARKER;
  const start = () => {
    stats.markerReads++;
    const read = kv.get(revocationKey()).then((e) => last = e.versionstamp);
    current = read;
    const clear = () => {
      if (current === read) current = undefined;
    };
    read.then(clear, clear);
    return read;
  };
  let hasher: Promise<(email: string) => string> | undefined;
  return {
    stats,
    tokens: new ClockCache(entries),
    clients: new ClockCache(entries),
    emailHasher() {
      hasher ??= emailHasher(kv);
      hasher.catch(() => hasher = undefined); // a failed load is tried again next time
      return hasher;
    },
    lastMarker: () => last,
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

/** The token record for a digest, from the cache as `freshness` allows, else the store. */
export function cachedToken(
  kv: Kv,
  cache: StoreCache,
  tokenHash: string,
  freshness: Freshness = "exact",
): Promise<TokenRecord | null> {
  return _cached(cache, cache.tokens, tokenHash, freshness, () => getToken(kv, tokenHash));
}

/** The client entry for an id, from the cache as `freshness` allows, else the store. */
export function cachedClient(
  kv: Kv,
  cache: StoreCache,
  clientId: string,
  freshness: Freshness = "exact",
): Promise<Deno.KvEntry<ClientRecord> | null> {
  return _cached(cache, cache.clients, clientId, freshness, async () => {
    const entry = await getClient(kv, clientId);
    return entry.value ? entry as Deno.KvEntry<ClientRecord> : null;
  });
}

/**
 * A Bearer check: the token for a digest and the client it was issued to, both exact
 * under one marker read. A disabled client bumps the marker in the same commit that marks
 * it, so from the moment `review disable-client` returns, every instance reads the client
 * again and refuses its tokens, without finding or deleting them.
 */
export async function exactToken(
  kv: Kv,
  cache: StoreCache,
  tokenHash: string,
): Promise<{ token: TokenRecord; client: ClientRecord | null } | null> {
  const marker = await cache.marker();
  const token = await _cached(
    cache,
    cache.tokens,
    tokenHash,
    { marker },
    () => getToken(kv, tokenHash),
  );
  if (!token) return null;
  const entry = await _cached(cache, cache.clients, token.client_id, { marker }, async () => {
    const found = await getClient(kv, token.client_id);
    return found.value ? found as Deno.KvEntry<ClientRecord> : null;
  });
  return { token, client: entry?.value ?? null };
}

async function _cached<T>(
  cache: StoreCache,
  lru: ClockCache<T>,
  key: string,
  freshness: Freshness | { marker: Marker },
  read: () => Promise<T | null>,
): Promise<T | null> {
  let marker: Marker = cache.lastMarker();
  if (freshness === "exact") marker = await cache.marker();
  else if (typeof freshness === "object") marker = freshness.marker;
  const kind = lru === cache.tokens ? "token" : "client";
  if (freshness !== "store") {
    const hit = lru.get(key, freshness === "cached" ? ANY_MARKER : marker);
    if (hit !== undefined) {
      cache.stats.hits++;
      countCacheLookup(kind, true);
      return hit;
    }
  }
  cache.stats.misses++;
  countCacheLookup(kind, false);
  // `marker` came back before this read started: the rule holds for what it finds.
  const found = await read();
  if (found === null) lru.delete(key);
  else lru.set(key, found, marker);
  return found;
}

/** Matches an entry whatever marker it was stored under (the `"cached"` freshness). */
const ANY_MARKER = Symbol("any marker");

/**
 * A bounded map of values, each stored under the marker it is valid for. Eviction is
 * second chance (CLOCK): a hit only marks its entry used, and only eviction moves entries.
 * Deleting and re-inserting a Map key on every hit, as a strict LRU does, costs in
 * proportion to the map's size on V8; this costs the same at 10 entries and at 10,000
 * (docs/performance.md, "Cost as the store grows").
 */
export class ClockCache<T> {
  #map = new Map<string, { value: T; marker: Marker; used: boolean }>();
  readonly limit: number;
  constructor(limit: number) {
    this.limit = Math.max(1, limit);
  }

  /** The value, if it was stored under `marker` (or any, with ANY_MARKER); else dropped. */
  get(key: string, marker: Marker | typeof ANY_MARKER): T | undefined {
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    if (marker !== ANY_MARKER && entry.marker !== marker) {
      this.#map.delete(key);
      return undefined;
    }
    entry.used = true;
    return entry.value;
  }

  set(key: string, value: T, marker: Marker): void {
    const entry = this.#map.get(key);
    if (entry) {
      entry.value = value;
      entry.marker = marker;
      entry.used = true;
      return;
    }
    this.#map.set(key, { value, marker, used: false });
    // The oldest entry that was not used since it last came round goes; a used one is
    // given a second chance at the back. Each entry moves at most once per hit.
    // The entry just set is never the one to go: it goes to the back as it is.
    while (this.#map.size > this.limit) {
      const [oldest, first] = this.#map.entries().next().value!;
      this.#map.delete(oldest);
      if (first.used || oldest === key) {
        first.used = false;
        this.#map.set(oldest, first);
      }
    }
  }

  delete(key: string): void {
    this.#map.delete(key);
  }

  get size(): number {
    return this.#map.size;
  }
}
