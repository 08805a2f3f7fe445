/**
 * The two lockfiles. `deno task` installs every npm package of the lockfile deno.json names
 * (and of its import map) before it runs any task, so that lockfile, `deno.lock`, must hold
 * only what the service runs: the first `task start` on a fresh machine, the Docker image
 * and Deno Deploy then fetch those packages alone. Test, bench and script packages are
 * inline `npm:` specifiers locked in `deno.dev.lock`, which the test and check tasks name.
 */

import assert from "node:assert/strict";
import { root } from "./_service.ts";

/** Every program the service ships: the server and the staff review CLI. */
const RUNTIME_ENTRY_POINTS = ["src/main.ts", "src/review/cli.ts"];

type Lock = { npm?: Record<string, { integrity: string }>; specifiers?: Record<string, string> };

async function readLock(name: string): Promise<Lock> {
  return JSON.parse(await Deno.readTextFile(new URL(name, root)));
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir, root))) {
    const path = `${dir}${e.name}`;
    if (e.isDirectory && path !== "bench/peer") out.push(...await sourceFiles(`${path}/`));
    else if (e.isFile && e.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

Deno.test("deno.lock is exactly the lockfile of the runtime entry points, regenerated", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-lock-" });
  await using _dir = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  const fresh = `${dir}/deno.lock`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["cache", `--lock=${fresh}`, "--frozen=false", ...RUNTIME_ENTRY_POINTS],
    cwd: root,
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(
    await Deno.readTextFile(new URL("deno.lock", root)),
    await Deno.readTextFile(fresh),
    "deno.lock differs from the runtime graph's: run `rm deno.lock && deno cache --frozen=false " +
      `${RUNTIME_ENTRY_POINTS.join(" ")}\` (docs/configuration.md, "Dependencies")`,
  );
});

Deno.test("deno.dev.lock holds every runtime package at the version and integrity deno.lock has", async () => {
  const runtime = await readLock("deno.lock");
  const dev = await readLock("deno.dev.lock");
  const packages = Object.entries(runtime.npm ?? {});
  assert.ok(packages.length > 0, "deno.lock locks npm packages");
  for (const [id, entry] of packages) {
    assert.equal(dev.npm?.[id]?.integrity, entry.integrity, `${id} in deno.dev.lock`);
  }
  for (const [specifier, version] of Object.entries(runtime.specifiers ?? {})) {
    assert.equal(dev.specifiers?.[specifier], version, `${specifier} in deno.dev.lock`);
  }
});

Deno.test("src/ imports packages only through deno.json; others pin one exact version inline", async () => {
  const inline = /["'](npm:[^"']+)["']/g;
  for (const file of await sourceFiles("src/")) {
    const text = await Deno.readTextFile(new URL(file, root));
    assert.deepEqual([...text.matchAll(inline)].map((m) => m[1]), [], file);
  }
  const versions = new Map<string, Set<string>>();
  for (const dir of ["tests/", "bench/", "scripts/"]) {
    for (const file of await sourceFiles(dir)) {
      if (file === "tests/lockfile_test.ts") continue;
      const text = await Deno.readTextFile(new URL(file, root));
      for (
        const found of text.matchAll(/\bfrom ["']npm:([^"']+)["']|import\(["']npm:([^"']+)["']\)/g)
      ) {
        const specifier = found[1] ?? found[2]!;
        const m = specifier.match(/^(@?[^@/]+(?:\/[^@/]+)?)@(\d+\.\d+\.\d+[^/]*)/);
        assert.ok(m, `${file}: ${specifier} names one exact version`);
        versions.set(m[1]!, (versions.get(m[1]!) ?? new Set()).add(m[2]!));
      }
    }
  }
  assert.ok(versions.has("fast-check"), "the inline specifiers were found");
  for (const [name, seen] of versions) assert.equal(seen.size, 1, `${name}: ${[...seen]}`);
});
