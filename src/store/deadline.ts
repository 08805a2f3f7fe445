/**
 * @module
 * Every store call under a deadline, with a circuit breaker behind it. `withDeadline(kv)`
 * returns the same `Deno.Kv` in which every round trip (a `get`, a `getMany`, each
 * `next()` of a list, a commit, `set`, `delete`, `enqueue`) must answer within
 * {@linkcode STORE_DEADLINE_MS}, or fails with `503 temporarily_unavailable` and a
 * `Retry-After`: an `HttpError`, so every route renders it in its own style and an MCP tool
 * returns it as a tool error. A request never hangs on the store, and never becomes a 500
 * because of it.
 *
 * Why at the store and not in each call: Deno's KV Connect client (Deno Deploy's KV, a
 * self-hosted denokv) retries transport errors and 5xx answers without end, so an outage
 * is a call that never answers, not an error. Put on the store object, the deadline covers
 * every call whoever makes it (a flow, the token cache's marker read, group commit's own
 * commit, the notifier, the review CLI), and each page of a long list gets its own.
 * `openStore` (open.ts) and `groupCommit` (group_commit.ts) both apply it; applying it
 * twice keeps the first.
 *
 * **The breaker.** A call that misses its deadline opens it: from then on every call
 * fails at once, without reaching the store, so an outage does not pile up calls that are
 * abandoned but may still land later. While it is open, a call made at least
 * {@linkcode PROBE_AFTER_MS} after the last probe started sends one probe (a read of the
 * never-written health key); the first probe that answers in time closes it. Nothing runs
 * on a timer while nobody calls: readiness checks and requests drive the probes.
 *
 * A call abandoned at its deadline may still be applied later; the flows that write are
 * idempotent or checked against a versionstamp for that reason.
 */

import { HttpError } from "../http/errors.ts";
import { countStoreUnavailable } from "../telemetry/metrics.ts";
import { healthKey } from "./keys.ts";

/**
 * How long one store round trip may take. A healthy remote store answers a strong read in
 * ~90 ms from Europe to Deploy's primary (us-east4), a few hundred at worst; local SQLite
 * in microseconds, or up to ~1 s of "database is locked" retries, each its own call. 2.5 s
 * is many times any healthy answer, and still short of the 5–10 s after which agents' HTTP
 * and MCP clients and load balancers give up on their own (and retry blindly).
 */
export const STORE_DEADLINE_MS = 2_500;

/** While the breaker is open, a probe starts at most this often (one at a time). */
export const PROBE_AFTER_MS = 1_000;

/**
 * `Retry-After` of the 503: a probe may start after {@linkcode PROBE_AFTER_MS} and a
 * healthy store answers it at once.
 */
const RETRY_AFTER_S = 2;

/** The error code of a store that did not answer in time, in both error styles. */
export const STORE_UNAVAILABLE = "temporarily_unavailable";

/** Deadline and breaker timings (tests shorten them), and what the store is. */
export interface DeadlineOptions {
  deadlineMs?: number;
  probeAfterMs?: number;
  /**
   * Whether the store is a local SQLite file or `:memory:`, as `openStore` knows from the
   * path it opened; read back by {@linkcode storeIsLocal} (group commit sizes its groups by it).
   */
  local?: boolean;
}

const GUARD = Symbol("store deadline");

/**
 * The 503 a request gets when the store does not answer in time, or, with another
 * `message`, when requests kept changing what this one was about to write: either way,
 * retry shortly.
 */
export function storeUnavailable(
  message = "the store did not answer in time; retry shortly",
): HttpError {
  return new HttpError(503, STORE_UNAVAILABLE, message, {
    headers: { "Retry-After": String(RETRY_AFTER_S) },
  });
}

/** Whether `err` is the 503 of a store that did not answer in time (or of the open breaker). */
export function isStoreUnavailable(err: unknown): boolean {
  return err instanceof HttpError && err.code === STORE_UNAVAILABLE;
}

interface Pending {
  due: number;
  reject(err: unknown): void;
}

/** One store's deadline and breaker. */
class Guard {
  readonly #deadlineMs: number;
  readonly #probeAfterMs: number;
  /** Calls in flight in start order, which is deadline order: all share one deadline. */
  readonly #pending = new Set<Pending>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #open = false;
  #probing = false;
  #lastProbe = 0;

  readonly local: boolean | undefined;

