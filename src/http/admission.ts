/**
 * @module
 * Admission control: how many requests are handled at once, and who may take a place.
 * Past `MAX_IN_FLIGHT` a request is refused with 503 before its body is read, so a burst
 * holds no more than that many requests' worth of memory and store calls. Within the cap,
 * one address (an IPv6 /64, see client_address.ts) holds at most `ADDRESS_SHARE` of it
 * and writes at most `1 - READ_RESERVE`, so callers at their limits cannot starve others
 * and reads always find places. `GET /healthz` has `HEALTH_RESERVE` places of its own, so
 * a liveness probe of a busy instance still answers. {@linkcode countedInFlight} counts
 * every request of the handler in flight, refused or not, so a drain knows when all are
 * answered.
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

/** Who a request is, for admission: its address, parsed only when it is asked for. */
interface Caller {
  readonly address: string;
}

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
   * The 503 that refuses a request that has arrived; or `true` when it took a place (give
   * it back with {@linkcode release}), `false` when it needs none (`/healthz`, caps off).
   */
  admit(req: Request, path: string, caller: Caller): Response | boolean;
  /** Gives back the place {@linkcode admit} gave `caller`. */
  release(caller: Caller): void;
}

/**
 * The admission of `maxInFlight` places; `0` switches every cap off.
 *
 * Far below the caps it costs a Set add and delete, and parses no address. Every admitted
 * request is in flight until its place is given back, and a request is counted in
 * `inFlight` before it is judged, so at most `inFlight - 1` are admitted: while
 * `inFlight <= addressCap`, no address can hold its share, and an admitted request joins
 * `uncounted` without its address. The first request that finds more in flight moves all
 * of them into `byAddress` before it is judged, so every refusal is decided on the exact
 * count of each address's admitted requests.
 */
export function createAdmission(maxInFlight: number): Admission {
  const addressCap = Math.max(Math.min(maxInFlight, 8), Math.ceil(maxInFlight * ADDRESS_SHARE));
  const writeCap = Math.max(1, maxInFlight - Math.floor(maxInFlight * READ_RESERVE));
  let inFlight = 0;
  /** Admitted requests not yet answered, per address, and those not counted by address. */
  const byAddress = new Map<string, number>();
  const uncounted = new Set<Caller>();
  const waiting: (() => void)[] = [];

  const count = (address: string, by: number) => {
    const n = (byAddress.get(address) ?? 0) + by;
    if (n === 0) byAddress.delete(address);
    else byAddress.set(address, n);
  };
  const admit = (req: Request, path: string, caller: Caller) => {
    if (maxInFlight <= 0) return false;
    if (path === PATHS.liveness) {
      return inFlight > maxInFlight + HEALTH_RESERVE ? _overloaded(false) : false;
    }
    if (inFlight > maxInFlight) return _overloaded(false);
    if (inFlight > writeCap && !_isRead(req.method)) return _overloaded(true);
    if (inFlight <= addressCap) {
      uncounted.add(caller);
      return true;
    }
    for (const admitted of uncounted) count(admitted.address, 1);
    uncounted.clear();
    if ((byAddress.get(caller.address) ?? 0) >= addressCap) return _overloaded(true);
    count(caller.address, 1);
    return true;
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
    release(caller) {
      if (!uncounted.delete(caller)) count(caller.address, -1);
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

export type Handler = (
  req: Request,
  info?: Deno.ServeHandlerInfo,
) => Response | Promise<Response>;

/** The service's handler, which also knows how many requests it is handling. */
export interface ServiceHandler extends Handler {
  /** Requests being handled now (admitted or being refused). */
  readonly inFlight: number;
  /** Resolves once no request is being handled, e.g. to finish a drain. */
  idle(): Promise<void>;
}

/**
 * `handle`, with every request counted in flight from its arrival until its answer is
 * complete, refused or not; synchronous answers stay synchronous.
 */
export function countedInFlight(handle: Handler, admission: Admission): ServiceHandler {
  const handler = (req: Request, info?: Deno.ServeHandlerInfo) => {
    admission.arrive();
    let out: Response | Promise<Response>;
    try {
      out = handle(req, info);
    } catch (err) {
      admission.depart();
      throw err;
    }
    if (out instanceof Response) {
      admission.depart();
      return out;
    }
    return out.finally(() => admission.depart());
  };
  return Object.defineProperties(handler, {
    inFlight: { get: () => admission.inFlight },
    idle: { value: () => admission.idle() },
  }) as ServiceHandler;
}
