/**
 * @module
 * Tools for the notifier tests and bench/notifier_idle.ts: a store that counts the
 * operations made on it, and a sleep that moves a fake clock instead of waiting.
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
