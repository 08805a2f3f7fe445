/**
 * @module
 * Starts the real service with `deno task start` on a free loopback port, for tests
 * that need the process itself: start-up, signals, crashes, the README walkthroughs.
 */

import assert from "node:assert/strict";

export const root = new URL("..", import.meta.url);

type LogRecord = Record<string, unknown>;

export interface Service extends AsyncDisposable {
  baseUrl: string;
  /** The `KV_PATH` it runs on. */
  kvPath: string;
  /** The `deno task` process. */
  child: Deno.ChildProcess;
  /** Every JSON line the service printed so far (read continuously in the background). */
  logs: LogRecord[];
  /**
   * Resolves with the next log record, from where the last call stopped, matching `pred`;
   * fails after `timeoutMs` (default 30 s) instead of hanging the suite.
   */
  waitFor(pred: (r: LogRecord) => boolean, timeoutMs?: number): Promise<LogRecord>;
  /**
   * The pid of the `deno run … src/main.ts` server under `deno task`. SIGKILL cannot
   * be forwarded by the task runner, so a crash test kills this one. Linux only.
   */
  serverPid(): Promise<number>;
}

/**
 * True when `path` is `dir` itself or lies below it. A plain `startsWith` would count
 * `/src/dcfs-inspector-1` as inside `/src/dcfs`; the separator makes it exact.
 */
export function isInside(path: string, dir: string): boolean {
  const base = dir.endsWith("/") ? dir.slice(0, -1) : dir;
  return path === base || path.startsWith(`${base}/`);
}

/**
 * Waits, if need be, until at least `seconds` are left in the current wall-clock minute.
 * A real process counts rate limits in one-minute windows of the real clock; a sequence
 * that expects the Nth request to be refused must not straddle two windows.
 */
export async function awayFromMinuteEdge(seconds = 10): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 100));
}

/** A temporary folder outside the project for running a third-party tool. */
export interface Sandbox extends AsyncDisposable {
  /** The folder itself. */
  dir: string;
  /** `dir/home`, the tool's HOME. */
  home: string;
  /** `dir/work`, the tool's working folder (so it cannot touch `deno.lock`). */
  cwd: string;
  /** HOME, Deno's real cache, no colours, no update check, loopback past any proxy. */
  env: Record<string, string>;
}

/**
 * A temporary HOME and working folder, both outside the project, removed on dispose. Deno
 * keeps its cache under HOME unless told otherwise: the environment keeps the real one, so
 * a package is downloaded once.
 */
export async function sandbox(prefix: string): Promise<Sandbox> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  const project = await Deno.realPath(root);
  assert.ok(!isInside(dir, project), `${dir} must be outside the project ${project}`);
  const home = `${dir}/home`;
  const cwd = `${dir}/work`;
  await Deno.mkdir(home);
  await Deno.mkdir(cwd);
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], cwd }).output();
  assert.equal(info.code, 0, new TextDecoder().decode(info.stderr));
  const denoDir: string = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  const noProxy = [Deno.env.get("NO_PROXY"), "127.0.0.1", "localhost"].filter(Boolean).join(",");
  return {
    dir,
    home,
    cwd,
    env: {
      HOME: home,
      DENO_DIR: denoDir,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      NO_PROXY: noProxy,
      no_proxy: noProxy,
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** A port that was free a moment ago. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return port;
}

export interface StartOptions {
  /** Start under `ulimit -n` of this many descriptors (soft and hard), through bash. */
  openFiles?: number;
  /**
   * Start as Deno Deploy does, `<deno> run --allow-all src/main.ts` and no other flag,
   * instead of `deno task start`; `deno` defaults to the Deno running the tests.
   */
  asDeploy?: { deno?: string };
}

export async function startService(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Service> {
  const port = freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const task = options.asDeploy
    ? [options.asDeploy.deno ?? Deno.execPath(), "run", "--allow-all", "src/main.ts"]
    : [Deno.execPath(), "task", "--quiet", "start"];
  const [command, ...args] = options.openFiles === undefined
    ? task
    : ["bash", "-c", `ulimit -n ${options.openFiles} && exec "$@"`, "bash", ...task];
  const child = new Deno.Command(command!, {
    args,
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

  const logs: LogRecord[] = [];
  let wake = () => {};
  let ended = false;
  // Read stdout to the end, so a chatty service never blocks on a full pipe.
  const pump = (async () => {
    let buffered = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const l of lines) if (l.trim()) logs.push(JSON.parse(l));
      wake();
    }
    ended = true;
    wake();
  })();

  let readUpTo = 0;
  const waitFor = async (pred: (r: LogRecord) => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      for (; readUpTo < logs.length; readUpTo++) {
        if (pred(logs[readUpTo]!)) return logs[readUpTo++]!;
      }
      assert.ok(!ended, "the service exited before logging what was expected");
      const left = deadline - Date.now();
      assert.ok(left > 0, `the expected log line did not come within ${timeoutMs / 1000} s`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
  };
  await waitFor((r) => r.msg === "listening");

  return {
    baseUrl,
    kvPath: env.KV_PATH ?? ":memory:",
    child,
    logs,
    waitFor,
    async serverPid() {
      const pid = await leafPid(child.pid);
      assert.notEqual(pid, child.pid, "deno task start has no child process");
      const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`);
      assert.match(cmdline.replaceAll("\0", " "), / src\/main\.ts/);
      return pid;
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await pump;
    },
  };
}

/**
 * The first child's first child…, down to a process with none: under `deno task`,
 * the server itself. Linux only (/proc); elsewhere `pid` itself.
 */
export async function leafPid(pid: number): Promise<number> {
  let children: string;
  try {
    children = (await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`)).trim();
  } catch {
    return pid;
  }
  return children ? leafPid(Number(children.split(/\s+/)[0])) : pid;
}

/**
 * A memory figure of a process from /proc (Linux), in MiB to one decimal: `VmRSS` is
 * resident now, `VmHWM` the peak so far. NaN where there is no /proc.
 */
export async function memoryMiB(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const kib = Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1]);
    return Math.round(kib / 102.4) / 10;
  } catch {
    return NaN;
  }
}

/** {@link startService} on a temporary KV file, removed again on dispose. */
export async function startServiceOnTempKv(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Service> {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-e2e-" });
  const service = await startService({ KV_PATH: `${dir}/kv.sqlite3`, ...env }, options);
  return {
    ...service,
    async [Symbol.asyncDispose]() {
      await service[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** One item of `deno task review list --json` (the fields other tools may rely on). */
export interface ReviewListItem {
  request_id: string;
  kind: string;
  status: string;
  created_at: string;
  notification: string;
  notified_at: string | null;
  [field: string]: unknown;
}

/** Runs the real `deno task review <args>` against a KV file. */
export async function reviewCli(
  kvPath: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "review", ...args],
    cwd: root,
    env: { KV_PATH: kvPath, NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Runs the real `deno task review list --json` against a KV file and returns its items. */
export async function reviewListJson(kvPath: string): Promise<ReviewListItem[]> {
  const out = await reviewCli(kvPath, "list", "--all", "--json");
  assert.equal(out.code, 0, out.stderr);
  const items = JSON.parse(out.stdout);
  assert.ok(Array.isArray(items), "review list --json prints a JSON array");
  return items;
}
