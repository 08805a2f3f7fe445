/**
 * @module
 * Shared by the before-and-after benches (`ab.ts`, `flood.ts`): the base commit checked out
 * as a git worktree and the current tree served side by side, and the markdown around them.
 */

import { spawnServer } from "./load.ts";

const ROOT = new URL("..", import.meta.url).pathname;

export type Side = "base" | "current";
type Server = Awaited<ReturnType<typeof spawnServer>>;

/** `git -C <repository root> …`; its trimmed output. */
async function git(...gitArgs: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args: ["-C", ROOT, ...gitArgs] }).output();
  const text = new TextDecoder();
  if (!out.success) throw new Error(`git ${gitArgs.join(" ")}: ${text.decode(out.stderr)}`);
  return text.decode(out.stdout).trim();
}

/**
 * The two sides' names: the base commit, short, and what the current side serves: HEAD,
 * plus any uncommitted changes to what `deno task start` runs.
 */
export async function nameSides(baseRef: string): Promise<{ baseCommit: string; current: string }> {
  const baseCommit = await git("rev-parse", "--short", `${baseRef}^{commit}`);
  const head = await git("rev-parse", "--short", "HEAD");
  const dirty = (await git("status", "--porcelain", "--", "src", "deno.json", "deno.lock")) !== "";
  return { baseCommit, current: dirty ? `${head} + uncommitted changes` : head };
}

/**
 * Serves `baseCommit` (a git worktree in a temporary folder) and the current tree, each by
 * its own `deno task start` (the base's command line may differ from ours) on its own fresh
 * KV file with `env`, runs `body` with both, then stops them and removes the worktree and
 * the folder.
 */
export async function withSides(
  prefix: string,
  baseCommit: string,
  env: Record<string, string>,
  body: (servers: Record<Side, Server>) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  const baseDir = `${dir}/base`;
  try {
    await git("worktree", "add", "--detach", "--quiet", baseDir, baseCommit);
    const serve = (side: Side, cwd: string) =>
      spawnServer({
        command: Deno.execPath(),
        args: ["task", "--quiet", "start"],
        cwd,
        env: { KV_PATH: `${dir}/${side}.sqlite3`, ...env },
        ready: "/healthz",
      });
    await using base = await serve("base", baseDir);
    await using current = await serve("current", ROOT);
    await body({ base, current });
  } finally {
    await git("worktree", "remove", "--force", baseDir).catch((err) => console.error(err.message));
    await Deno.remove(dir, { recursive: true });
  }
}

/** The median of `xs` (the mean of the middle two when even). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The CPU's model name (Linux `/proc/cpuinfo`), or "unknown CPU". */
export function cpuModel(): string {
  try {
    return Deno.readTextFileSync("/proc/cpuinfo").match(/^model name\s*:\s*(.+)$/m)?.[1] ??
      "unknown CPU";
  } catch {
    return "unknown CPU";
  }
}

/** Prints `md`, and unless `save` is false saves it as `bench/results/<prefix>-<base>-<date>.md`. */
export async function report(
  prefix: string,
  baseCommit: string,
  date: string,
  md: string,
  save: boolean,
): Promise<void> {
  console.log(md);
  if (!save) return;
  const name = `${prefix}-${baseCommit}-${date.slice(0, 16).replace(":", "-")}.md`;
  await Deno.mkdir(new URL("results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(new URL(`results/${name}`, import.meta.url), md + "\n");
  console.error(`saved bench/results/${name}`);
}
