/**
 * @module
 * Rate-limit counters: one plain value per window, bucket and address, written only by
 * check-and-set, most often in the same commit as the request's own write
 * (http/rate_limit.ts decides what to count). A counter remembers the nonces of the commits
 * that last counted in it, so a commit whose answer was lost (Deno's KV Connect client sends
 * it again, and the second send fails its check) finds out whether it landed: it is never
 * counted twice. {@linkcode CounterBook} is what one instance knows of them: each counter as
 * it last saw it, and one lock per counter.
 *
 * Keys (keys.ts):
 * - `["rate_counters", window, bucket, address]` → {@linkcode RateCount}, `expireIn` until
 *   the end of the window after it: no sweep needed
 */

import { retryLocked } from "./retry_locked.ts";

interface RateCount {
  /** Requests counted (an address's bucket) or places leased (a global bucket, address "*"). */
  n: number;
  /** The nonces of the last {@linkcode NONCE_HISTORY} commits that counted, oldest first. */
  recent: string[];
}

/** A counter as last seen: its count, its nonces and the versionstamp a commit checks. */
export interface CounterState {
  readonly n: number;
  readonly recent: readonly string[];
  /** null when the counter is absent (nothing counted in its window yet). */
  readonly versionstamp: string | null;
}

/**
 * Nonces a counter keeps. A commit whose answer was lost reads its counter back strongly one
 * round trip later; it can tell whether it landed as long as at most this many other
 * increments landed in between. One instance never has two commits of one counter in flight
 * ({@linkcode CounterBook}), so that takes this many instances counting one address at once.
 */
const NONCE_HISTORY = 32;

/**
 * Reads counters in one call. Eventual consistency is enough: every counter read is
 * followed by a commit that checks its versionstamp, and a stale read only fails that check.
 */
async function readCounters(kv: Deno.Kv, keys: readonly Deno.KvKey[]): Promise<CounterState[]> {
  const entries = await retryLocked(() =>
    kv.getMany<RateCount[]>(keys, { consistency: "eventual" })
  );
  return entries.map(counterState);
}

/** The state of a counter entry read by any means (a read-back included). */
export function counterState(entry: Deno.KvEntryMaybe<unknown>): CounterState {
  const value = entry.value as Partial<RateCount> | null;
  if (!value || typeof value.n !== "number") {
    return { n: 0, recent: [], versionstamp: entry.versionstamp };
  }
  const recent = Array.isArray(value.recent) ? value.recent : [];
  return { n: value.n, recent, versionstamp: entry.versionstamp };
}

/**
 * Adds `by` to a counter in `op`, checked against the state it was seen in (a re-sent commit
 * fails this check), with `nonce` remembered. Returns the state the commit writes, without
 * its versionstamp (the commit's).
 */
export function addCount(
  op: Deno.AtomicOperation,
  key: Deno.KvKey,
  seen: CounterState,
  by: number,
  nonce: string,
  expireIn: number,
): Omit<CounterState, "versionstamp"> {
  const next = { n: seen.n + by, recent: [...seen.recent.slice(1 - NONCE_HISTORY), nonce] };
  op.check({ key, versionstamp: seen.versionstamp }).set(key, next, { expireIn });
  return next;
}

/**
 * After a commit that counted `nonce` on top of `seen` came back `ok: false`: whether it
 * landed, from the counter as a strong read finds it now. Undefined when the counter's
 * history is too short to tell (more than {@linkcode NONCE_HISTORY} counted since).
 */
export function landedIn(
  now: CounterState,
  seen: CounterState,
  nonce: string,
): boolean | undefined {
  if (now.recent.includes(nonce)) return true;
  // Had it landed, it and every increment after it would be among the last n - seen.n.
  return now.n - seen.n <= NONCE_HISTORY ? false : undefined;
}

/** A short random nonce: 8 random bytes, base64url. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return btoa(String.fromCharCode(...bytes)).replace(
    /[+/=]/g,
    (c) => c === "+" ? "-" : c === "/" ? "_" : "",
  );
}

/** A counter as {@linkcode CounterBook} tracks it: an id unique to its key, its window, its key. */
interface CounterRef {
  readonly id: string;
  readonly window: number;
  readonly key: Deno.KvKey;
}

