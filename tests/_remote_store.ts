/**
 * @module
 * A test store that behaves like a far-away shared Deno KV: Deno Deploy's managed KV (one
 * strong primary, ~90 ms a strong operation from Europe) or a self-hosted `denokv` reached
 * over KV Connect. `remoteStore(kv, options)` wraps a real `Deno.Kv` (`:memory:` in tests)
 * and is usable wherever a `Deno.Kv` is: `createHandler({ kv })` puts its group commit
 * (src/store/group_commit.ts) on top of it, as it would over the real remote store.
 *
 * What it adds to the wrapped store:
 *
 * - **Latency.** `latencyMs` on every strong `get`, `getMany`, list page (each batch the
 *   list iterator pulls), commit (`atomic().commit()`, `set`, `delete`) and `enqueue`;
 *   `eventualLatencyMs` (default `latencyMs / 20`) on reads with
 *   `{ consistency: "eventual" }`, which Deploy answers from a nearby read replica. Half
 *   the latency passes before the operation is applied and half after, so a write is
 *   visible to others before its writer hears of it, as over a network.
 * - **Limits** (`limits`, on by default): the strictest of denokv's `proto/limits.rs`
 *   (denoland/denokv e3f133d, which its server enforces in `proto/convert.rs`), Deno
 *   Deploy's documented limits (denoland/docs eb8f78e, `deploy/kv/transactions.md`,
 *   "Limits") and Deno's own client (2.9.6, which counts a set's key twice toward the total
 *   mutation size and caps the keys of one operation at 80 KiB): {@linkcode STORE_LIMITS}.
 *   The one that local SQLite does not enforce is denokv's 10 checks an atomic operation
 *   (Deno's client allows 100, as the Deploy docs do). A refused call throws the
 *   `TypeError` Deno throws, with Deno's message, before any latency: Deno's client checks
 *   its limits before it sends.
 * - **Counts and sequential round trips** ({@linkcode RemoteStore.stats},
 *   {@linkcode RemoteStore.trips}): operations by kind; "waves" (an operation that starts
 *   while none is in flight starts one); and `trips()`, the round trips a flow waits for
 *   one after the other: each operation is one deeper than the deepest that had answered
 *   when it started, so operations made in parallel count once, and so do chains that
 *   overlap (25 erasures that each read four keys in turn are four trips, not one wave or
 *   a hundred).
 * - **Faults**, injected at run time ({@linkcode RemoteStore.faults}): `hang` (operations
 *   never answer, as Deno's KV Connect client retries transport errors and 5xx answers
 *   without end during an outage), `lostAnswer` (a commit is applied, its answer lost, and
 *   the client re-sends the same atomic operation: the caller sees the second one's
 *   result) and `burst` (a 5xx burst: operations answer late, after the client's retries).
 *
 * A list is read through `Deno.KvListIterator` itself, fed one batch at a time, so its
 * batch sizes and cursors are Deno's (the default batch is the `limit`, or 100, and at
 * most 500 unless `batchSize` says otherwise). `watch` and `listenQueue` go straight to
 * the wrapped store.
 */

import { keyBytes, valueBytes } from "../src/store/row_bytes.ts";

/** Limits of one call, the strictest of denokv, Deno Deploy and Deno's client. */
export const STORE_LIMITS = {
  /** denokv `MAX_WRITE_KEY_SIZE_BYTES`; Deploy: 2 KiB. A read key may be one byte longer. */
  keyBytes: 2048,
  /** denokv `MAX_VALUE_SIZE_BYTES`; Deploy: 64 KiB (V8-serialised, or the bytes). */
  valueBytes: 65536,
  /** denokv `MAX_READ_RANGES`; Deploy: 10 keys a `getMany`. */
  readRanges: 10,
  /** denokv `MAX_READ_ENTRIES`; Deploy: a list batch of at most 1,000. */
  readEntries: 1000,
  /** denokv `MAX_CHECKS` (10); Deploy says 100, Deno's client allows 100. */
  checks: 10,
  /** denokv `MAX_MUTATIONS`; Deploy: 1,000. */
  mutations: 1000,
  /** denokv `MAX_TOTAL_MUTATION_SIZE_BYTES`; Deploy: 800 KiB. */
  mutationBytes: 819200,
  /** Deno's client: 80 KiB of set and sum keys; Deploy says 90 KiB. */
  keyTotalBytes: 81920,
} as const;

export type StoreLimits = { readonly [K in keyof typeof STORE_LIMITS]: number };

