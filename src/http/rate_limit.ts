/**
 * @module
 * The rate limiter: fixed one-minute windows counted in KV, shared by every instance on the
 * store, at no round trip of its own on the way to a write. Headers follow the IETF httpapi
 * RateLimit draft (draft-ietf-httpapi-ratelimit-headers). A limit has one counter per window
 * (store/rate_counters.ts; address `*` for a cap on all callers together), written only by
 * check-and-set. A request owes each of its limits a count ({@linkcode Charge}), added to the
 * commit of its write ({@linkcode commitCounted}) or, when it writes nothing, committed alone
 * at its end ({@linkcode rateLimited}). A full counter refuses with 429, writes nothing, and
 * refuses from memory for the rest of its window. The guarantees: docs/architecture.md,
 * "Rate limits".
 *
 * A cap on all callers together takes a place of one of two kinds: a place only for a write
 * about to be stored ({@linkcode reserveGlobal}: registrations, submissions), or one for every
 * request, opened before the address's limit so that a full cap refuses with no write at all
 * (`first` of {@linkcode rateLimited}: the staff console's passkey ceremonies begun).
 *
 * **One commit of a counter in flight per instance** (a promise chain per counter): each
 * commits against the state the one before wrote, instead of all but one failing their check
 * and reading again. On a store 2 ms away, 30 registrations at once from one address take 30
 * commits with the chain, 289 commits and 289 read-backs without it (60: 60 against 1,162,
 * and a request past 64 conflicts gets a 503). The chain also orders the commits that take a
 * place of a global cap: at most two a second by default.
 */

import type { Kv } from "../store/store.ts";
import { countRefusal } from "../telemetry/metrics.ts";
import { commitOrReadBack, type Committed, commitWrite, type Write } from "../store/commits.ts";
import { storeUnavailable } from "../store/deadline.ts";
import { rateCounterKey } from "../store/keys.ts";
import { countIn, readCounters, WINDOW_MS } from "../store/rate_counters.ts";
import { HttpError } from "./errors.ts";

export { WINDOW_MS };

/** Commits tried while counters keep changing under a request, before it is refused with 503. */
const MAX_ATTEMPTS = 64;
/** Counters an instance remembers per window; past it the oldest is forgotten (then read again). */
const REMEMBERED = 100_000;

/** What a rate limit needs of a request (a part of the request `Context`). */
interface RateContext {
  readonly kv: Kv;
  readonly now: () => number;
  readonly address: string;
  readonly limiter: RateLimiter;
  readonly charges: Charge[]; // the counts it owes, in the order its limits were opened
  readonly headers: Map<string, string>; // added to the final response
}

/** One count a request owes: to its address's counter, or to a global cap's. */
export interface Charge {
  readonly bucket: string;
  readonly limit: number;
  readonly window: number;
  readonly global: boolean;
  /** A global place counted whatever the request answers ({@linkcode rateLimited}'s `first`). */
  readonly always: boolean;
  readonly key: Deno.KvKey;
  readonly id: string; // the counter's name in this instance's memory
  /** `dropped`: opened after a charge that refused the request, or a global one never needed. */
  status: "open" | "counted" | "refused" | "dropped";
}

/** A counter as this instance last saw it (read, read back or written); `versionstamp` null while absent. */
interface Seen {
  n: number;
  versionstamp: string | null;
  refused?: true; // by this instance: the next requests are refused from memory
}

/** What one instance knows of the counters: one per handler (each test or instance its own). */
export class RateLimiter {
  readonly #windows = new Map<number, Map<string, Seen>>(); // this window's and the last's
  readonly #tails = new Map<string, Promise<void>>(); // per counter, the end of its chain

  constructor(private readonly kv: Kv) {}

  seen(charge: Charge): Seen | undefined {
    return this.#window(charge.window).get(charge.id);
  }

  saw(charge: Charge, entry: { value: unknown; versionstamp: string | null }): void {
    const seen = this.#window(charge.window);
    if (!seen.has(charge.id) && seen.size >= REMEMBERED) seen.delete(seen.keys().next().value!);
    const n = typeof entry.value === "number" ? entry.value : 0;
    seen.set(charge.id, { ...seen.get(charge.id), n, versionstamp: entry.versionstamp });
  }

  /** Reads, in one eventual call, the counters of `charges` this instance has not seen. */
  async read(charges: readonly Charge[]): Promise<void> {
    const missing = charges.filter((c) => !this.seen(c));
    if (!missing.length) return;
    const entries = await readCounters(this.kv, missing.map((c) => c.key));
    // A state this instance saw meanwhile (its own commit) is newer: it stays.
    missing.forEach((c, i) => this.seen(c) ?? this.saw(c, entries[i]!));
  }

