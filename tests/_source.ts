/**
 * @module
 * Reading the source as a syntax tree, for the layout test: every function with its
 * length in lines, and every export with the modules that import it. The parser is Deno's
 * own (`Deno.lint.runPlugin`, available under `deno test`), so no parser is a dependency.
 */

import { dirname, join, normalize } from "node:path";

/** A function, method or arrow in a file, with the lines it spans (its first to its last). */
export interface FunctionSpan {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** What one module exports and what it imports from other modules (by resolved path). */
export interface ModuleSurface {
  file: string;
  exports: string[];
  /** Names imported or re-exported from each module; "*" for `export *`. */
  uses: Map<string, Set<string>>;
}

/** Every file under `dir` (recursively), as paths relative to the repository root, sorted. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out.sort();
}

type Node = Deno.lint.Node & { parent?: Node; [key: string]: unknown };

/** Runs `visitors` over the syntax tree of `text` (named `file`, which decides TS or JS). */
function _walk(file: string, text: string, visitors: Record<string, (node: Node) => void>): void {
  const plugin: Deno.lint.Plugin = {
    name: "source",
    rules: { walk: { create: () => visitors as Deno.lint.LintVisitor } },
  };
  Deno.lint.runPlugin(plugin, file, text);
}

/** The name a reader calls a function by: its own, its variable's, its property's, or "(anonymous)". */
function _functionName(node: Node): string {
  const id = node.id as { name?: string } | null | undefined;
  if (id?.name) return id.name;
  const parent = node.parent;
  const key = (parent?.key ?? parent?.id) as { name?: string; value?: string } | undefined;
  if (
    parent && (parent.type === "VariableDeclarator" || parent.type === "Property" ||
      parent.type === "MethodDefinition" || parent.type === "PropertyDefinition")
  ) return key?.name ?? String(key?.value ?? "(anonymous)");
  return "(anonymous)";
}

/** Every function of `file`, nested ones included, each spanning its whole text. */
export function functionSpans(file: string, text = Deno.readTextFileSync(file)): FunctionSpan[] {
  const spans: FunctionSpan[] = [];
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
  const visit = (node: Node) => {
    const [start, end] = node.range;
    const line = lineOf(start);
    spans.push({ file, name: _functionName(node), line, lines: lineOf(end) - line + 1 });
  };
  _walk(file, text, {
    FunctionDeclaration: visit,
    FunctionExpression: visit,
    ArrowFunctionExpression: visit,
  });
  return spans;
}

/** Resolves a relative import of `from` to a path like those of {@linkcode filesUnder}. */
function _resolve(from: string, specifier: string): string | undefined {
  return specifier.startsWith(".") ? normalize(join(dirname(from), specifier)) : undefined;
}

/** The exports of `file` and the names it takes from each module it imports. */
export function moduleSurface(file: string, text = Deno.readTextFileSync(file)): ModuleSurface {
  const exports: string[] = [];
  const uses = new Map<string, Set<string>>();
  const use = (source: unknown, name: string) => {
    const target = _resolve(file, String(source));
    if (target) uses.set(target, (uses.get(target) ?? new Set()).add(name));
  };
  const namespaces = new Map<string, string>();
  type Named = { name?: string; value?: string };
  const nameOf = (n: unknown) => (n as Named).name ?? String((n as Named).value);
  _walk(file, text, {
    ImportDeclaration(node) {
      for (const s of node.specifiers as Node[]) {
        if (s.type === "ImportSpecifier") {
          use(node.source && (node.source as Named).value, nameOf(s.imported));
        } else if (s.type === "ImportDefaultSpecifier") {
          use((node.source as Named).value, "default");
        } else namespaces.set(nameOf(s.local), String((node.source as Named).value));
      }
    },
    ExportNamedDeclaration(node) {
      const source = (node.source as Named | null)?.value;
      for (const s of node.specifiers as Node[]) {
        if (source !== undefined) use(source, nameOf(s.local));
        exports.push(nameOf(s.exported));
      }
      const declaration = node.declaration as Node | null;
      if (!declaration) return;
      if (declaration.type === "VariableDeclaration") {
        for (const d of declaration.declarations as Node[]) exports.push(nameOf(d.id));
      } else exports.push(nameOf(declaration.id));
    },
    ExportDefaultDeclaration() {
      exports.push("default");
    },
    ExportAllDeclaration(node) {
      use((node.source as Named).value, "*");
    },
    MemberExpression(node) {
      const object = node.object as Node;
      if (object.type !== "Identifier") return;
      const source = namespaces.get(nameOf(object));
      if (source !== undefined && !node.computed) use(source, nameOf(node.property));
    },
    ImportExpression(node) {
      // import("./x.ts"): a dynamic import uses the whole module.
      const source = node.source as Node;
      if (source.type === "Literal") use(source.value, "*");
    },
  });
  return { file, exports, uses };
}

/**
 * The exports of `modules` that no other file of `users` imports, as `file: name`.
 * Names a module re-exports count as its own exports and as uses of the module they
 * come from.
 */
export function unusedExports(modules: readonly string[], users: readonly string[]): string[] {
  const surfaces = new Map(
    [...new Set([...modules, ...users])].map((f) => [f, moduleSurface(f)] as const),
  );
  const used = new Map<string, Set<string>>();
  for (const surface of surfaces.values()) {
    for (const [target, names] of surface.uses) {
      if (target === surface.file) continue;
      used.set(target, new Set([...used.get(target) ?? [], ...names]));
    }
  }
  const unused: string[] = [];
  for (const file of modules) {
    const names = used.get(file) ?? new Set();
    if (names.has("*")) continue;
    for (const name of surfaces.get(file)!.exports) {
      if (!names.has(name)) unused.push(`${file}: ${name}`);
    }
  }
  return unused;
}

/** The first string of every array literal of `file` that starts with one, such as `["clients", id]`. */
export function arrayLiteralHeads(file: string, text = Deno.readTextFileSync(file)): string[] {
  const heads: string[] = [];
  _walk(file, text, {
    ArrayExpression(node) {
      const first = (node.elements as (Node | null)[])[0];
      if (first?.type === "Literal" && typeof first.value === "string") heads.push(first.value);
    },
  });
  return heads;
}

/** A call whose callee is a chain of names, such as `Deno.openKv(…)` or `ctx.kv.get(…)`. */
export interface MemberCall {
  file: string;
  /** The callee as written, its parts joined by dots: `ctx.kv.get`. */
  callee: string;
  line: number;
}

/** Every call of `file` whose callee is a member chain of plain names (`a.b.c(…)`). */
export function memberCalls(file: string, text = Deno.readTextFileSync(file)): MemberCall[] {
  const calls: MemberCall[] = [];
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
  const chain = (node: Node): string | undefined => {
    if (node.type === "Identifier") return String((node as { name?: string }).name);
    if (node.type === "ThisExpression") return "this";
    if (node.type !== "MemberExpression" || node.computed) return undefined;
    const head = chain(node.object as Node);
    const name = (node.property as { name?: string }).name;
    return head === undefined || name === undefined ? undefined : `${head}.${name}`;
  };
  _walk(file, text, {
    CallExpression(node) {
      const callee = node.callee as Node;
      if (callee.type !== "MemberExpression") return;
      const name = chain(callee);
      if (name !== undefined) calls.push({ file, callee: name, line: lineOf(node.range[0]) });
    },
  });
  return calls;
}
