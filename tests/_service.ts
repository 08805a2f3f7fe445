/**
 * @module
 * Starts the real service with `deno task start` on a free loopback port, for tests
 * that need the process itself: start-up, signals, the README walkthrough.
 */

import assert from "node:assert/strict";

export const root = new URL("..", import.meta.url);

export interface Service extends AsyncDisposable {
  baseUrl: string;
  child: Deno.ChildProcess;
  /** Every JSON line the service printed so far. */
  logs: Record<string, unknown>[];
  /** Resolves with the first log record matching `pred` (reads on as needed). */
  waitFor(pred: (r: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/** A port that was free a moment ago. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return port;
}

export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const port = freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "start"],
    cwd: root,
    env: {
      NO_COLOR: "1",
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      BASE_URL: baseUrl,
      KV_PATH: ":memory:",
      ...env,
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const logs: Record<string, unknown>[] = [];
  let buffered = "";
  let readUpTo = 0;
  const waitFor = async (pred: (r: Record<string, unknown>) => boolean) => {
    while (true) {
      for (; readUpTo < logs.length; readUpTo++) {
        if (pred(logs[readUpTo]!)) return logs[readUpTo++]!;
      }
      const { value, done } = await reader.read();
      assert.ok(!done, "the service exited early");
      buffered += value;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const l of lines) if (l.trim()) logs.push(JSON.parse(l));
    }
  };
  await waitFor((r) => r.msg === "listening");
  return {
    baseUrl,
    child,
    logs,
    waitFor,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
    },
  };
}