  /** Waits until this instance has no other commit of these counters in flight; returns the release. */
  async lock(ids: readonly string[]): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const id of [...new Set(ids)].sort()) { // one order for all: no deadlock
      const before = this.#tails.get(id);
      let release!: () => void;
      const tail = new Promise<void>((r) => release = r);
      this.#tails.set(id, tail);
      await before;
      releases.push(() => {
        release();
        if (this.#tails.get(id) === tail) this.#tails.delete(id);
      });
    }
    return () => releases.forEach((r) => r());
  }

  #window(window: number): Map<string, Seen> {
    let seen = this.#windows.get(window);
    if (!seen) {
      this.#windows.set(window, seen = new Map());
      for (const w of this.#windows.keys()) if (w < window - 1) this.#windows.delete(w);
    }
    return seen;
  }
}

/**
 * Runs `work` as one request counted against `bucket` for the caller's address: in the commit
 * of its write ({@linkcode commitCounted}), or alone when it ends without one, whatever it
 * answers; over the limit it is refused with 429 instead. `limit` 0 switches the limit off.
 *
 * `first`, a cap on all callers together, is opened before the address's limit and counted
 * like it, whatever the request answers: when it is full the request is refused before `work`
 * begins (from memory) or at its commit, and is counted nowhere, its address's limit included.
 * A request its address's limit refuses takes no place of it.
 */
export async function rateLimited<T>(
  ctx: RateContext,
  bucket: string,
  limit: number,
  work: () => Promise<T>,
  first?: { bucket: string; limit: number },
): Promise<T> {
  const cap = first && first.limit > 0
    ? _open(ctx, _charge(ctx, first.bucket, first.limit, true, true))
    : undefined;
  const own = limit > 0 ? _open(ctx, _charge(ctx, bucket, limit, false)) : undefined;
  if (!own && !cap) return await work();
  let out: T;
  try {
    out = await work();
  } catch (err) {
    await _settle(ctx, own);
    throw err;
  }
  await _settle(ctx, own);
  return out;
}

/**
 * A request's end: global places it never stored are dropped (a `first` one only when a
 * limit refused the request), the rest are counted alone.
 */
async function _settle(ctx: RateContext, own: Charge | undefined): Promise<void> {
  const refused = ctx.charges.some((c) => c.status === "refused");
  for (const c of ctx.charges) {
    if (c.global && c.status === "open" && (!c.always || refused)) c.status = "dropped";
  }
  if (_owed(ctx).length) await commitCounted(ctx);
  if (own?.status === "refused") throw _refuse(ctx, own, true);
}

/** A place of the global cap `bucket` for a write about to be stored, counted in its commit. */
export function reserveGlobal(ctx: RateContext, bucket: string, limit: number): void {
  if (limit > 0) _open(ctx, _charge(ctx, bucket, limit, true));
}

/** Whether a cap on all callers together refused this request (its headers then stay). */
export function globalRefused(ctx: RateContext): boolean {
  return ctx.charges.some((c) => c.global && c.status === "refused");
}

/** Withdraws the request's places of global caps, refused or not: its write proved not needed. */
export function withdrawGlobal(ctx: RateContext): void {
  for (const c of ctx.charges) if (c.global && c.status !== "counted") c.status = "dropped";
}

/**
 * Reads the counters this request owes, and those of the global `buckets` it may reserve, that
 * this instance has not seen, in one eventual read beside its own; the commit reads again.
 */
export function readCounts(
  ctx: RateContext,
  buckets: readonly { bucket: string; limit: number }[] = [],
): Promise<void> {
  const global = buckets.filter((b) => b.limit > 0);
  const charges = [..._owed(ctx), ...global.map((b) => _charge(ctx, b.bucket, b.limit, true))];
  return charges.length ? ctx.limiter.read(charges).catch(() => {}) : Promise.resolve();
}

/**
 * Commits the request's write (if any) with every count it owes, each checked against the
 * counter as seen. A counter that changed meanwhile (another instance) is read back and the
 * commit tried again; `ok: false` means the write's own checks failed, and the caller reads
 * again. A commit that came back `ok: false` after landing (its answer lost) is told by its
 * write's proof; without one it is counted again. Throws 429 over a limit.
 */
export async function commitCounted(ctx: RateContext, write?: Write): Promise<Committed> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const owed = _owed(ctx);
    if (!owed.length) return write ? await commitWrite(ctx.kv, write) : _NOTHING;
    const release = await ctx.limiter.lock(owed.map((c) => c.id));
    try {
      const outcome = await _commitOnce(ctx, owed, write);
      if (outcome !== "again") return outcome;
    } finally {
      release();
    }
  }
  throw storeUnavailable("the store is busy; retry shortly");
}

