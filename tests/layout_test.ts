/**
 * The layout of `src/` as docs/architecture.md promises it: no import cycle (type-only
 * imports included), a code map that names every file and only files that exist, a key
 * table that names every key prefix, feature folders with at most six files beside them,
 * no module over 400 lines (the app's inline script aside), entry points that only wire
 * (main.ts and app.ts kept short), no function over 80 (declarative tables aside), and no
 * export that nothing outside its module uses.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { arrayLiteralHeads, filesUnder, functionSpans, unusedExports } from "./_source.ts";

const SRC = "src";
const KEYS = "src/store/keys.ts";
const MAX_LINES = 400;
const MAX_FUNCTION_LINES = 80;
/**
 * Functions that are declarative tables, allowed to be longer: data a reader scans, not
 * steps to follow (STYLE.md, "A function fits on a screen").
 */
const TABLES: Readonly<Record<string, string>> = {
  "src/openapi/operations/public.ts publicOperations": "the Public tag's operations",
  "src/openapi/operations/oauth.ts oauthOperations": "the OAuth tag's operations",
  "src/openapi/operations/mcp.ts mcpOperations": "the MCP tag's operations",
};
const MAX_TOP_FILES = 6;
/**
 * The entry points only wire (STYLE.md, "The entry point only wires"): what they do beyond
 * that belongs in a module whose name says so.
 */
const ENTRY_POINTS: Readonly<Record<string, number>> = { "src/main.ts": 120, "src/app.ts": 160 };
/**
 * Modules allowed to be longer: one thing a length limit would split (STYLE.md, "A size
 * rule never forces a tool").
 */
const LONG_MODULES: Readonly<Record<string, string>> = {
  "src/mcp/app/quote_builder.js":
    "the MCP App's script, inlined whole into its one HTML document, where a script can import nothing",
};

