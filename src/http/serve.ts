/**
 * @module
 * `serveResilient`: `Deno.serve` that outlives a failed accept. Deno's server stops
 * for good when `accept()` fails, for instance with `EMFILE` once every file
 * descriptor is held by an open connection, and rejects `finished`. Here that is
 * logged (at most once per interval), and the same address is served again after a
 * short backoff, retried until descriptors are free again. Requests in flight on the
 * stopped listener finish, bodies still arriving included.
 */

import { internalError } from "./errors.ts";
import { type Logger, reason } from "./log.ts";

export interface ResilientServer {
  /** The address first bound; a restart binds the same one. */
  readonly addr: Deno.NetAddr;
  /** Stops accepting, waits for requests in flight, and stops restarting. */
  shutdown(): Promise<void>;
  /** Resolves once {@linkcode shutdown} is done. */
  readonly finished: Promise<void>;
}

interface ResilientOptions {
  hostname: string;
  port: number;
  log: Logger;
  onListen?: (addr: Deno.NetAddr) => void;
  /** First wait before serving again; it doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** At most one log line per this many ms about failures; the rest are counted. */
  logIntervalMs?: number;
  /** Injected in tests; defaults to `Deno.serve`. */
  serve?: (options: Deno.ServeTcpOptions, handler: Deno.ServeHandler) => Deno.HttpServer;
}

/**
 * Serves `handler` like `Deno.serve`. A bind failure at start-up throws, as
 * `Deno.serve` does (the caller reports it); any later failure is retried.
 */
export function serveResilient(
  options: ResilientOptions,
  handler: Deno.ServeHandler,
): ResilientServer {
  const { log, backoffMs = 50, maxBackoffMs = 2_000, logIntervalMs = 10_000 } = options;
  const failed = throttled(logIntervalMs);
  const listen = _listener(options, handler, throttled(logIntervalMs));
  let stopping = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finished = Promise.withResolvers<void>();
  let current = listen(options.port, true);
  const addr = current.addr as Deno.NetAddr;
  let wait = backoffMs;
  // A server whose accept failed still serves the connections it had: its requests in
  // flight finish (uploads included). It is shut down with the rest.
  const retired: Deno.HttpServer[] = [];

  const watch = (server: Deno.HttpServer) => {
    const since = Date.now();
    server.finished.then(() => {
      if (!stopping) restartLater("the server stopped");
    }, (err) => {
      retired.push(server);
      if (Date.now() - since > 10_000) wait = backoffMs; // it ran well for a while
      restartLater(`accept failed: ${reason(err)}`);
    });
  };
  const restartLater = (why: string) => {
    if (stopping) return;
    failed((suppressed) =>
      log({ level: "error", msg: "listener failed; serving again", error: why, suppressed })
    );
    timer = setTimeout(() => {
      timer = undefined;
      if (stopping) return;
      try {
        current = listen(addr.port, false);
        watch(current);
      } catch (err) {
        restartLater(`cannot listen again: ${reason(err)}`);
      }
    }, wait);
    wait = Math.min(wait * 2, maxBackoffMs);
  };
  watch(current);

  return {
    addr,
    finished: finished.promise,
    async shutdown() {
      stopping = true;
      clearTimeout(timer);
      await _shutdownAll(current, retired);
      finished.resolve();
    },
  };
}

/**
 * Starts one `Deno.serve` on `port`. The first start reports through `onListen`; a
 * restart logs "listening again", at most once per interval.
 */
function _listener(
  options: ResilientOptions,
  handler: Deno.ServeHandler,
  relistened: ReturnType<typeof throttled>,
): (port: number, first: boolean) => Deno.HttpServer {
  const { log } = options;
  const serve = options.serve ?? Deno.serve;
  return (port, first) =>
    serve({
      hostname: options.hostname,
      port,
      onError: (err) => {
        // Only if the handler itself throws (it maps its own errors). Deno's default
        // prints the error, which can quote the request URL, to stderr: log the kind only.
        log({ level: "error", msg: "unhandled error", error: _kind(err) });
        return internalError();
      },
      onListen: (addr) => {
        if (first) options.onListen?.(addr);
        else {
          relistened((suppressed) =>
            log({ level: "info", msg: "listening again", address: _address(addr), suppressed })
          );
        }
      },
    }, handler);
}

/**
 * Shuts the current server down, then those retired after a failed accept. A failed
 * server's idle keep-alive connections can outlast its shutdown: its requests are
 * answered, so this waits a moment for them, not for ever.
 */
async function _shutdownAll(current: Deno.HttpServer, retired: Deno.HttpServer[]): Promise<void> {
  try {
    await current.shutdown();
  } catch {
    // Stopped by a failed accept meanwhile: it is among the retired.
  }
  const closing = retired.map((s) => s.shutdown().catch(() => {}));
  await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, 1_000))]);
}

/**
 * Runs `write` for the first event at once and then at most once per `intervalMs`,
 * passing the number of events left out since the last run. A descriptor shortage
 * fails every accept; its log must not become the next flood.
 */
export function throttled(
  intervalMs: number,
  now: () => number = Date.now,
): (write: (suppressed: number) => void) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (write) => {
    if (now() - last < intervalMs) {
      suppressed++;
      return;
    }
    last = now();
    write(suppressed);
    suppressed = 0;
  };
}

function _kind(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

function _address(addr: Deno.NetAddr): string {
  return `${addr.hostname}:${addr.port}`;
}