const _NOTHING: Committed = Object.freeze({ ok: true, versionstamp: null, readBack: null });

/** One attempt of {@linkcode commitCounted}: "again" when a counter changed under it. */
async function _commitOnce(
  ctx: RateContext,
  owed: readonly Charge[],
  write: Write | undefined,
): Promise<Committed | "again"> {
  const limiter = ctx.limiter;
  await limiter.read(owed);
  const seen = owed.map((c) => limiter.seen(c) ?? { n: 0, versionstamp: null });
  const over = owed.findIndex((c, i) => seen[i]!.n >= c.limit);
  if (over >= 0) {
    for (const c of owed.slice(over + 1)) c.status = "dropped";
    throw _refuse(ctx, owed[over]!);
  }
  const keys = owed.map((c) => c.key);
  const res = await commitOrReadBack(ctx.kv, (op) => {
    write?.write(op);
    owed.forEach((c, i) => countIn(op, c.key, seen[i]!, c.window, ctx.now()));
  }, [...keys, ...(write?.proof.keys ?? [])]);
  if (res.ok) {
    owed.forEach((c, i) => limiter.saw(c, { value: seen[i]!.n + 1, ...res }));
    _counted(ctx, owed, seen);
    return { ok: true, versionstamp: res.versionstamp, readBack: null };
  }
  const readBack = res.entries.slice(keys.length);
  owed.forEach((c, i) => limiter.saw(c, res.entries[i]!));
  if (write?.proof.landed(readBack)) {
    _counted(ctx, owed, seen);
    return { ok: true, versionstamp: null, readBack };
  }
  const changed = owed.some((c, i) => limiter.seen(c)?.versionstamp !== seen[i]!.versionstamp);
  return changed ? "again" : { ok: false, readBack };
}

function _owed(ctx: RateContext): Charge[] {
  return ctx.charges.filter((c) => c.status === "open");
}

function _charge(
  ctx: RateContext,
  bucket: string,
  limit: number,
  global: boolean,
  always = false,
): Charge {
  const window = Math.floor(ctx.now() / WINDOW_MS);
  const address = global ? "*" : ctx.address;
  const key = rateCounterKey(bucket, address, window);
  return { bucket, limit, window, global, always, key, id: key.join("\u0000"), status: "open" };
}

/**
 * Opens a charge of this request, or refuses it at once when its counter refused before (kept
 * among the charges all the same, so that its headers stay: see `_counted`).
 */
function _open(ctx: RateContext, charge: Charge): Charge {
  ctx.charges.push(charge);
  if (ctx.limiter.seen(charge)?.refused) throw _refuse(ctx, charge);
  return charge;
}

/** Marks a commit's charges counted, with the headers of the caller's own budget. */
function _counted(ctx: RateContext, owed: readonly Charge[], seen: readonly Seen[]): void {
  const refused = globalRefused(ctx);
  owed.forEach((c, i) => {
    c.status = "counted";
    if (!c.global && !refused) _headers(ctx, c, seen[i]!.n + 1);
  });
}

/**
 * The 429 of `charge`, with its headers. The first time it is remembered for the rest of its
 * window, so the next ones cost nothing; `_settle` gives it again with its headers.
 */
function _refuse(ctx: RateContext, charge: Charge, again = false): HttpError {
  if (!again) {
    const seen = ctx.limiter.seen(charge);
    if (seen) seen.refused = true;
    charge.status = "refused";
    countRefusal("rate_limited", charge.bucket);
  }
  const reset = _headers(ctx, charge, charge.limit + 1);
  // RFC 6585 §4: 429 Too Many Requests, with Retry-After (RFC 9110 §10.2.3).
  const who = charge.global ? "from all callers together" : "from one address";
  return new HttpError(
    429,
    "rate_limited",
    `too many requests: at most ${charge.limit} per minute ${who}; retry in ${reset} s`,
    { headers: { "Retry-After": String(reset) } },
  );
}

/**
 * The RateLimit headers of `charge` after `count` requests; returns the seconds to the end of
 * its window. They describe the caller's own budget; a global limit shows only when it is
 * what refused the request, replacing the per-address figures that still had room.
 */
function _headers(ctx: RateContext, charge: Charge, count: number): number {
  const reset = Math.max(1, Math.ceil(((charge.window + 1) * WINDOW_MS - ctx.now()) / 1000));
  const remaining = Math.max(0, charge.limit - count);
  ctx.headers.set("RateLimit-Policy", `"${charge.bucket}";q=${charge.limit};w=${WINDOW_MS / 1000}`);
  ctx.headers.set("RateLimit", `"${charge.bucket}";r=${remaining};t=${reset}`);
  return reset;
}
