/**
 * The docs as a user meets them: every link inside the repository resolves (file and
 * heading), none points outside it, and every shell block a user may paste runs
 * against the real service. A block that cannot run here is listed below with the
 * reason and the test that covers it instead, so a new block is run or named.
 */

import assert from "node:assert/strict";
import { root, startService } from "./_service.ts";

const FILES = [
  "README.md",
  ...[...Deno.readDirSync(new URL("docs/", root))]
    .filter((e) => e.isFile && e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`)
    .sort(),
];

/** Blocks not run here, by their first line, with why and what covers them. */
const NOT_RUN: Record<string, string> = {
  "npx --yes deno@2.9.6 task start   # serve on http://localhost:8000":
    "CI runs `task test` verbatim; tests/e2e/newcomer_test.ts runs `task start` as printed on a fresh clone",
  "docker build -t dcfs .": "needs a Docker engine; the Dockerfile is reviewed by reading it",
  "KV_PATH=https://kv.internal.example:4512 DENO_KV_ACCESS_TOKEN=… BASE_URL=https://api.example.com \\":
    "needs a KV Connect server; tests/e2e/instances_test.ts runs two instances on one store",
  "KV_PATH=https://api.deno.com/v2/databases/<database-id>/connect DENO_KV_ACCESS_TOKEN=ddo_… \\":
    "needs a database on Deno Deploy and its token; the same CLI runs against a file in tests/review/",
  "OTEL_DENO=true OTEL_SERVICE_NAME=dcfs OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 \\":
    "serves until stopped; tests/e2e/telemetry_test.ts starts the service with this block's variables",
  "npx --yes deno@2.9.6 run -A npm:@modelcontextprotocol/inspector@2.12.0 --cli \\":
    "downloads the Inspector; tests/e2e/inspector_test.ts runs the same CLI calls",
  "rm deno.lock && npx --yes deno@2.9.6 cache --frozen=false src/main.ts src/review/cli.ts":
    "rewrites the project's lockfiles; tests/lockfile_test.ts regenerates deno.lock into a temporary file",
};

/** The pinned Deno every `npx --yes deno@…` command of the docs names: the one CI runs. */
async function pinnedDeno(): Promise<string> {
  const ci = await Deno.readTextFile(new URL(".ci/run", root));
  const pin = ci.match(/^README_TEST_CMD='npx --yes deno@([^ ]+) task test'$/m)?.[1];
  assert.ok(pin, ".ci/run names the pinned Deno");
  return pin;
}

interface Block {
  file: string;
  lang: string;
  body: string;
  first: string;
}

async function blocks(): Promise<Block[]> {
  const out: Block[] = [];
  for (const file of FILES) {
    const text = await Deno.readTextFile(new URL(file, root));
    for (const m of text.matchAll(/^( *)```(\w*)\n([\s\S]*?)^\1```/gm)) {
      const body = m[3]!.replace(new RegExp(`^${m[1]}`, "gm"), "");
      out.push({ file, lang: m[2]!, body, first: body.trim().split("\n")[0]!.trim() });
    }
  }
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  const seen = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    seen.add(
      m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-"),
    );
  }
  return seen;
}

Deno.test("docs: every link inside the repository resolves, and none leaves it", async () => {
  const rootPath = new URL(".", root).pathname;
  for (const file of FILES) {
    const text = await Deno.readTextFile(new URL(file, root));
    assert.doesNotMatch(text, /\.\.\/shared|SPEC\.md|DESIGN\.md/, `${file} points outside`);
    // Links outside code: drop fenced blocks and inline code first.
    const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^(https?:|mailto:)/.test(target)) continue;
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const resolved = path ? new URL(path, new URL(file, root)) : new URL(file, root);
      assert.ok(resolved.pathname.startsWith(rootPath), `${file}: ${target} leaves the repository`);
      const stat = await Deno.stat(resolved).catch(() => null);
      assert.ok(stat, `${file}: ${target} does not exist`);
      if (anchor && stat.isFile && resolved.pathname.endsWith(".md")) {
        const headings = anchors(await Deno.readTextFile(resolved));
        assert.ok(headings.has(anchor), `${file}: ${target} names no heading`);
      }
    }
  }
});

/** The largest image a doc may show: a screenshot of one window, not of a whole long page. */
const IMAGE_MAX_BYTES = 250 * 1024;

Deno.test("docs: every image shown exists, is a PNG with alt text under 250 KB; every image in docs/images/ is shown", async () => {
  const shown = new Set<string>();
  for (const file of FILES) {
    const text = await Deno.readTextFile(new URL(file, root));
    for (const [, alt, src] of text.matchAll(/!\[([^\]]*)\]\(([^)\s]+)\)/g)) {
      assert.ok(!/^[a-z]+:/i.test(src!), `${file}: ${src} is not in the repository`);
      assert.ok(alt!.trim().length >= 20, `${file}: ${src} needs alt text that says what it shows`);
      const url = new URL(src!, new URL(file, root));
      const bytes = await Deno.readFile(url).catch(() => null);
      assert.ok(bytes, `${file}: ${src} does not exist`);
      assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${src} is a PNG`);
      assert.ok(bytes.byteLength <= IMAGE_MAX_BYTES, `${src}: ${bytes.byteLength} bytes`);
      shown.add(url.pathname);
    }
  }
  assert.ok(shown.size > 0, "review.md shows the console");
  for (const entry of Deno.readDirSync(new URL("docs/images/", root))) {
    const path = new URL(`docs/images/${entry.name}`, root).pathname;
    assert.ok(shown.has(path), `docs/images/${entry.name} is shown by no doc`);
  }
});

