/**
 * @module
 * A store's deadline and circuit breaker ({@linkcode Deadline}), which `Store` (store.ts)
 * puts every round trip under: a `get`, a `getMany`, each `next()` of a list, a commit
 * must answer within {@linkcode STORE_DEADLINE_MS}, or fail with `503
 * temporarily_unavailable` and a `Retry-After`: an `HttpError`, so every route renders it
 * in its own style and an MCP tool returns it as a tool error. A request never hangs on the
 * store, and never becomes a 500 because of it.
 *
 * Why at the store and not in each call: Deno's KV Connect client (Deno Deploy's KV, a
 * self-hosted denokv) retries transport errors and 5xx answers without end, so an outage
 * is a call that never answers, not an error. Put on the store, the deadline covers every
 * call whoever makes it (a flow, the token cache's marker read, a group commit, the
 * notifier, the review CLI), and each page of a long list gets its own.
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

/** Deadline and breaker timings; tests shorten them. */
export interface DeadlineOptions {
  deadlineMs?: number;
  probeAfterMs?: number;
}

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

/** One store's deadline and breaker; `probe` is the cheap read that closes the breaker. */
export class Deadline {
  readonly #deadlineMs: number;
  readonly #probeAfterMs: number;
  /** Calls in flight in start order, which is deadline order: all share one deadline. */
  readonly #pending = new Set<Pending>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #open = false;
  #probing = false;
  #lastProbe = 0;

  constructor(private readonly probe: () => Promise<unknown>, options: DeadlineOptions = {}) {
    this.#deadlineMs = options.deadlineMs ?? STORE_DEADLINE_MS;
    this.#probeAfterMs = options.probeAfterMs ?? PROBE_AFTER_MS;
  }

  /** Whether calls reach the store: the breaker is closed. */
  get closed(): boolean {
    return !this.#open;
  }

  /** `call()`, failed at once while the breaker is open, else under the deadline. */
  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#open) {
      this.#startProbe();
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
  #startProbe(): void {
    const now = performance.now();
    if (this.#probing || now - this.#lastProbe < this.#probeAfterMs) return;
    this.#probing = true;
    this.#lastProbe = now;
    this.#track(this.probe).then(
      () => this.#open = false,
      () => {},
    ).finally(() => this.#probing = false);
  }
}
