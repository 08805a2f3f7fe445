/**
 * @module
 * Group commit for Deno KV ({@linkcode GroupCommit}, which `Store`'s `atomic()` uses, store.ts).
 * Every KV commit on a file ends in an `fsync`, so one commit per request caps every write
 * path, however many requests arrive at once; rows that share a commit cost a fraction of
 * one each (docs/performance.md, "The store layer").
 *
 * - **No timer.** When no commit is in flight, a write commits at once, alone. Writes
 *   that arrive while {@linkcode PIPELINE} groups are in flight ({@linkcode REMOTE_PIPELINE}
 *   on a remote store) wait, then go out together in the next `atomic()`: the group grows
 *   with the load and costs nothing without it.
 * - **Durable before answered.** Each `commit()` resolves only after the commit that
 *   holds its writes succeeded, so a request answered `200` or `202` survives a SIGKILL
 *   just as before.
 * - **Within KV's limits** (limits.ts). A group is cut before it would pass 1,000
 *   mutations, 10 checks (100 on a local SQLite store: {@linkcode groupLimits}), the
 *   800 KiB mutation size or the 80 KiB of keys it writes (both counted with a margin, and
 *   only once a group is big enough to come near them).
 * - **Each learns its own outcome.** A group whose checks fail, or whose commit throws,
 *   is committed again member by member, so the one whose check failed gets
 *   `ok: false` (or the error) and the others commit. A member that checks a key an
 *   earlier member of the group writes starts a new group: in one `atomic()` every check
 *   is made before any write, which would let both pass.
 * - **Any order of concurrent writes.** Groups in flight together hold requests none of
 *   which has been answered, so whichever the store applies first is a valid order; a
 *   check against a key another group writes fails and is retried by its caller, as it
 *   would without grouping.
 *
 * One difference from KV's own atomic operation, not reachable from the service's
 * writes: a value is serialised at `commit()`, not at `set()` (do not change it in
 * between).
 */

import { recordCommit } from "../telemetry/metrics.ts";
import { isStoreUnavailable } from "./deadline.ts";
import { KV_LIMITS, SQLITE_CHECKS } from "./limits.ts";

/**
 * Groups in flight at once on a local store. SQLite applies them one after the other;
 * with two, the next group is already queued when the store finishes one, while this
 * thread answers the requests of the group before.
 */
export const PIPELINE = 2;

/**
 * Groups in flight at once on a remote store (KV Connect, Deploy). There a commit is a
 * round trip (~90 ms from Europe to Deploy's primary) and commits of different keys do not
 * wait for each other, so each group in flight adds a group's worth of writes per round
 * trip: with 10 checks a group (3 submissions), 16 in flight reach about the throughput
 * that 100 checks and 2 in flight would (docs/performance.md, "Group commit on a remote
 * store").
 */
export const REMOTE_PIPELINE = 16;

/** What one group may hold (KV's limits, limits.ts, with a margin on both sizes), and how many fly. */
interface GroupLimits {
  /** Groups in flight at once. */
  inFlight: number;
  mutations: number;
  checks: number;
  /** Bytes as KV counts them, an upper bound (see `_size`). */
  bytes: number;
  /** Bytes of the keys the group sets or sums, an upper bound. */
  keyBytes: number;
}

/** The limits of a group on any store: 10 checks, as denokv allows; two in flight. */
export const GROUP_LIMITS: Readonly<GroupLimits> = {
  inFlight: PIPELINE,
  mutations: KV_LIMITS.mutations,
  checks: KV_LIMITS.checks,
  bytes: 700 * 1024,
  keyBytes: 72 * 1024,
};

/**
 * The limits of a group on a local SQLite store (`local`): 100 checks, so that a burst of
 * submissions (3 checks each) shares one `fsync` 33 at a time instead of 3; elsewhere 10
 * checks, and {@linkcode REMOTE_PIPELINE} groups in flight.
 */
export function groupLimits(local: boolean): Readonly<GroupLimits> {
  return local
    ? { ...GROUP_LIMITS, checks: SQLITE_CHECKS }
    : { ...GROUP_LIMITS, inFlight: REMOTE_PIPELINE };
}