const _IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;"'`]*?(?:from\s*)?["'](\.{1,2}\/[^"']+)["']/g;
const _DYNAMIC = /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/**
 * The relative imports of every module under `src/`, type-only ones included: the
 * module graph as a reader sees it, not only what survives type erasure.
 */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    if (!/\.(ts|js)$/.test(file)) continue;
    const text = Deno.readTextFileSync(file);
    const targets = new Set<string>();
    for (const re of [_IMPORT, _DYNAMIC]) {
      for (const m of text.matchAll(re)) {
        const target = normalize(join(dirname(file), m[1]!));
        if (/\.(ts|js)$/.test(target)) targets.add(target);
      }
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Every cycle of `graph` found by a depth-first walk, each as the path that closes it. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The first part of every key and list range that `keys.ts` builds, such as `clients`. */
function keyPrefixes(source: string): string[] {
  return [...new Set([...source.matchAll(/\[\s*"([a-z_]+)"/g)].map((m) => m[1]!))];
}

/** The files the code map names: each `name` in the tree, with its folders prefixed. */
export function codeMapFiles(markdown: string): string[] {
  const block = markdown.match(/```text\n(src\/\n[\s\S]*?)```/);
  if (!block) throw new Error("docs/architecture.md has no ```text code map starting at src/");
  const out: string[] = [];
  const folders: string[] = [];
  for (const line of block[1]!.split("\n")) {
    const m = line.match(/^( *)(\S+)/);
    if (!m) continue;
    const depth = m[1]!.length / 2;
    const name = m[2]!;
    folders.length = depth;
    if (name.endsWith("/")) folders.push(name.slice(0, -1));
    else out.push([...folders, name].join("/"));
  }
  return out.sort();
}

Deno.test("src/ has no import cycle, type-only imports included", () => {
  const cycles = findCycles(importGraph(filesUnder(SRC)));
  assert.deepEqual(cycles.map((c) => c.join(" → ")), []);
});

Deno.test("http/, store/ and telemetry/ are layers: they import no feature", () => {
  const layers = ["src/http/", "src/store/", "src/telemetry/"];
  const shared = [...layers, "src/config.ts", "src/time.ts"];
  // Types of what a record holds (a scope, an estimate) are the one exception in store/.
  const recordTypes = ["src/oauth/scopes.ts", "src/pricing/budget.ts"];
  const crossings: string[] = [];
  for (const [file, targets] of importGraph(filesUnder(SRC))) {
    if (!layers.some((l) => file.startsWith(l))) continue;
    for (const target of targets) {
      if (shared.some((s) => target.startsWith(s))) continue;
      if (file.startsWith("src/store/") && recordTypes.includes(target)) continue;
      crossings.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(crossings, []);
});

Deno.test("no module but store/keys.ts builds a KV key or a list range", () => {
  const names = keyPrefixes(Deno.readTextFileSync(KEYS));
  assert.ok(names.length >= 10, `key prefixes read from ${KEYS}: ${names.join(", ")}`);
  const outside = filesUnder(SRC).filter((f) => /\.ts$/.test(f) && f !== KEYS)
    .flatMap((f) => arrayLiteralHeads(f).filter((h) => names.includes(h)).map((h) => `${f}: ${h}`));
  assert.deepEqual(outside, []);
});

Deno.test("docs/architecture.md's key table names every key prefix of store/keys.ts", () => {
  const built = keyPrefixes(Deno.readTextFileSync(KEYS));
  const table = Deno.readTextFileSync("docs/architecture.md").match(
    /\*\*KV keys\*\*[\s\S]*?\n\n(\|[\s\S]*?)\n\n/,
  );
  assert.ok(table, "docs/architecture.md has a **KV keys** table");
  const documented = [...new Set([...table[1]!.matchAll(/`\["([a-z_]+)"/g)].map((m) => m[1]!))];
  assert.deepEqual(documented.sort(), built.sort());
});

Deno.test("the cycle finder finds a cycle through a type-only import", () => {
  const graph = new Map([
    ["src/a.ts", ["src/b.ts"]],
    ["src/b.ts", ["src/c.ts"]],
    ["src/c.ts", ["src/a.ts"]],
    ["src/d.ts", ["src/a.ts"]],
  ]);
  assert.deepEqual(findCycles(graph), [["src/a.ts", "src/b.ts", "src/c.ts", "src/a.ts"]]);
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/a.ts`, 'import type { B } from "./b.ts";\nexport type A = 1;\n');
    Deno.writeTextFileSync(`${dir}/b.ts`, 'export type { A } from "./a.ts";\nexport type B = 2;\n');
    const files = [`${dir}/a.ts`, `${dir}/b.ts`];
    assert.equal(findCycles(importGraph(files)).length, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("docs/architecture.md names every file under src/, and only files that exist", () => {
  const mapped = codeMapFiles(Deno.readTextFileSync("docs/architecture.md"));
  const actual = filesUnder(SRC).map((f) => relative(".", f));
  assert.deepEqual(
    { missing_from_map: actual.filter((f) => !mapped.includes(f)) },
    { missing_from_map: [] },
  );
  assert.deepEqual({ not_a_file: mapped.filter((f) => !actual.includes(f)) }, { not_a_file: [] });
});

Deno.test("the code map reader sees folders and files at their depth", () => {
  const md = "```text\nsrc/\n  app.ts  the handler\n  http/\n    router.ts  routes\n" +
    "  web/\n    home.html  page\n  main.ts  entry\n```\n";
  assert.deepEqual(codeMapFiles(md), [
    "src/app.ts",
    "src/http/router.ts",
    "src/main.ts",
    "src/web/home.html",
  ]);
});

Deno.test(`src/ holds feature folders and at most ${MAX_TOP_FILES} files`, () => {
  const top = [...Deno.readDirSync(SRC)].filter((e) => e.isFile).map((e) => e.name).sort();
  assert.ok(top.length <= MAX_TOP_FILES, `files at the top of src/: ${top.join(", ")}`);
});

Deno.test(`no module under src/ is over ${MAX_LINES} lines, the named exceptions aside`, () => {
  const sizes = filesUnder(SRC).filter((f) => /\.(ts|js)$/.test(f))
    .map((f) => ({ file: f, lines: Deno.readTextFileSync(f).split("\n").length - 1 }));
  assert.deepEqual(sizes.filter((f) => f.lines > MAX_LINES && !(f.file in LONG_MODULES)), []);
  const stale = Object.keys(LONG_MODULES)
    .filter((id) => !sizes.some((f) => f.file === id && f.lines > MAX_LINES));
  assert.deepEqual({ stale_exceptions: stale }, { stale_exceptions: [] });
});

Deno.test("the entry points only wire: main.ts at most 120 lines, app.ts at most 160", () => {
  const over = Object.entries(ENTRY_POINTS)
    .map(([file, max]) => ({
      file,
      max,
      lines: Deno.readTextFileSync(file).split("\n").length - 1,
    }))
    .filter((f) => f.lines > f.max);
  assert.deepEqual(over, []);
});

Deno.test(`no function under src/ is over ${MAX_FUNCTION_LINES} lines, declarative tables aside`, () => {
  const long = filesUnder(SRC).filter((f) => /\.(ts|js)$/.test(f))
    .flatMap((f) => functionSpans(f))
    .filter((fn) => fn.lines > MAX_FUNCTION_LINES && !(`${fn.file} ${fn.name}` in TABLES))
    .map((fn) => `${fn.file}:${fn.line} ${fn.name} (${fn.lines} lines)`);
  assert.deepEqual(long, []);
});

Deno.test("every declarative table named as an exception is still long, and still there", () => {
  const spans = filesUnder(SRC).filter((f) => /\.(ts|js)$/.test(f)).flatMap((f) =>
    functionSpans(f)
  );
  const stale = Object.keys(TABLES).filter((id) =>
    !spans.some((fn) => `${fn.file} ${fn.name}` === id && fn.lines > MAX_FUNCTION_LINES)
  );
  assert.deepEqual(stale, []);
});

Deno.test("every export of src/ is used outside its module (tests and bench count)", () => {
  const modules = filesUnder(SRC).filter((f) => /\.(ts|js)$/.test(f));
  const users = [...filesUnder("tests"), ...filesUnder("bench")]
    .filter((f) => /\.ts$/.test(f) && !f.startsWith("bench/peer/"));
  assert.deepEqual(unusedExports(modules, [...modules, ...users]), []);
});

Deno.test("the source reader measures functions and finds unused exports", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const a = `${dir}/a.ts`;
    const b = `${dir}/b.ts`;
    Deno.writeTextFileSync(
      a,
      "export function used() {\n  return 1;\n}\nexport const unused = () => 2;\n" +
        "export type Shape = { x: number };\n",
    );
    Deno.writeTextFileSync(b, 'import { used } from "./a.ts";\nexport default used();\n');
    assert.deepEqual(
      functionSpans(a).map((f) => [f.name, f.lines]),
      [["used", 3], ["unused", 1]],
    );
    assert.deepEqual(unusedExports([a], [a, b]), [`${a}: unused`, `${a}: Shape`]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
