/**
 * @module
 * Imports src/main.ts as Deno Deploy evaluates it, with `Deno.cron` and `Deno.serve`
 * replaced, and prints one JSON line: the schedules declared before the store was opened
 * (the first thing main() awaits) and before the server started.
 * Run by tests/e2e/deploy_test.ts in a process of its own.
 */

const declared: { name: string; schedule: string }[] = [];
let beforeStore: number | undefined;
const openKv = Deno.openKv;
// The unstable APIs are getters on `Deno`: define over them.
Object.defineProperty(Deno, "openKv", {
  value(path?: string) {
    beforeStore ??= declared.length;
    return openKv(path);
  },
});
Object.defineProperty(Deno, "cron", {
  value(name: string, schedule: string) {
    declared.push({ name, schedule });
    return Promise.resolve();
  },
});
Object.defineProperty(Deno, "serve", {
  value() {
    console.log(JSON.stringify({ before_store: beforeStore, before_serve: declared }));
    Deno.exit(0);
  },
});
await import("../../src/main.ts");
