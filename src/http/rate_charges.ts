/**
 * @module
 * What a request owes the rate limits, and what one instance remembers of them: the charges
 * of each request, the counters as it knows them (store/rate_counters.ts), the addresses and
 * global buckets it refuses from memory, the places of a global budget it leased, and the
 * RateLimit headers (draft-ietf-httpapi-ratelimit-headers). http/rate_limit.ts counts with it.
 */

import { countRefusal } from "../telemetry/metrics.ts";
import { HttpError } from "./errors.ts";
import { rateCounterKey } from "../store/keys.ts";
import { CounterBook, remember, windowState } from "../store/rate_counters.ts";
import { MINUTE_MS } from "../time.ts";

/** Length of one rate-limit window. */
export const WINDOW_MS = MINUTE_MS;

/** What a rate limit needs of a request (a part of the request `Context`). */
export interface RateContext {
  readonly kv: Deno.Kv;
  readonly now: () => number;
  /** The caller's address, the per-address key. */
  readonly address: string;
  readonly rateCounter: RateCounter;
  /** Headers added to the final response (the RateLimit fields). */
  readonly headers: Map<string, string>;
}

/** One count a request owes: to its address's bucket, or a place in a global one. */
export interface Charge {
  readonly bucket: string;
  readonly limit: number;
  readonly window: number;
  readonly global: boolean;
  readonly key: Deno.KvKey;
  readonly id: string;
  /** `dropped`: a charge opened after one that refused the request; never counted. */
  status: "open" | "counted" | "refused" | "dropped";
  /** Global: this request holds a place leased earlier by this instance. */
  placed: boolean;
}

/** What this instance decided of one window beyond the counters themselves. */
interface WindowState {
  /** Counters seen at or past a limit: id → that limit. */
  over: Map<string, number>;
  /** Global buckets: places leased by this instance and not used yet. */
  pool: Map<string, number>;
}

/**
 * Rate-limit state of one handler (one instance): the counters as it knows them
 * (store/rate_counters.ts), what it refuses from memory, its leases, and each request's
 * charges.
 */
export class RateCounter {
  readonly counters: CounterBook;
  #windows = new Map<number, WindowState>();
  #charges = new WeakMap<object, Charge[]>();

  constructor(kv: Deno.Kv) {
    this.counters = new CounterBook(kv);
  }

  /** The state of `window`; windows before the one before it are forgotten. */
  window(window: number): WindowState {
    return windowState(this.#windows, window, () => ({ over: new Map(), pool: new Map() }));
  }

  /** The charges of one request, in the order they were opened (empty: none). */
  charges(ctx: object): readonly Charge[] {
    return this.#charges.get(ctx) ?? [];
  }

  /** Adds a charge to a request. */
  add(ctx: object, charge: Charge): void {
    const list = this.#charges.get(ctx);
    if (list) list.push(charge);
    else this.#charges.set(ctx, [charge]);
  }
}

/** Takes a leased place for a global charge, if this instance holds one. */
export function takePlace(rc: RateCounter, charge: Charge): boolean {
  if (charge.placed) return true;
  const pool = rc.window(charge.window).pool;
  const left = pool.get(charge.id) ?? 0;
  if (left <= 0) return false;
  pool.set(charge.id, left - 1);
  charge.placed = true;
  return true;
}

/** Gives back the place of a global charge whose write did not land. */
export function returnPlace(rc: RateCounter, charge: Charge): void {
  if (!charge.global || !charge.placed || charge.status === "counted") return;
  const pool = rc.window(charge.window).pool;
  pool.set(charge.id, (pool.get(charge.id) ?? 0) + 1);
  charge.placed = false;
}

export function newCharge(
  ctx: RateContext,
  bucket: string,
  limit: number,
  global: boolean,
): Charge {
  const window = Math.floor(ctx.now() / WINDOW_MS);
  const address = global ? "*" : ctx.address;
  const id = `${window}\u0000${bucket}\u0000${address}`;
  const key = rateCounterKey(bucket, address, window);
  return { bucket, limit, window, global, key, id, status: "open", placed: false };
}

/** Opens a charge of this request, or refuses it at once when memory says it is over. */
export function openCharge(
  ctx: RateContext,
  bucket: string,
  limit: number,
  global: boolean,
): Charge {
  const rc = ctx.rateCounter;
  const charge = newCharge(ctx, bucket, limit, global);
  const state = rc.window(charge.window);
  const over = (state.over.get(charge.id) ?? Infinity) <= limit;
  if (over && !(global && (state.pool.get(charge.id) ?? 0) > 0)) throw refuse(ctx, charge);
  rc.add(ctx, charge);
  return charge;
}

/** 429 for `charge`, remembered for the rest of its window so the next ones cost nothing. */
export function refuse(ctx: RateContext, charge: Charge): HttpError {
  remember(ctx.rateCounter.window(charge.window).over, charge.id, charge.limit);
  charge.status = "refused";
  countRefusal("rate_limited", charge.bucket);
  return refusal(ctx, charge);
}

/** The 429 of a charge that refused the request, with its headers. */
export function refusal(ctx: RateContext, charge: Charge): HttpError {
  rateHeaders(ctx, charge, charge.limit + 1);
  const reset = _reset(ctx, charge);
  // RFC 6585 §4: 429 Too Many Requests, with Retry-After (RFC 9110 §10.2.3).
  const who = charge.global ? "from all callers together" : "from one address";
  return new HttpError(
    429,
    "rate_limited",
    `too many requests: at most ${charge.limit} per minute ${who}; retry in ${reset} s`,
    { headers: { "Retry-After": String(reset) } },
  );
}

function _reset(ctx: RateContext, charge: Charge): number {
  return Math.max(1, Math.ceil(((charge.window + 1) * WINDOW_MS - ctx.now()) / 1000));
}

/**
 * The headers describe the caller's own budget; a global limit shows only when it is what
 * refused the request, replacing the per-address figures that still had room.
 */
export function rateHeaders(ctx: RateContext, charge: Charge, count: number): void {
  const remaining = Math.max(0, charge.limit - count);
  ctx.headers.set("RateLimit-Policy", `"${charge.bucket}";q=${charge.limit};w=${WINDOW_MS / 1000}`);
  ctx.headers.set("RateLimit", `"${charge.bucket}";r=${remaining};t=${_reset(ctx, charge)}`);
}
