/**
 * @module
 * `Store`, the one wrapper over `Deno.Kv`: Deno KV's own calls, each with what the service
 * measured it needs, and nothing else.
 *
 * - **A deadline.** Every round trip (a `get`, a `getMany`, each page of a `list`, a commit)
 *   answers within 2.5 s or fails with `503`, behind a circuit breaker (deadline.ts): Deno's
 *   KV Connect client retries an outage without end, which would hang every request.
 * - **Retried while locked.** A SQLite file another process writes to (several instances,
 *   or the review CLI) refuses a call at once with "database is locked"
 *   (retry_locked.ts).
 * - **Group commit.** `atomic()` hands out an operation whose `commit()` joins the next
 *   group (group_commit.ts): writes that arrive while a commit is in flight share the next
 *   one, about five times the write throughput of one commit each on a file.
 *
 * The store modules take a {@linkcode Kv}, the calls they make: a `Store` in the service
 * (`createHandler`, the notifier and the review CLI share the one `openStore` opened), or a
 * plain `Deno.Kv` in a test that reads or writes a store directly.
 */

import { Deadline, type DeadlineOptions } from "./deadline.ts";
import { GroupCommit, type GroupedAtomic, groupLimits } from "./group_commit.ts";
import { healthKey } from "./keys.ts";
import { retryLocked } from "./retry_locked.ts";

/** The atomic operation the store modules build: Deno KV's, or one that joins a group. */
export interface Atomic {
  check(...checks: Deno.AtomicCheck[]): this;
  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this;
  delete(key: Deno.KvKey): this;
  sum(key: Deno.KvKey, n: bigint): this;
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError>;
}

/** The calls of Deno KV the store modules make. */
export type Kv = Pick<Deno.Kv, "get" | "getMany" | "list" | "set"> & { atomic(): Atomic };

/** How a `Store` treats its store: local SQLite or remote, and the deadline's timings. */
interface StoreOptions extends DeadlineOptions {
  /** A local SQLite file or `:memory:` (bigger groups) rather than KV Connect or Deploy's KV. */
  local?: boolean;
}

/** Deno KV with a deadline on every round trip, retries while locked, and group commit. */
export class Store implements Kv {
  /** Whether the store is local SQLite, as the path it was opened with says. */
  readonly local: boolean;
  readonly #deadline: Deadline;
  readonly #group: GroupCommit;

  constructor(readonly kv: Deno.Kv, options: StoreOptions = {}) {
    this.local = options.local ?? false;
    this.#deadline = new Deadline(() => kv.get(healthKey()), options);
    const commitNow = (apply: (op: Deno.AtomicOperation) => void) => {
      const op = kv.atomic();
      apply(op);
      return this.#call(() => op.commit());
    };
    this.#group = new GroupCommit(commitNow, groupLimits(this.local));
  }

  /** Whether calls reach the store (the breaker is closed), for `GET /readyz`. */
  get breakerClosed(): boolean {
    return this.#deadline.closed;
  }

  /** Groups committed and the writes they held, for tests and benches. */
  get groupStats(): GroupCommit["stats"] {
    return this.#group.stats;
  }

  get<T = unknown>(
    key: Deno.KvKey,
    options?: { consistency?: Deno.KvConsistencyLevel },
  ): Promise<Deno.KvEntryMaybe<T>> {
    return this.#call(() => this.kv.get<T>(key, options));
  }

  getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
    options?: { consistency?: Deno.KvConsistencyLevel },
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    return this.#call(() => this.kv.getMany<T>(keys, options));
  }

  /** Deno KV's list; each page it reads is one round trip, as any other call. */
  list<T = unknown>(
    selector: Deno.KvListSelector,
    options?: Deno.KvListOptions,
  ): Deno.KvListIterator<T> {
    const iter = this.kv.list<T>(selector, options);
    const next = iter.next.bind(iter);
    // A page whose read failed is read again by the next call: retrying `next` is safe.
    iter.next = () => this.#call(next);
    return iter;
  }

  set(
    key: Deno.KvKey,
    value: unknown,
    options?: { expireIn?: number },
  ): Promise<Deno.KvCommitResult> {
    return this.#call(() => this.kv.set(key, value, options));
  }

  /** An atomic operation whose `commit()` joins the next group commit. */
  atomic(): GroupedAtomic {
    return this.#group.atomic();
  }

  close(): void {
    this.kv.close();
  }

  /** One round trip: under the deadline, retried while a SQLite file is locked. */
  #call<T>(call: () => Promise<T>): Promise<T> {
    return retryLocked(() => this.#deadline.run(call));
  }
}