  constructor(private readonly kv: Deno.Kv, options: DeadlineOptions) {
    this.#deadlineMs = options.deadlineMs ?? STORE_DEADLINE_MS;
    this.#probeAfterMs = options.probeAfterMs ?? PROBE_AFTER_MS;
    this.local = options.local;
  }

  get open(): boolean {
    return this.#open;
  }

  /** `call()`, failed at once while the breaker is open, else under the deadline. */
  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#open) {
      this.#probe();
      countStoreUnavailable("breaker");
      return Promise.reject(storeUnavailable());
    }
    return this.#track(call);
  }

  #track<T>(call: () => Promise<T>): Promise<T> {
    let answer: Promise<T>;
    try {
      answer = call();
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { due: performance.now() + this.#deadlineMs, reject };
      this.#pending.add(entry);
      if (this.#timer === undefined) this.#arm(this.#deadlineMs);
      // Past its deadline the entry is gone, and a late answer is dropped.
      answer.then(
        (value) => this.#pending.delete(entry) && resolve(value),
        (err) => this.#pending.delete(entry) && reject(err),
      );
    });
  }

  /**
   * One timer for every call in flight, not one per call: it fires at the oldest call's
   * deadline and is set again for the next, and is not cleared when calls answer, so a
   * store call under load costs no timer of its own. Unref'd: it never keeps the process
   * alive on its own.
   */
  #arm(ms: number): void {
    const timer = setTimeout(this.#expire, ms);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Fails every call past its deadline, opens the breaker, and waits for the next one. */
  #expire = () => {
    this.#timer = undefined;
    const now = performance.now();
    for (const entry of this.#pending) {
      if (entry.due > now) break;
      this.#pending.delete(entry);
      if (!this.#open) this.#lastProbe = now; // the first probe waits its turn
      this.#open = true;
      countStoreUnavailable("deadline");
      entry.reject(storeUnavailable());
    }
    const next = this.#pending.values().next().value;
    if (next) this.#arm(Math.max(0, next.due - now));
  };

  /** One probe at a time, at most one per {@linkcode PROBE_AFTER_MS}. */
  #probe(): void {
    const now = performance.now();
    if (this.#probing || now - this.#lastProbe < this.#probeAfterMs) return;
    this.#probing = true;
    this.#lastProbe = now;
    this.#track(() => this.kv.get(healthKey())).then(
      () => this.#open = false,
      () => {},
    ).finally(() => this.#probing = false);
  }
}

/**
 * `kv` with every round trip under the deadline and the breaker (see the module
 * documentation). A store that already has them is returned as it is.
 */
export function withDeadline(kv: Deno.Kv, options: DeadlineOptions = {}): Deno.Kv {
  if ((kv as { [GUARD]?: Guard })[GUARD]) return kv;
  const guard = new Guard(kv, options);
  const wrapped: Record<PropertyKey, unknown> = {
    [GUARD]: guard,
    get: (key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) =>
      guard.run(() => kv.get(key, o)),
    getMany: (keys: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) =>
      guard.run(() => kv.getMany(keys, o)),
    set: (key: Deno.KvKey, value: unknown, o?: { expireIn?: number }) =>
      guard.run(() => kv.set(key, value, o)),
    delete: (key: Deno.KvKey) => guard.run(() => kv.delete(key)),
    enqueue: (value: unknown, o?: Parameters<Deno.Kv["enqueue"]>[1]) =>
      guard.run(() => kv.enqueue(value, o)),
    atomic: () => {
      const op = kv.atomic();
      const commit = op.commit.bind(op);
      op.commit = () => guard.run(commit);
      return op;
    },
    list: (selector: Deno.KvListSelector, o?: Deno.KvListOptions) => {
      const iter = kv.list(selector, o);
      const next = iter.next.bind(iter);
      iter.next = () => guard.run(next);
      return iter;
    },
  };
  return new Proxy(kv, {
    get(target, prop) {
      if (Object.hasOwn(wrapped, prop)) return wrapped[prop];
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Whether the store's breaker is closed: calls reach it. A store without the deadline
 * always counts as closed.
 */
export function breakerClosed(kv: Deno.Kv): boolean {
  return !(kv as { [GUARD]?: Guard })[GUARD]?.open;
}

/**
 * Whether the store is local SQLite, as `openStore` recorded it from the path it opened;
 * `undefined` for a store it did not open (a test's, or one opened elsewhere).
 */
export function storeIsLocal(kv: Deno.Kv): boolean | undefined {
  return (kv as { [GUARD]?: Guard })[GUARD]?.local;
}