/** Entries one instance remembers in a map of one window, at most; past it the oldest goes. */
const REMEMBERED = 100_000;

/** Sets `key` in a map of one window, bounded to {@linkcode REMEMBERED} entries. */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/**
 * What an instance keeps of `window` in `windows`, made by `make` the first time; the
 * windows before the one before it are forgotten.
 */
export function windowState<T>(windows: Map<number, T>, window: number, make: () => T): T {
  let state = windows.get(window);
  if (!state) {
    windows.set(window, state = make());
    for (const w of windows.keys()) if (w < window - 1) windows.delete(w);
  }
  return state;
}

interface Lock {
  tail: Promise<void>;
  /** Requests holding or waiting for it. */
  users: number;
  /** Requests waiting for it. */
  waiting: number;
}

/**
 * What one instance knows of the counters of this window and the last: each as it last saw
 * it (read, read back, or written by itself), so a request whose counter this instance
 * wrote last reads nothing; reads of one counter shared by the requests that wait on them;
 * and one lock per counter, so that this instance never has two commits of one counter in
 * flight (they would conflict): a burst from one address is counted one commit after the
 * other, each checked against the state the one before it wrote.
 */
export class CounterBook {
  readonly #kv: Deno.Kv;
  #windows = new Map<number, Map<string, CounterState>>();
  #reads = new Map<string, Promise<void>>();
  #locks = new Map<string, Lock>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  #seen(window: number): Map<string, CounterState> {
    return windowState(this.#windows, window, () => new Map());
  }

  /**
   * Notes a counter's state: from a strong read or this instance's own commit always,
   * from an eventual read unless this instance already saw a later one.
   */
  saw(ref: CounterRef, state: CounterState, strong = false): void {
    const seen = this.#seen(ref.window);
    const known = seen.get(ref.id);
    if (!strong && known && (known.versionstamp ?? "") >= (state.versionstamp ?? "")) return;
    remember(seen, ref.id, state);
  }

  /** Reads, in one eventual call, the counters of `refs` this instance knows nothing of. */
  async read(refs: readonly CounterRef[]): Promise<void> {
    const waits: Promise<void>[] = [];
    const missing: CounterRef[] = [];
    for (const ref of refs) {
      if (this.#seen(ref.window).has(ref.id)) continue;
      const reading = this.#reads.get(ref.id);
      if (reading) waits.push(reading);
      else if (!missing.some((m) => m.id === ref.id)) missing.push(ref);
    }
    if (missing.length) {
      const read = readCounters(this.#kv, missing.map((r) => r.key))
        .then((states) => states.forEach((s, i) => this.saw(missing[i]!, s)))
        .finally(() => missing.forEach((r) => this.#reads.delete(r.id)));
      for (const ref of missing) this.#reads.set(ref.id, read);
      waits.push(read);
    }
    await Promise.all(waits);
  }

  /** The counter as this instance knows it, read first if it knows nothing. */
  async state(ref: CounterRef): Promise<CounterState> {
    await this.read([ref]);
    return this.#seen(ref.window).get(ref.id) ?? { n: 0, recent: [], versionstamp: null };
  }

  /** Waits for the lock of every id, taken in sorted order (no deadlock); returns the releases. */
  async lock(ids: readonly string[]): Promise<Map<string, () => void>> {
    const held = new Map<string, () => void>();
    for (const id of [...new Set(ids)].sort()) held.set(id, await this.#acquire(id));
    return held;
  }

  /** Requests of this instance waiting for the lock of `id`. */
  waiting(id: string): number {
    return this.#locks.get(id)?.waiting ?? 0;
  }

  async #acquire(id: string): Promise<() => void> {
    let lock = this.#locks.get(id);
    if (!lock) this.#locks.set(id, lock = { tail: Promise.resolve(), users: 0, waiting: 0 });
    const before = lock.tail;
    let release!: () => void;
    lock.tail = new Promise<void>((r) => release = r);
    lock.users++;
    lock.waiting++;
    await before;
    lock.waiting--;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      if (--lock!.users === 0) this.#locks.delete(id);
    };
  }
}