export interface RemoteOptions {
  /** Added to every strong operation; default 0. */
  latencyMs?: number;
  /** Added to every eventual read; default `latencyMs / 20`. */
  eventualLatencyMs?: number;
  /** `true` (default) for {@linkcode STORE_LIMITS}, `false` for none, or other limits. */
  limits?: boolean | Partial<StoreLimits>;
}

type OpKind = "get" | "getMany" | "list" | "commit" | "enqueue";

/** Operations since the store was made (or since `mark()`, from `sinceMark()`). */
export interface RemoteStats {
  get: number;
  getMany: number;
  /** List pages (batches), strong or eventual. */
  list: number;
  commit: number;
  enqueue: number;
  /** Reads of any kind made with `consistency: "eventual"` (also counted by kind). */
  eventual: number;
  /** Calls refused by a limit (thrown, never sent). */
  refused: number;
  /** Waves: operations that started while none was in flight. */
  waves: number;
}

/** One operation as the log keeps it. */
export interface RemoteOp {
  kind: OpKind;
  /** The wave it belongs to (1 for the store's first). */
  wave: number;
  /** Its place in the longest chain since the mark (1: nothing it could wait for). */
  depth: number;
  eventual: boolean;
}

/** Faults to inject while a test runs. */
export interface RemoteFaults {
  /**
   * The next `ops` operations (every operation, without `ops`) never answer and are not
   * applied until {@linkcode heal}, as during an outage that Deno's client retries without
   * end; then each is applied and answered, as the client's retry that got through. Heal
   * before a test ends: a hanging call holds the process open, as a real one does.
   */
  hang(ops?: number): void;
  /**
   * The next `commits` commits are applied, their answers lost, and sent again: the caller
   * gets the second commit's result (a check that passed the first time now fails;
   * a check-free `sum` is applied twice).
   */
  lostAnswer(commits?: number): void;
  /** The next `ops` operations (default 1) answer `delayMs` late, as after a 5xx burst. */
  burst(delayMs: number, ops?: number): void;
  /** Ends every fault; operations held by `hang` go on (applied, then answered). */
  heal(): void;
  /** How many operations `hang` holds now. */
  readonly held: number;
}

/** A `Deno.Kv` that is far away: see the module documentation. */
export interface RemoteStore extends Deno.Kv {
  /** Counts since the store was made. */
  readonly stats: Readonly<RemoteStats>;
  /** The operations since the last `mark()` (the first 10,000), in start order. */
  readonly log: readonly RemoteOp[];
  /** Starts a measurement: `trips()`, `sinceMark()` and `log` count from here. */
  mark(): void;
  /**
   * Sequential round trips since the last `mark()`: the longest chain of operations each
   * started after the one before it answered (see the module documentation).
   */
  trips(): number;
  /** Counts since the last `mark()`. */
  sinceMark(): RemoteStats;
  /** Operations started and not answered yet. */
  readonly inFlight: number;
  /** The messages of the calls refused by a limit (the first 20), for a test to show. */
  readonly refusals: readonly string[];
  readonly faults: RemoteFaults;
  /** The wrapped store, for tests that look behind the latency. */
  readonly local: Deno.Kv;
}

/** Wraps `kv` as a far-away store (see the module documentation). */
export function remoteStore(kv: Deno.Kv, options: RemoteOptions = {}): RemoteStore {
  return new _RemoteKv(kv, options) as unknown as RemoteStore;
}

const LOG_MAX = 10_000;

function _limitsOf(option: RemoteOptions["limits"]): StoreLimits | undefined {
  if (option === false) return undefined;
  return option === true || option === undefined ? STORE_LIMITS : { ...STORE_LIMITS, ...option };
}

function _sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

function _zeroStats(): RemoteStats {
  return { get: 0, getMany: 0, list: 0, commit: 0, enqueue: 0, eventual: 0, refused: 0, waves: 0 };
}

/** Refused as Deno refuses: a `TypeError`, its message Deno's own. */
function _refuse(store: _RemoteKv, message: string): never {
  store.refused(message);
  throw new TypeError(message);
}

class _RemoteKv {
  readonly local: Deno.Kv;
  readonly #latency: number;
  readonly #eventualLatency: number;
  readonly limits: StoreLimits | undefined;
  #stats = _zeroStats();
  #marked = _zeroStats();
  #log: RemoteOp[] = [];
  #inFlight = 0;
  /** Marks so far: an operation started before the last one counts toward no chain. */
  #epoch = 0;
  /** The deepest operation that has answered since the mark, and the deepest started. */
  #answeredDepth = 0;
  #maxDepth = 0;
  #hangLeft = 0;
  #heldOps: (() => void)[] = [];
  /**
   * While operations hang, a timer keeps the process alive, as the connection of a real
   * call that hangs does (the service's deadline timer does not hold the process).
   */
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #lostLeft = 0;
  #burst = { delayMs: 0, left: 0 };
  readonly faults: RemoteFaults;

