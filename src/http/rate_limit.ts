/**
 * @module
 * Fixed one-minute rate limits, counted in KV so that every instance sharing the store
 * shares the count, at no round trip of their own on the way to a write. Headers follow the
 * IETF httpapi RateLimit draft (draft-ietf-httpapi-ratelimit-headers).
 *
 * - **Per address.** {@linkcode rateLimited} wraps a request's work. Its counter
 *   (store/rate_counters.ts) is read with the work's own reads ({@linkcode readCounts}) and
 *   written with check-and-set in the same commit as the work's write
 *   ({@linkcode commitCounted}); a request that writes nothing is counted alone at its end.
 *   A counter at the limit refuses; a refusal writes nothing, and this instance then
 *   refuses the address from memory until the window ends. Never more than the limit is
 *   admitted, on one instance or many: every count is a checked commit.
 * - **All callers together** ({@linkcode reserveGlobal}). The first stored write an
 *   instance makes in a window leases places of the global budget in its own commit
 *   (check-and-set on the global counter): one, plus one for each request of this instance
 *   waiting behind it, at most {@linkcode LEASE_MAX}. The requests then take their place
 *   from the lease with no store operation. The global counter counts places leased, so
 *   the cap is never passed; places leased and not used are lost when the window ends.
 * - **One commit of a counter in flight per instance.** Commits that count the same key
 *   wait for each other here, so a burst from one address is counted one after the other
 *   without conflicts; each knows the counter as the one before it wrote it, and only the
 *   first of a window reads it.
 *
 * The guarantees and the effect of instance clock skew: docs/architecture.md, "Rate limits".
 */

import { storeUnavailable } from "../store/deadline.ts";
import { commitOrReadBack, type Committed, commitWrite, type Write } from "../store/commits.ts";
import {
  addCount,
  type CounterState,
  counterState,
  landedIn,
  newNonce,
} from "../store/rate_counters.ts";
import {
  type Charge,
  newCharge,
  openCharge,
  type RateContext,
  RateCounter,
  rateHeaders,
  refusal,
  refuse,
  returnPlace,
  takePlace,
  WINDOW_MS,
} from "./rate_charges.ts";

export { type RateCounter, WINDOW_MS };

/** Most places one commit leases from a global bucket for this instance. */
const LEASE_MAX = 8;

/** Commits tried while counters keep changing under a request, before it is refused with 503. */
const MAX_ATTEMPTS = 64;

/** The rate-limit state of a handler: one per handler, so tests and instances each have their own. */
export function createRateCounter(kv: Deno.Kv): RateCounter {
  return new RateCounter(kv);
}

/**
 * Runs `work` as one request counted against `bucket` for the caller's address. It is
 * counted in the commit of its first write ({@linkcode commitCounted}), or alone when it
 * ends without one, whatever it answers; over the limit it is refused with 429 instead.
 * `limit` 0 switches the limit off.
 */
export function rateLimited<T>(
  ctx: RateContext,
  bucket: string,
  limit: number,
  work: () => Promise<T>,
): Promise<T> {
  // Off: the work itself, at no cost (the throughput benches run with every limit off).
  return limit > 0 ? _limited(ctx, bucket, limit, work) : work();
}

async function _limited<T>(
  ctx: RateContext,
  bucket: string,
  limit: number,
  work: () => Promise<T>,
): Promise<T> {
  const own = openCharge(ctx, bucket, limit, false);
  try {
    return await work();
  } finally {
    await _settle(ctx, own);
  }
}

/**
 * Takes a place in the global `bucket` for a write about to be stored: the request's next
 * {@linkcode commitCounted} takes it from this instance's lease, or leases more in its own
 * commit. Refused at once, from memory, once this instance saw the bucket full.
 */
export function reserveGlobal(ctx: RateContext, bucket: string, limit: number): void {
  if (limit > 0) openCharge(ctx, bucket, limit, true);
}

/**
 * Reads the counters of this request's limits that this instance knows nothing of, and of
 * the global `buckets` it may reserve (when this instance holds no place of them): one
 * eventual read, to start beside the request's own reads so it costs no round trip of its
 * own. It never rejects: a read that failed is made again by the commit, which reports it.
 */