/**
 * Mutations a group may hold without counting bytes: each is at most a 2 KiB key and a
 * 64 KiB value (KV's own limits), so this many cannot pass either size limit.
 */
function _uncounted(limits: GroupLimits): number {
  return Math.min(Math.floor(limits.bytes / (68 * 1024)), Math.floor(limits.keyBytes / 2048));
}

type Mutation =
  | { type: "set"; key: Deno.KvKey; value: unknown; expireIn?: number }
  | { type: "delete"; key: Deno.KvKey }
  | { type: "sum"; key: Deno.KvKey; value: bigint };

interface Member {
  checks: Deno.AtomicCheck[];
  mutations: Mutation[];
  /** The member's size as KV counts it, and its written keys' (upper bounds), once asked for. */
  size?: { bytes: number; keyBytes: number };
  resolve(result: Deno.KvCommitResult | Deno.KvCommitError): void;
  reject(err: unknown): void;
}

/** How many groups were committed and how many writes they held, for tests and benches. */
interface GroupStats {
  commits: number;
  writes: number;
  /** Groups whose checks failed (or that threw) and were committed member by member. */
  split: number;
}

/** Commits one atomic operation built by `apply`: a `Store`'s raw commit, under its deadline. */
type CommitNow = (
  apply: (op: Deno.AtomicOperation) => void,
) => Promise<Deno.KvCommitResult | Deno.KvCommitError>;

/** The writes of one store, committed in groups (see the module documentation). */
export class GroupCommit {
  readonly stats: GroupStats = { commits: 0, writes: 0, split: 0 };
  readonly #queue: Member[] = [];
  #inFlight = 0;

  constructor(
    private readonly commitNow: CommitNow,
    private readonly limits: Readonly<GroupLimits> = GROUP_LIMITS,
  ) {}