Deno.test("docs: every command runs Deno through npx with the version CI pins, none bare", async () => {
  const pin = await pinnedDeno();
  for (const file of FILES) {
    const text = await Deno.readTextFile(new URL(file, root));
    for (const m of text.matchAll(/npx --yes deno@([^\s`]+)/g)) {
      assert.equal(m[1], pin, `${file}: npx --yes deno@${m[1]}`);
    }
    // A bare `deno` command in a block fails on a machine with only Node and npm.
    for (const block of (await blocks()).filter((b) => b.file === file && b.lang === "sh")) {
      for (const line of block.body.split("\n")) {
        assert.doesNotMatch(
          line,
          /^\s*deno (task|run|test|bench|check|cache|install|eval)\b/,
          file,
        );
      }
    }
  }
});

Deno.test("docs: every shell block a user may paste runs against the real service", async (t) => {
  const all = await blocks();
  const shell = all.filter((b) => b.lang === "sh");
  for (const first of Object.keys(NOT_RUN)) {
    assert.ok(shell.some((b) => b.first === first), `NOT_RUN lists a block that is gone: ${first}`);
  }
  const dir = await Deno.makeTempDir({ prefix: "dcfs-docs-" });
  await using _dir = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  await using service = await startService({ KV_PATH: `${dir}/kv.sqlite3` });
  const env = { BASE: service.baseUrl, KV_PATH: service.kvPath, NO_COLOR: "1" };
  // `deno`, and `npx --yes deno@<pin>` as a reader with only Node has it, whatever PATH the test
  // runs with: both are the Deno running the tests (CI runs the suite with that pinned Deno).
  const deno = JSON.stringify(Deno.execPath());
  const pin = await pinnedDeno();
  const prelude = `deno() { ${deno} "$@"; }
npx() {
  if [ "$1 $2" = "--yes deno@${pin}" ]; then shift 2; ${deno} "$@"; return; fi
  echo "npx $* is not the pinned Deno" >&2; return 1
}
`;
  // Blocks of one file run in order in one shell, as a reader pastes them one after another.
  for (const file of FILES) {
    const runnable = shell.filter((b) => b.file === file && !(b.first in NOT_RUN));
    if (!runnable.length) continue;
    await t.step(`${file}: ${runnable.length} block(s)`, async () => {
      const script = runnable.map((b) =>
        b.body.replaceAll("http://localhost:8000", service.baseUrl)
          // The review examples name requests that exist in the reader's store, not in this one.
          .split("\n").filter((line) =>
            !/review (show|approve|reject|erase|purge|disable-client|remove-staff) /.test(line)
          )
          .join("\n")
      ).join("\n");
      const out = await new Deno.Command("bash", {
        args: ["-euo", "pipefail", "-c", prelude + script],
        cwd: new URL(".", root).pathname,
        env,
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `${file}:\n${stderr}\n${stdout.slice(-2000)}`);
      assert.doesNotMatch(stdout, /"internal_error"|HTTP\/1\.1 5\d\d/, file);
      assert.ok(stdout.trim().length > 0, `${file}: the blocks printed nothing`);
    });
  }
});
