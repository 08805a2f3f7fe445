/**
 * @module
 * Tools for the notifier tests and bench/notifier_idle.ts: a store that counts the
 * operations made on it, a sleep that moves a fake clock instead of waiting, a webhook
 * receiver, and a webhook that takes requests and never answers.
 */

import type { FakeClock } from "../_helpers.ts";

/** Operations made on a {@link countingKv}, by method (`commit` for an atomic commit). */
export type StoreOps = Record<string, number>;

const _COUNTED = new Set(["get", "getMany", "list", "set", "delete", "sum", "enqueue"]);

/**
 * `kv` with every operation counted in `ops`: a read (`get`, `getMany`, a `list` call,
 * which here is one round trip: every list of the notifier has a limit under the 500 keys
 * of one batch) or a write (`set`, `delete`, an atomic `commit`).
 */
export function countingKv(kv: Deno.Kv): { kv: Deno.Kv; ops: StoreOps } {
  const ops: StoreOps = {};
  const count = (name: string) => ops[name] = (ops[name] ?? 0) + 1;
  const atomic = (op: Deno.AtomicOperation): Deno.AtomicOperation => {
    const counted: Deno.AtomicOperation = new Proxy(op, {
      get(target, name) {
        const value = Reflect.get(target, name);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (name === "commit") count("commit");
          const out = value.apply(target, args);
          // The chained calls (check, set, delete) return the operation: keep counting it.
          return out === target ? counted : out;
        };
      },
    });
    return counted;
  };
  const counted = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (typeof value !== "function") return value;
      if (name === "atomic") return () => atomic(target.atomic());
      return (...args: unknown[]) => {
        if (typeof name === "string" && _COUNTED.has(name)) count(name);
        return value.apply(target, args);
      };
    },
  });
  return { kv: counted, ops };
}

/** The sum of `ops`. */
export function totalOps(ops: StoreOps): number {
  return Object.values(ops).reduce((a, b) => a + b, 0);
}

/**
 * A notifier's sleep on a fake clock: each nap moves `clock` on by its length at once, so
 * hours of idle pass in milliseconds. A nap that would end after `until` parks instead
 * (resolving `parked`) and waits for its signal: a wake or a stop.
 */
export function virtualSleep(clock: FakeClock, until: number) {
  const parked = Promise.withResolvers<void>();
  const naps: number[] = [];
  return {
    parked: parked.promise,
    /** Every nap's length, in order. */
    naps,
    sleep(ms: number, signal: AbortSignal): Promise<void> {
      if (clock.now() + ms > until) {
        parked.resolve();
        return new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
      }
      naps.push(ms);
      clock.advance(ms);
      return Promise.resolve();
    },
  };
}

/** A webhook receiver on a real port that records each POST and answers `status()`. */
export function receiver(status: () => number = () => 204) {
  const hits: { body: string; headers: Headers }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    hits.push({ body: await req.text(), headers: req.headers });
    return new Response(null, { status: status() });
  });
  return {
    hits,
    url: `http://127.0.0.1:${server.addr.port}/hooks/review`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/**
 * A webhook on a real port that reads each request and never answers, until disposed:
 * a receiver that hangs. `received` resolves once a first request has arrived.
 */
export function silentWebhook() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const readers: Promise<void>[] = [];
  const received = Promise.withResolvers<void>();
  let requests = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      readers.push((async () => {
        const buffer = new Uint8Array(4096);
        try {
          while ((await conn.read(buffer)) !== null) {
            requests++;
            received.resolve();
          }
        } catch {
          // Closed at dispose.
        }
      })());
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/hooks/review`,
    received: received.promise,
    /** Reads that brought bytes, from every connection. */
    get requests() {
      return requests;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // The client closed it first.
        }
      }
      await accepting;
      await Promise.all(readers);
    },
  };
}
