/**
 * @module
 * What a request handler receives: the injected dependencies plus per-request facts.
 * Nothing here is a module global, so tests pass their own KV, clock and config.
 */

import type { Catalog } from "./catalog/catalog.ts";
import type { DemandCounter } from "./catalog/demand.ts";
import type { Config } from "./config.ts";
import { clientAddress } from "./http/client_address.ts";
import type { Logger } from "./http/log.ts";
import type { Charge, RateLimiter } from "./http/rate_limit.ts";
import type { StoreCache } from "./store/cache.ts";
import type { Store } from "./store/store.ts";

export interface Deps {
  /**
   * The store: the `Store` main.ts opened, which its notifier shares, or a plain `Deno.Kv`
   * (the tests), which the handler wraps in its own.
   */
  kv: Store | Deno.Kv;
  config: Config;
  catalog: Catalog;
  /** ms since the epoch; tests inject a fake clock. */
  now?: () => number;
  /** Defaults to one JSON line on stdout per record. */
  log?: Logger;
  /** True once a shutdown began: new requests then get 503. */
  draining?: () => boolean;
  /** Aborted when a shutdown's grace ends: requests still in flight then get 503. */
  cut?: AbortSignal;
  /**
   * Called once a submission and its review notice are stored, so that a notifier in this
   * process tries the notice at once instead of when its loop next wakes (main.ts).
   */
  submitted?: () => void;
}

export interface Context {
  readonly kv: Store;
  readonly config: Config;
  readonly catalog: Catalog;
  readonly now: () => number;
  readonly log: Logger;
  readonly requestId: string;
  /** The caller's address, used as the rate-limit key. */
  readonly address: string;
  /** The rate limits' memory, shared by every request of one handler. */
  readonly limiter: RateLimiter;
  /** The counts this request owes its rate limits (http/rate_limit.ts). */
  readonly charges: Charge[];
  /** Token and client records, served exactly (see store/cache.ts); one per handler. */
  readonly cache: StoreCache;
  /** Places read as not covered, counted in memory (catalog/demand.ts); one per handler. */
  readonly demand: DemandCounter;
  /** Headers added to the final response whatever it is, errors included (usually none). */
  readonly headers: Map<string, string>;
  /** See {@linkcode Deps.submitted}; does nothing when not given. */
  readonly submitted: () => void;
}

/** What every request of one handler shares: the dependencies and the per-handler state. */
type SharedContext = Omit<Context, "requestId" | "address" | "headers" | "charges">;

/**
 * The context of one request. The caller's address is parsed when a rate limit, an
 * idempotency scope or admission first asks for it; a read that none of them asks about
 * never parses it.
 */
export class RequestContext implements Context {
  readonly kv: Store;
  readonly config: Config;
  readonly catalog: Catalog;
  readonly now: () => number;
  readonly log: Logger;
  readonly limiter: RateLimiter;
  readonly cache: StoreCache;
  readonly demand: DemandCounter;
  readonly submitted: () => void;
  readonly headers = new Map<string, string>();
  readonly charges: Charge[] = [];
  #address: string | undefined;

  constructor(
    shared: SharedContext,
    private readonly req: Request,
    private readonly info: Deno.ServeHandlerInfo | undefined,
    readonly requestId: string,
  ) {
    this.kv = shared.kv;
    this.config = shared.config;
    this.catalog = shared.catalog;
    this.now = shared.now;
    this.log = shared.log;
    this.limiter = shared.limiter;
    this.cache = shared.cache;
    this.demand = shared.demand;
    this.submitted = shared.submitted;
  }

  get address(): string {
    return this.#address ??= clientAddress(this.req, this.info, this.config.trustProxy);
  }
}