export function readCounts(
  ctx: RateContext,
  buckets: readonly { bucket: string; limit: number }[] = [],
): Promise<void> {
  const rc = ctx.rateCounter;
  let charges = _open(ctx);
  for (const { bucket, limit } of buckets) {
    if (limit <= 0) continue;
    const charge = newCharge(ctx, bucket, limit, true);
    if ((rc.window(charge.window).pool.get(charge.id) ?? 0) > 0) continue;
    charges = charges.length ? [...charges, charge] : [charge];
  }
  return charges.length ? rc.counters.read(charges).catch(() => {}) : _NOTHING;
}

const _NOTHING = Promise.resolve();
const _NONE: readonly Charge[] = Object.freeze([]);

/** The charges of the request still to be counted; with every limit off, none, for nothing. */
function _open(ctx: RateContext): readonly Charge[] {
  const all = ctx.rateCounter.charges(ctx);
  return all.length ? all.filter((c) => c.status === "open") : _NONE;
}

/**
 * Commits the request's write (if any) together with every count the request owes, each
 * checked. A counter that changed meanwhile (another instance) is read back and the commit
 * tried again; `ok: false` means the write's own checks failed, and the caller reads again. A
 * commit that came back `ok: false` because its answer was lost and the re-send failed its
 * checks is found out from the counters' nonces, else from the write's proof, and reported
 * committed: never a 500, never counted twice. Throws 429 over a limit.
 */
export async function commitCounted(ctx: RateContext, write?: Write): Promise<Committed> {
  for (let attempt = 1;; attempt++) {
    const charges = _open(ctx);
    if (!charges.length) {
      return write
        ? await commitWrite(ctx.kv, write)
        : { ok: true, versionstamp: null, readBack: null };
    }
    const outcome = await _commitCharges(ctx, charges, write);
    if (outcome !== "again") return outcome;
    if (attempt >= MAX_ATTEMPTS) {
      throw storeUnavailable("the store is busy; retry shortly");
    }
  }
}

/** A counter a commit writes: the charge, the state it was seen in, by how much, the nonce. */
interface Counting {
  charge: Charge;
  seen: CounterState;
  by: number;
  nonce: string;
  next?: Omit<CounterState, "versionstamp">;
}

/** One attempt of {@linkcode commitCounted} with counts: "again" when a counter changed. */
async function _commitCharges(
  ctx: RateContext,
  charges: readonly Charge[],
  write: Write | undefined,
): Promise<Committed | "again"> {
  const rc = ctx.rateCounter;
  for (const c of charges) if (c.global) takePlace(rc, c);
  const locks = await rc.counters.lock(charges.filter((c) => !c.placed).map((c) => c.id));
  try {
    // A lease committed while this request waited may have left a place.
    for (const c of charges) if (c.global && takePlace(rc, c)) locks.get(c.id)?.();
    const counting = await _plan(ctx, charges.filter((c) => !c.placed));
    const build = (op: Deno.AtomicOperation) => {
      write?.write(op);
      for (const k of counting) {
        k.next = addCount(op, k.charge.key, k.seen, k.by, k.nonce, _expireIn(ctx, k.charge));
      }
    };
    const keys = counting.map((k) => k.charge.key);
    const res = await commitOrReadBack(ctx.kv, build, [...keys, ...(write?.proof.keys ?? [])]);
    if (res.ok) {
      _counted(ctx, charges, counting, res.versionstamp);
      return { ok: true, versionstamp: res.versionstamp, readBack: null };
    }
    const now = res.entries.slice(0, keys.length).map(counterState);
    const readBack = res.entries.slice(keys.length);
    if (_landed(counting, now, write, readBack)) {
      _counted(ctx, charges, counting, null, now);
      return { ok: true, versionstamp: null, readBack };
    }
    counting.forEach((k, i) => rc.counters.saw(k.charge, now[i]!, true));
    for (const c of charges) returnPlace(rc, c);
    const changed = counting.some((k, i) => k.seen.versionstamp !== now[i]!.versionstamp);
    return changed ? "again" : { ok: false, readBack };
  } catch (err) {
    for (const c of charges) returnPlace(rc, c);
    throw err;
  } finally {
    for (const release of locks.values()) release();
  }
}

