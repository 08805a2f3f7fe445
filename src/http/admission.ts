/**
 * @module
 * Admission control: how many requests are handled at once, and who may take a place.
 * Past `MAX_IN_FLIGHT` a request is refused with 503 before its body is read, so a burst
 * holds no more than that many requests' worth of memory and store calls. Within the cap,
 * one address (an IPv6 /64, see client_address.ts) holds at most
 * {@linkcode ADDRESS_SHARE} of it and writes at most `1 - READ_RESERVE`, so callers at
 * their limits cannot starve others and reads always find places. `GET /healthz` has
 * {@linkcode HEALTH_RESERVE} places of its own, so a liveness probe of a busy instance
 * still answers.
 */

import { countRefusal } from "../telemetry/metrics.ts";
import { errorResponse, HttpError } from "./errors.ts";
import { PATHS } from "./paths.ts";

/**
 * Places beyond `MAX_IN_FLIGHT` kept for `GET /healthz`: a liveness probe must not restart
 * an instance for being busy. Still a bound: at most this many more requests.
 */
const HEALTH_RESERVE = 8;
/** The share of `MAX_IN_FLIGHT` one address may hold (at least 8 places, or all). */
const ADDRESS_SHARE = 1 / 4;
/** The share of `MAX_IN_FLIGHT` kept for reads: writes (POST) take at most the rest. */
const READ_RESERVE = 1 / 4;

/** The places of one handler's requests. */
interface Admission {
  /** Requests being handled now (admitted or being refused). */
  readonly inFlight: number;
  /** Resolves once no request is being handled, e.g. to finish a drain. */
  idle(): Promise<void>;
  /** Counts a request in, before anything else is done with it. */
  arrive(): void;
  /** Counts a request out, once its answer is complete. */
  depart(): void;
  /**
   * Takes a place for a request that has arrived, and returns the address it holds the
   * place under (to give back with {@linkcode release}); or the 503 that refuses it.
   * `address` is asked only when a place is counted per address.
   */
  admit(req: Request, path: string, address: () => string): string | undefined | Response;
  /** Gives back the place {@linkcode admit} took under `address`. */
  release(address: string | undefined): void;
}

/** The admission of `maxInFlight` places; `0` switches every cap off. */
export function createAdmission(maxInFlight: number): Admission {
  const addressCap = Math.max(Math.min(maxInFlight, 8), Math.ceil(maxInFlight * ADDRESS_SHARE));
  const writeCap = Math.max(1, maxInFlight - Math.floor(maxInFlight * READ_RESERVE));
  let inFlight = 0;
  /** Requests admitted and not yet answered, per address. */
  const byAddress = new Map<string, number>();
  const waiting: (() => void)[] = [];

  const admit = (req: Request, path: string, address: () => string) => {
    if (maxInFlight <= 0) return undefined;
    if (path === PATHS.liveness) {
      return inFlight > maxInFlight + HEALTH_RESERVE ? _overloaded(false) : undefined;
    }
    if (inFlight > maxInFlight) return _overloaded(false);
    const at = address();
    const held = byAddress.get(at) ?? 0;
    if (held >= addressCap || (inFlight > writeCap && !_isRead(req.method))) {
      return _overloaded(true);
    }
    byAddress.set(at, held + 1);
    return at;
  };
  return {
    get inFlight() {
      return inFlight;
    },
    idle: () => inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => waiting.push(r)),
    arrive() {
      inFlight++;
    },
    depart() {
      if (--inFlight === 0) { for (const wake of waiting.splice(0)) wake(); }
    },
    admit,
    release(address) {
      if (address === undefined) return;
      const n = byAddress.get(address)! - 1;
      if (n === 0) byAddress.delete(address);
      else byAddress.set(address, n);
    },
  };
}

function _isRead(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}

/** RFC 9110 §15.6.4: 503 with `Retry-After`, for a request the cap refuses. */
function _overloaded(byShare: boolean): Response {
  countRefusal("overloaded");
  const message = byShare
    ? "too many requests in flight from this address, or writes; retry shortly"
    : "too many requests in flight; retry shortly";
  return unavailable("overloaded", message);
}

/**
 * RFC 9110 §15.6.4: 503 with `Retry-After`; `close` also ends the connection (a drain).
 */
export function unavailable(code: string, message: string, close = false): Response {
  const headers: Record<string, string> = { "Retry-After": "1" };
  if (close) headers["Connection"] = "close";
  return errorResponse(new HttpError(503, code, message, { headers }), "api");
}