  /** An atomic operation whose `commit()` joins the next group. */
  atomic(): GroupedAtomic {
    return new GroupedAtomic((member) => {
      this.#queue.push(member);
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#queue.length && this.#inFlight < this.limits.inFlight) {
      this.#inFlight++;
      const group = _takeGroup(this.#queue, this.limits);
      void _commitGroup(this.commitNow, group, this.stats).finally(() => {
        this.#inFlight--;
        this.#flush();
      });
    }
  }
}

/** The members of the next group, taken off the queue within the limits. */
function _takeGroup(queue: Member[], limits: Readonly<GroupLimits>): Member[] {
  const uncounted = _uncounted(limits);
  let taken = 0;
  let mutations = 0;
  let checks = 0;
  let size: { bytes: number; keyBytes: number } | undefined;
  let written: Set<string> | undefined;
  while (taken < queue.length) {
    const next = queue[taken]!;
    if (taken > 0) {
      if (
        mutations + next.mutations.length > limits.mutations ||
        checks + next.checks.length > limits.checks
      ) break;
      if (mutations + next.mutations.length > uncounted) {
        // Near a size limit: count every member so far, once.
        if (!size) {
          size = { bytes: 0, keyBytes: 0 };
          for (let i = 0; i < taken; i++) _addSize(size, queue[i]!);
        }
        const more = _size(next);
        if (
          size.bytes + more.bytes > limits.bytes || size.keyBytes + more.keyBytes > limits.keyBytes
        ) break;
      }
      if (next.checks.length) {
        if (!written) {
          written = new Set();
          for (let i = 0; i < taken; i++) _addWritten(written, queue[i]!);
        }
        if (next.checks.some((c) => written!.has(_id(c.key)))) break;
      }
    }
    taken++;
    mutations += next.mutations.length;
    checks += next.checks.length;
    if (size) _addSize(size, next);
    if (written) _addWritten(written, next);
  }
  return queue.splice(0, taken);
}

function _addSize(size: { bytes: number; keyBytes: number }, member: Member): void {
  const more = _size(member);
  size.bytes += more.bytes;
  size.keyBytes += more.keyBytes;
}

function _addWritten(written: Set<string>, member: Member) {
  for (const m of member.mutations) written.add(_id(m.key));
}

async function _commitGroup(
  commitNow: CommitNow,
  group: Member[],
  stats: GroupStats,
): Promise<void> {
  stats.commits++;
  stats.writes += group.length;
  let result: Deno.KvCommitResult | Deno.KvCommitError | undefined;
  let error: unknown;
  const started = performance.now();
  try {
    result = await commitNow((op) => _apply(op, group));
  } catch (err) {
    error = err;
  }
  recordCommit((performance.now() - started) / 1000, group.length, result?.ok === true);
  if (group.length === 1) {
    if (result) group[0]!.resolve(result);
    else group[0]!.reject(error);
    return;
  }
  if (result?.ok) {
    for (const m of group) m.resolve(result);
    return;
  }
  if (isStoreUnavailable(error)) {
    // The store did not answer: committing each member alone would only wait again.
    for (const m of group) m.reject(error);
    return;
  }
  // A check failed somewhere, or one member's write could not be committed: each member
  // alone, in order, learns its own outcome.
  stats.split++;
  for (const m of group) {
    try {
      m.resolve(await commitNow((op) => _apply(op, [m])));
    } catch (err) {
      m.reject(err);
    }
  }
}

function _apply(op: Deno.AtomicOperation, group: Member[]): void {
  for (const m of group) {
    for (const c of m.checks) op.check(c);
    for (const x of m.mutations) {
      if (x.type === "set") {
        op.set(x.key, x.value, x.expireIn === undefined ? undefined : { expireIn: x.expireIn });
      } else if (x.type === "delete") op.delete(x.key);
      else op.sum(x.key, x.value);
    }
  }
}

/** The atomic operation `GroupCommit` hands out: it records, and `commit()` enqueues. */
export class GroupedAtomic {
  #checks: Deno.AtomicCheck[] = [];
  #mutations: Mutation[] = [];

  constructor(private readonly enqueue: (m: Member) => void) {}

  check(...checks: Deno.AtomicCheck[]): this {
    this.#checks.push(...checks);
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    this.#mutations.push({ type: "set", key, value, expireIn: options?.expireIn });
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#mutations.push({ type: "delete", key });
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.#mutations.push({ type: "sum", key, value: n });
    return this;
  }

  /** Joins the next group. As with KV's own atomic operation, a second call commits it again. */
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const checks = [...this.#checks];
    const mutations = [...this.#mutations];
    return new Promise((resolve, reject) => this.enqueue({ checks, mutations, resolve, reject }));
  }
}

/**
 * A key as a string, equal for equal keys. Two different keys may share one (a string
 * part holding the separator), which only cuts a group where it need not be cut.
 */
function _id(key: Deno.KvKey): string {
  let id = "";
  for (const part of key) {
    id += part instanceof Uint8Array ? `u${part.join(",")}` : `${typeof part}${String(part)}`;
    id += "\u0000";
  }
  return id;
}

/**
 * Upper bounds of a member's size as KV counts it (every key, and a set or sum's key again
 * with its value) and of the keys it sets or sums: UTF-8 takes at most 3 bytes a char.
 */
function _size(m: Member): { bytes: number; keyBytes: number } {
  if (m.size) return m.size;
  let bytes = 0;
  let keyBytes = 0;
  for (const c of m.checks) bytes += _keyBytes(c.key);
  for (const x of m.mutations) {
    const key = _keyBytes(x.key);
    if (x.type === "delete") {
      bytes += key;
      continue;
    }
    bytes += 2 * key + (x.type === "set" ? _valueBytes(x.value) : 8);
    keyBytes += key;
  }
  return m.size = { bytes, keyBytes };
}

function _keyBytes(key: Deno.KvKey): number {
  let bytes = 0;
  for (const part of key) {
    bytes += 2 + (part instanceof Uint8Array ? part.byteLength : 3 * String(part).length);
  }
  return bytes;
}

function _valueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === "string") return 3 * value.length;
  try {
    return 3 * (JSON.stringify(value)?.length ?? 0) + 16;
  } catch {
    return 64 * 1024; // a value JSON cannot show (a bigint, a cycle): count KV's maximum
  }
}