/**
 * What to count: every per-address charge by one, each global one without a place by a
 * lease. Throws 429 for the first charge over its limit; the ones opened after it are dropped.
 */
async function _plan(ctx: RateContext, charges: readonly Charge[]): Promise<Counting[]> {
  const rc = ctx.rateCounter;
  await rc.counters.read(charges);
  const counting: Counting[] = [];
  for (const charge of charges) {
    const seen = await rc.counters.state(charge);
    const room = charge.limit - seen.n;
    if (room <= 0) {
      for (const c of rc.charges(ctx)) {
        if (c.status === "open" && _after(ctx, c, charge)) c.status = "dropped";
      }
      throw refuse(ctx, charge);
    }
    const by = charge.global ? Math.min(room, 1 + rc.counters.waiting(charge.id), LEASE_MAX) : 1;
    counting.push({ charge, seen, by, nonce: newNonce() });
  }
  return counting;
}

/** True when `c` was opened after `charge` by the same request. */
function _after(ctx: RateContext, c: Charge, charge: Charge): boolean {
  const list = ctx.rateCounter.charges(ctx);
  return list.indexOf(c) > list.indexOf(charge);
}

/**
 * Whether a commit that came back `ok: false` landed: from the counters' nonces, which are
 * exact unless too much was counted since; then from `proof`; without one (a request
 * counted alone), it is taken as landed, so that it is never counted twice.
 */
function _landed(
  counting: Counting[],
  now: CounterState[],
  write: Write | undefined,
  readBack: Deno.KvEntryMaybe<unknown>[],
): boolean {
  let verdict: boolean | undefined;
  counting.forEach((k, i) => {
    const v = landedIn(now[i]!, k.seen, k.nonce);
    if (v !== undefined) verdict = v;
  });
  return verdict ?? write?.proof.landed(readBack) ?? true;
}

/** Marks a commit's charges counted: the counters as written (or read back), the headers. */
function _counted(
  ctx: RateContext,
  charges: readonly Charge[],
  counting: Counting[],
  versionstamp: string | null,
  readBack?: CounterState[],
): void {
  const rc = ctx.rateCounter;
  // Once a global limit refused the request, its headers stay: they say what refused it.
  const refused = rc.charges(ctx).some((c) => c.global && c.status === "refused");
  counting.forEach((k, i) => {
    const state = readBack?.[i] ?? { ...k.next!, versionstamp };
    rc.counters.saw(k.charge, state, true);
    if (k.charge.global) {
      // This request keeps one place; the rest wait for the next requests of this window.
      const pool = rc.window(k.charge.window).pool;
      pool.set(k.charge.id, (pool.get(k.charge.id) ?? 0) + k.by - 1);
      k.charge.placed = true;
    } else if (!refused) rateHeaders(ctx, k.charge, k.seen.n + 1);
  });
  for (const c of charges) c.status = "counted";
}

/**
 * A counter lives to the end of the window after its own: an instance whose clock is up to
 * a minute behind still finds it, and nothing has to sweep it.
 */
function _expireIn(ctx: RateContext, charge: Charge): number {
  return Math.max(WINDOW_MS, (charge.window + 2) * WINDOW_MS - ctx.now());
}

/**
 * The end of a request's work: its global charges that stored nothing are dropped (their
 * place goes back to the lease), and its per-address charges not counted yet are counted
 * alone, in one commit. Throws the 429 of `own` if it refused the request.
 */
async function _settle(ctx: RateContext, own: Charge): Promise<void> {
  const rc = ctx.rateCounter;
  for (const c of rc.charges(ctx)) {
    if (!c.global || c.status !== "open") continue;
    returnPlace(rc, c);
    c.status = "dropped";
  }
  if (_open(ctx).length) await commitCounted(ctx);
  if (own.status === "refused") throw refusal(ctx, own);
}
