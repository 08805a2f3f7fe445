/**
 * The newcomer's path, on a fresh clone of this commit, on a machine with only Node and npm:
 * no `deno` on PATH and an empty Deno cache. The README's start command as printed serves;
 * the first start fetches only the packages of deno.lock; the README's walkthroughs run
 * against it; the README's review commands run as printed (a real request id in place of
 * `<request_id>`). The rest of the environment is the machine's: npm's cache (it may already
 * hold the `deno` package), and its proxy and certificate settings.
 */

import assert from "node:assert/strict";
import {
  assertAgentWalkthrough,
  assertPublicWalkthrough,
  documentedBlock,
  runReadmeBlock,
} from "../_docs.ts";
import { freePort, leafPid, root } from "../_service.ts";

/** The first start downloads from npm: generous, never a timing assertion. */
const FIRST_START_MS = 180_000;
/** System folders of a Node-only machine: they must not hold a `deno`. */
const SYSTEM_PATH = "/usr/bin:/bin";

const text = new TextDecoder();

/** A PATH with node, npm and npx (wherever this machine has them) and the system folders. */
async function nodeOnlyPath(dir: string): Promise<string | null> {
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin);
  for (const tool of ["node", "npm", "npx"]) {
    const found = await new Deno.Command("bash", { args: ["-c", `command -v ${tool}`] }).output();
    if (found.code !== 0) return null;
    await Deno.symlink(text.decode(found.stdout).trim(), `${bin}/${tool}`);
  }
  return `${bin}:${SYSTEM_PATH}`;
}

async function sh(script: string, cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd,
    env,
  }).output();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** The npm packages (name@version) Deno fetched into `denoDir`. */
async function fetchedPackages(denoDir: string): Promise<string[]> {
  const registry = `${denoDir}/npm/registry.npmjs.org`;
  const found: string[] = [];
  const versions = async (name: string) => {
    for await (const v of Deno.readDir(`${registry}/${name}`)) {
      if (v.isDirectory) found.push(`${name}@${v.name}`);
    }
  };
  for await (const e of Deno.readDir(registry)) {
    if (!e.isDirectory) continue;
    if (!e.name.startsWith("@")) await versions(e.name);
    else {for await (const s of Deno.readDir(`${registry}/${e.name}`)) {
        if (s.isDirectory) await versions(`${e.name}/${s.name}`);
      }}
  }
  return found.sort();
}

async function waitForHealth(baseUrl: string, server: Deno.ChildProcess): Promise<void> {
  let exited = false;
  server.status.then(() => exited = true);
  const deadline = Date.now() + FIRST_START_MS;
  while (Date.now() < deadline) {
    assert.ok(!exited, "the README's start command exited instead of serving");
    const ok = await fetch(`${baseUrl}/healthz`).then(async (r) => {
      await r.body?.cancel();
      return r.ok;
    }, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`no /healthz within ${FIRST_START_MS / 1000} s`);
}

Deno.test("a newcomer with only Node and npm follows the README on a fresh clone", async (t) => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "dcfs-newcomer-" }));
  await using _dir = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  const path = await nodeOnlyPath(dir);
  if (!path) {
    console.warn("skipped: node, npm or npx is not on PATH");
    return;
  }
  const clone = `${dir}/dcfs`;
  const cloned = await new Deno.Command("git", {
    args: ["clone", "--quiet", new URL(".", root).pathname, clone],
  }).output();
  assert.equal(cloned.code, 0, text.decode(cloned.stderr));

  const denoDir = `${dir}/deno-dir`;
  await Deno.mkdir(denoDir);
  const port = freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    PATH: path,
    HOME: Deno.env.get("HOME") ?? dir,
    DENO_DIR: denoDir,
    DENO_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
    KV_PATH: `${dir}/kv.sqlite3`,
  };

  await t.step("the machine has node and npx but no deno", async () => {
    assert.equal((await sh("command -v npx && node --version", clone, env)).code, 0);
    assert.notEqual((await sh("command -v deno", clone, env)).code, 0, "deno is on PATH");
  });

  // The README's start command, as printed (less its comment), on the clone.
  const quickStart = await documentedBlock("README.md", "quick-start");
  const start = quickStart.split("\n").find((l) => / task start\b/.test(l))
    ?.replace(/\s+#.*$/, "");
  assert.ok(start, "the README's quick start has a start command");
  const log = `${dir}/start.log`;
  const server = new Deno.Command("bash", {
    args: ["-c", `exec ${start} >${log} 2>&1`],
    cwd: clone,
    env: { ...env, PORT: String(port), HOSTNAME: "127.0.0.1", BASE_URL: baseUrl },
  }).spawn();
  await using _server = {
    // npx does not pass SIGTERM on to Deno: stop the server itself (the leaf under npx and
    // `deno task`), and the chain above it exits with it.
    async [Symbol.asyncDispose]() {
      try {
        Deno.kill(await leafPid(server.pid), "SIGTERM");
      } catch { /* already gone */ }
      await server.status;
    },
  };

  await t.step("the README's start command serves", async () => {
    await waitForHealth(baseUrl, server).catch(async (e) => {
      throw new Error(`${e.message}\n${await Deno.readTextFile(log).catch(() => "")}`);
    });
  });

  await t.step("the first start fetched exactly the packages of deno.lock", async () => {
    const lock = JSON.parse(await Deno.readTextFile(`${clone}/deno.lock`));
    const locked = Object.keys(lock.npm).map((id) => id.replace(/_.*$/, "")).sort();
    assert.deepEqual(await fetchedPackages(denoDir), locked);
  });

  await t.step("the README's walkthroughs work as printed", async () => {
    const options = { cwd: clone, env: { PATH: path } };
    const publicOut = await runReadmeBlock("walkthrough-public", baseUrl, options);
    assertPublicWalkthrough(publicOut);
    assertAgentWalkthrough(await runReadmeBlock("walkthrough", baseUrl, options), baseUrl);
  });

  await t.step("the README's review commands work as printed", async () => {
    const block = await documentedBlock("README.md", "review");
    const ids = await sh(
      "npx --yes deno@" + block.match(/deno@([^ ]+)/)![1] + " task --quiet review list --json",
      clone,
      env,
    );
    assert.equal(ids.code, 0, ids.stderr);
    const items: { request_id: string; kind: string }[] = JSON.parse(ids.stdout);
    const quote = items.find((i) => i.kind === "quote")?.request_id;
    const lead = items.find((i) => i.kind === "lead")?.request_id;
    assert.ok(quote && lead, "the public walkthrough stored a quote and a lead");
    // show and approve the quote, reject the lead: each <request_id> in turn.
    let n = 0;
    const script = block.replace(/<request_id>/g, () => [quote, quote, lead][n++]!);
    const out = await sh(script, clone, env);
    assert.equal(out.code, 0, out.stderr);
    assert.ok(out.stdout.includes(quote) && out.stdout.includes(lead), out.stdout);
    assert.match(out.stdout, /approved/);
    assert.match(out.stdout, /rejected/);
    assert.match(out.stdout, /Usage|usage|Commands|commands/);
  });
});