  constructor(kv: Deno.Kv, options: RemoteOptions) {
    this.local = kv;
    this.#latency = options.latencyMs ?? 0;
    this.#eventualLatency = options.eventualLatencyMs ?? this.#latency / 20;
    this.limits = _limitsOf(options.limits);
    this.faults = this.#makeFaults();
  }

  #makeFaults(): RemoteFaults {
    const heldOps = this.#heldOps;
    return {
      hang: (ops = Infinity) => void (this.#hangLeft = ops),
      lostAnswer: (commits = 1) => void (this.#lostLeft = commits),
      burst: (delayMs, ops = 1) => void (this.#burst = { delayMs, left: ops }),
      heal: () => {
        this.#hangLeft = 0;
        this.#lostLeft = 0;
        this.#burst = { delayMs: 0, left: 0 };
        clearInterval(this.#keepAlive);
        this.#keepAlive = undefined;
        for (const release of this.#heldOps.splice(0)) release();
      },
      get held() {
        return heldOps.length;
      },
    };
  }

  get stats(): Readonly<RemoteStats> {
    return this.#stats;
  }

  get log(): readonly RemoteOp[] {
    return this.#log;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  mark(): void {
    this.#marked = { ...this.#stats };
    this.#log = [];
    this.#epoch++;
    this.#answeredDepth = 0;
    this.#maxDepth = 0;
  }

  trips(): number {
    return this.#maxDepth;
  }

  sinceMark(): RemoteStats {
    const out = _zeroStats();
    for (const k of Object.keys(out) as (keyof RemoteStats)[]) {
      out[k] = this.#stats[k] - this.#marked[k];
    }
    return out;
  }

  readonly refusals: string[] = [];

  refused(message: string): void {
    this.#stats.refused++;
    if (this.refusals.length < 20) this.refusals.push(message);
  }

  /**
   * One round trip: counted, then held by the faults, then half the latency, `apply`, and
   * the other half. A commit whose answer is lost is applied again (the client re-sends it).
   */
  async op<T>(kind: OpKind, eventual: boolean, apply: () => Promise<T>): Promise<T> {
    if (this.#inFlight === 0) this.#stats.waves++;
    this.#inFlight++;
    this.#stats[kind]++;
    if (eventual) this.#stats.eventual++;
    const epoch = this.#epoch;
    const depth = this.#answeredDepth + 1;
    this.#maxDepth = Math.max(this.#maxDepth, depth);
    if (this.#log.length < LOG_MAX) {
      this.#log.push({ kind, wave: this.#stats.waves, depth, eventual });
    }
    try {
      if (this.#hangLeft > 0) {
        this.#hangLeft--;
        this.#keepAlive ??= setInterval(() => {}, 60_000);
        await new Promise<void>((release) => this.#heldOps.push(release));
      }
      if (this.#burst.left > 0) {
        this.#burst.left--;
        await _sleep(this.#burst.delayMs);
      }
      const half = (eventual ? this.#eventualLatency : this.#latency) / 2;
      await _sleep(half);
      let result = await apply();
      if (kind === "commit" && this.#lostLeft > 0) {
        this.#lostLeft--;
        await _sleep(2 * half); // the lost answer's way back, and the re-sent commit's way out
        result = await apply();
      }
      await _sleep(half);
      return result;
    } finally {
      this.#inFlight--;
      if (epoch === this.#epoch) this.#answeredDepth = Math.max(this.#answeredDepth, depth);
    }
  }

  #readKey(key: Deno.KvKey): void {
    if (this.limits && keyBytes(key) > this.limits.keyBytes + 1) {
      _refuse(this, `Key too large for read (max ${this.limits.keyBytes + 1} bytes)`);
    }
  }

  async get<T = unknown>(key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) {
    this.#readKey(key);
    return await this.op(
      "get",
      options?.consistency === "eventual",
      () => this.local.get<T>(key, options),
    );
  }

  async getMany(
    keys: readonly Deno.KvKey[],
    options?: { consistency?: Deno.KvConsistencyLevel },
    // deno-lint-ignore no-explicit-any
  ): Promise<any> {
    if (this.limits && keys.length > this.limits.readRanges) {
      _refuse(this, `Too many ranges (max ${this.limits.readRanges})`);
    }
    for (const key of keys) this.#readKey(key);
    return await this.op(
      "getMany",
      options?.consistency === "eventual",
      () => this.local.getMany(keys, options),
    );
  }

  list<T = unknown>(
    selector: Deno.KvListSelector,
    options: Deno.KvListOptions = {},
  ): Deno.KvListIterator<T> {
    return _listIterator<T>(this, selector, options);
  }

  atomic(): Deno.AtomicOperation {
    return new RemoteAtomic(this) as unknown as Deno.AtomicOperation;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
    return (this.atomic().set(key, value, options).commit()) as Promise<Deno.KvCommitResult>;
  }

  async delete(key: Deno.KvKey): Promise<void> {
    await this.atomic().delete(key).commit();
  }

  enqueue(value: unknown, options?: Parameters<Deno.Kv["enqueue"]>[1]) {
    return (this.atomic().enqueue(value, options).commit()) as Promise<Deno.KvCommitResult>;
  }

  // deno-lint-ignore no-explicit-any
  listenQueue(handler: (value: any) => Promise<void> | void): Promise<void> {
    return this.local.listenQueue(handler);
  }

  // deno-lint-ignore no-explicit-any
  watch(keys: readonly Deno.KvKey[], options?: { raw?: boolean }): any {
    return this.local.watch(keys, options);
  }

  commitVersionstamp(): symbol {
    return this.local.commitVersionstamp();
  }

  close(): void {
    this.local.close();
  }

  [Symbol.dispose](): void {
    this.local[Symbol.dispose]();
  }
}

/** The options Deno's own list iterator takes (not in Deno's types; Deno 2.9.6). */
interface IteratorInit {
  limit?: number;
  selector: Deno.KvListSelector;
  cursor?: string;
  reverse: boolean;
  consistency: Deno.KvConsistencyLevel;
  batchSize: number;
  pullBatch(
    selector: Deno.KvListSelector,
    cursor: string | undefined,
    reverse: boolean,
    consistency: Deno.KvConsistencyLevel,
  ): Promise<Deno.KvEntry<unknown>[]>;
}

/**
 * Deno's own list iterator, fed one batch at a time by the wrapped store, each batch a
 * round trip. The batch size is Deno's: `batchSize`, else the `limit` (at most 500), else 100.
 */
function _listIterator<T>(
  store: _RemoteKv,
  selector: Deno.KvListSelector,
  options: Deno.KvListOptions,
): Deno.KvListIterator<T> {
  let batchSize = options.batchSize ?? options.limit ?? 100;
  if (options.batchSize === undefined && batchSize > 500) batchSize = 500;
  const limits = store.limits;
  const init: IteratorInit = {
    limit: options.limit,
    selector,
    cursor: options.cursor,
    reverse: options.reverse ?? false,
    consistency: options.consistency ?? "strong",
    batchSize,
    pullBatch: (sel, cursor, reverse, consistency) => {
      if (limits) _checkList(store, limits, sel, batchSize);
      return store.op("list", consistency === "eventual", () =>
        Array.fromAsync(
          store.local.list(sel, { cursor, reverse, consistency, limit: batchSize, batchSize }),
        ));
    },
  };
  const Iterator = Deno.KvListIterator as unknown as new (init: IteratorInit) => unknown;
  return new Iterator(init) as Deno.KvListIterator<T>;
}

/** Refuses a list batch over a limit, as Deno refuses it: when the batch is pulled. */
function _checkList(
  store: _RemoteKv,
  limits: StoreLimits,
  selector: Deno.KvListSelector,
  batchSize: number,
): void {
  for (const k of ["prefix", "start", "end"] as const) {
    const key = (selector as Record<string, Deno.KvKey | undefined>)[k];
    if (key && keyBytes(key) > limits.keyBytes + 1) {
      _refuse(store, `Key too large for read (max ${limits.keyBytes + 1} bytes)`);
    }
  }
  if (batchSize > limits.readEntries) {
    _refuse(store, `Too many entries (max ${limits.readEntries})`);
  }
}

type Recorded =
  | { kind: "check"; key: Deno.KvKey }
  | { kind: "delete"; key: Deno.KvKey }
  | { kind: "write"; key: Deno.KvKey; valueBytes: number }
  | { kind: "enqueue"; valueBytes: number };

/**
 * The atomic operation of the remote store: it builds the wrapped store's own operation as
 * it goes (so values are serialised, and bad ones refused, when Deno does it) and records
 * what the limits count; `commit()` checks the limits, then makes the round trip.
 */
class RemoteAtomic {
  readonly #store: _RemoteKv;
  readonly #op: Deno.AtomicOperation;
  readonly #recorded: Recorded[] = [];
  #enqueues = 0;

  constructor(store: _RemoteKv) {
    this.#store = store;
    this.#op = store.local.atomic();
  }

  #record(r: Recorded): void {
    if (this.#store.limits) this.#recorded.push(r);
  }

  check(...checks: Deno.AtomicCheck[]): this {
    this.#op.check(...checks);
    for (const c of checks) this.#record({ kind: "check", key: c.key });
    return this;
  }

  mutate(...mutations: Deno.KvMutation[]): this {
    for (const m of mutations) {
      if (m.type === "delete") this.delete(m.key);
      else if (m.type === "set") this.set(m.key, m.value, { expireIn: m.expireIn });
      else {
        this.#op.mutate(m);
        this.#record({ kind: "write", key: m.key, valueBytes: 8 });
      }
    }
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    this.#op.set(key, value, options);
    if (this.#store.limits) this.#record({ kind: "write", key, valueBytes: valueBytes(value) });
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#op.delete(key);
    this.#record({ kind: "delete", key });
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.#op.sum(key, n);
    this.#record({ kind: "write", key, valueBytes: 8 });
    return this;
  }

  min(key: Deno.KvKey, n: bigint): this {
    this.#op.min(key, n);
    this.#record({ kind: "write", key, valueBytes: 8 });
    return this;
  }

  max(key: Deno.KvKey, n: bigint): this {
    this.#op.max(key, n);
    this.#record({ kind: "write", key, valueBytes: 8 });
    return this;
  }

  enqueue(value: unknown, options?: Parameters<Deno.AtomicOperation["enqueue"]>[1]): this {
    this.#op.enqueue(value, options);
    this.#enqueues++;
    if (this.#store.limits) this.#record({ kind: "enqueue", valueBytes: valueBytes(value) });
    return this;
  }

  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    try {
      if (this.#store.limits) _checkAtomic(this.#store, this.#store.limits, this.#recorded);
    } catch (err) {
      return Promise.reject(err);
    }
    const kind = this.#enqueues && this.#recorded.length === this.#enqueues ? "enqueue" : "commit";
    return this.#store.op(kind, false, () => this.#op.commit());
  }

  then(): never {
    throw new TypeError(
      "'Deno.AtomicOperation' is not a promise: did you forget to call 'commit()'",
    );
  }
}

/** Refuses an atomic operation over a limit, in the order Deno checks them. */
function _checkAtomic(store: _RemoteKv, limits: StoreLimits, recorded: Recorded[]): void {
  let checks = 0;
  let mutations = 0;
  let total = 0;
  let keyTotal = 0;
  for (const r of recorded) {
    if (r.kind === "check") checks++;
    else mutations++;
  }
  if (checks > limits.checks) _refuse(store, `Too many checks (max ${limits.checks})`);
  if (mutations > limits.mutations) _refuse(store, `Too many mutations (max ${limits.mutations})`);
  for (const r of recorded) {
    if (r.kind === "enqueue") {
      if (r.valueBytes > limits.valueBytes) {
        _refuse(store, `Value too large (max ${limits.valueBytes} bytes)`);
      }
      total += r.valueBytes;
      continue;
    }
    const bytes = keyBytes(r.key);
    const max = r.kind === "check" ? limits.keyBytes + 1 : limits.keyBytes;
    if (bytes > max) {
      _refuse(
        store,
        `Key too large for ${r.kind === "check" ? "read" : "write"} (max ${max} bytes)`,
      );
    }
    total += bytes;
    if (r.kind !== "write") continue;
    if (r.valueBytes > limits.valueBytes) {
      _refuse(store, `Value too large (max ${limits.valueBytes} bytes)`);
    }
    // Deno's client counts a written key twice toward the total, and once toward the keys.
    total += bytes + r.valueBytes;
    keyTotal += bytes;
  }
  if (total > limits.mutationBytes) {
    _refuse(store, `Total mutation size too large (max ${limits.mutationBytes} bytes)`);
  }
  if (keyTotal > limits.keyTotalBytes) {
    _refuse(store, `Total key size too large (max ${limits.keyTotalBytes} bytes)`);
  }
}

// The sizes as KV counts them are the service's own (src/store/row_bytes.ts), pinned to
// figures worked out from denokv's codec in tests/store/remote_store_test.ts.
export { keyBytes, valueBytes };
