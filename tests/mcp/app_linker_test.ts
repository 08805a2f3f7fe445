/**
 * The linker of the quote builder's script (src/mcp/app/linker.ts) attacked with legal edits
 * of a script file: it must link exactly what JavaScript means or refuse with the file and
 * line, never serve a different script. And the shipped files link exactly as Deno's own
 * parser reads them: their comments on lines of their own, their imports and the `export` of
 * their declarations cut, nothing else.
 */

import assert from "node:assert/strict";
import { linkedScript } from "../../src/mcp/app/linker.ts";
import { SCRIPT_FILES } from "../../src/mcp/app/document.ts";

/** Files in a directory of their own, as the linker takes them (URLs), removed on dispose. */
function files(texts: Record<string, string>): { urls: string[] } & Disposable {
  const dir = Deno.makeTempDirSync();
  const urls = Object.entries(texts).map(([name, text]) => {
    Deno.writeTextFileSync(`${dir}/${name}`, text);
    return new URL(`file://${dir}/${name}`).href;
  });
  return { urls, [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }) };
}

function link(texts: Record<string, string>): string {
  using f = files(texts);
  return linkedScript(f.urls);
}

Deno.test("the linker keeps every literal whole and links what it knows", async (t) => {
  const cases: [string, Record<string, string>, string][] = [
    [
      "a line starting with // or /** inside a template literal is text",
      { "a.js": "export const a = `first\n// not a comment\n/** nor this */\nlast`;\n" },
      "const a = `first\n// not a comment\n/** nor this */\nlast`;\n",
    ],
    [
      "a string continued over lines, and a template's substitutions",
      {
        "a.js": 'const s = "a\\\n// b";\n' +
          "const t = `${s} ${`in ${'}'} // x`}\n  // y`; // beside code\n",
      },
      'const s = "a\\\n// b";\n' + "const t = `${s} ${`in ${'}'} // x`}\n  // y`; // beside code\n",
    ],
    [
      "regular expressions with quotes, backticks and slashes; divisions",
      { "a.js": "const r = /[`/]\"'\\//g.test(x) ? a / b : (c) / 2;\n// gone\nconst q = `ok`;\n" },
      "const r = /[`/]\"'\\//g.test(x) ? a / b : (c) / 2;\nconst q = `ok`;\n",
    ],
    [
      "divisions after a number, a postfix ++ and an index; a regex after a prefix --",
      { "a.js": 'const d = 1000 / 60 / a[0] / i++ / 2, s = "/";\nconst e = --n / 2 ? /"/ : 0;\n' },
      'const d = 1000 / 60 / a[0] / i++ / 2, s = "/";\nconst e = --n / 2 ? /"/ : 0;\n',
    ],
    [
      "a block comment holding /** */ ends at its first */",
      { "a.js": "/* outer\n/** inner */\nconst x = 1;\n  /* other */\n" },
      "const x = 1;\n",
    ],
    [
      "imports of earlier files, on one line or several; export keywords",
      {
        "a.js": "// @ts-check\nexport function f() {}\nexport async function g() {}\n",
        "b.js": 'import { f } from "./a.js";\nexport const c = 1;\nexport let d = 2;\n',
        "c.js": 'import {\n  c,\n  d,\n} from "./b.js";\nimport { g } from "./a.js";\n' +
          "const o = { import: 1, export: 2 };\no.export = f() ?? g() ?? c + d;\n",
      },
      "function f() {}\nasync function g() {}\nconst c = 1;\nlet d = 2;\n" +
      "const o = { import: 1, export: 2 };\no.export = f() ?? g() ?? c + d;\n",
    ],
  ];
  for (const [name, texts, expected] of cases) {
    await t.step(name, () => assert.equal(link(texts), expected));
  }
});

Deno.test("the linker refuses, with the file and line, what one script cannot hold", async (t) => {
  const b = { "b.js": "export function x() {}\nfunction hidden() {}\n" };
  const cases: [string, Record<string, string>, RegExp][] = [
    ["an alias", { ...b, "a.js": 'import { x as y } from "./b.js";\n' }, /a\.js:1: .*"x as y"/],
    ["a file not linked", { "a.js": 'import { z } from "./nowhere.js";\n' }, /not linked before/],
    [
      "a file linked after",
      { "a.js": 'import { x } from "./b.js";\n', ...b },
      /a\.js:1: .*not linked before/,
    ],
    ["a name not exported", { ...b, "a.js": 'import { hidden } from "./b.js";\n' }, /not export/],
    ["a default import", { ...b, "a.js": 'import x from "./b.js";\n' }, /another form/],
    ["a namespace import", { ...b, "a.js": 'import * as b from "./b.js";\n' }, /another form/],
    ["single quotes", { ...b, "a.js": "import { x } from './b.js';\n" }, /another form/],
    ["an outside module", { "a.js": 'import { x } from "https://cdn.example/x.js";\n' }, /form/],
    ["a dynamic import", { "a.js": 'const m = await import("./b.js");\n' }, /another form/],
    ["a dynamic import in a block", { "a.js": 'if (a) {\n  import("./b.js");\n}\n' }, /a\.js:2:/],
    ["import.meta", { "a.js": "const u = import.meta.url;\n" }, /another form/],
    ["an export list", { "a.js": "const a = 1;\nexport { a };\n" }, /a\.js:2: .*export/],
    ["a default export", { "a.js": "export default 1;\n" }, /another form/],
    ["a class export", { "a.js": "export class K {}\n" }, /another form/],
    ["a destructuring export", { "a.js": "export const { a } = o;\n" }, /another form/],
    ["a re-export", { ...b, "a.js": 'export * from "./b.js";\n' }, /another form/],
    ["an unterminated template", { "a.js": "const a = `x\n" }, /a\.js:1: .*template/],
    ["an unterminated string", { "a.js": "const a = 'x\n" }, /unterminated string/],
    ["an unterminated comment", { "a.js": "/* x\n" }, /unterminated comment/],
    ["a regex over a line", { "a.js": "const r = /x\n/;\n" }, /regular expression/],
    ["an unmatched brace", { "a.js": "function f() {\n" }, /unmatched/],
    ["an extra brace", { "a.js": "}\n" }, /unmatched/],
  ];
  for (const [name, texts, message] of cases) {
    await t.step(name, () => assert.throws(() => link(texts), message));
  }
});

/** Ranges of a file Deno's parser says the link cuts: own-line comments, imports, `export `. */
function cutsByParser(name: string, source: string): [number, number][] {
  const cuts: [number, number][] = [];
  const ownLine = ([from, to]: readonly [number, number]) => {
    const start = source.lastIndexOf("\n", from - 1) + 1;
    const end = source.indexOf("\n", to);
    const rest = source.slice(to, end < 0 ? source.length : end);
    if (source.slice(start, from).trim() === "" && rest.trim() === "") {
      cuts.push([start, end < 0 ? source.length : end + 1]);
    }
  };
  const plugin: Deno.lint.Plugin = {
    name: "link",
    rules: {
      cuts: {
        create: (context) => {
          for (const comment of context.sourceCode.getAllComments()) ownLine(comment.range);
          return {
            ImportDeclaration(node) {
              const end = source.indexOf("\n", node.range[1]);
              cuts.push([node.range[0], end + 1]);
            },
            ExportNamedDeclaration(node) {
              assert.ok(node.declaration, `${name}: an export of a declaration`);
              cuts.push([node.range[0], node.declaration.range[0]]);
            },
          };
        },
      },
    },
  };
  Deno.lint.runPlugin(plugin, name, source);
  return cuts.sort((a, b) => a[0] - b[0]);
}

Deno.test("the shipped script files link exactly as Deno's parser reads them", () => {
  let expected = "";
  for (const file of SCRIPT_FILES) {
    const source = Deno.readTextFileSync(new URL(`../../src/mcp/app/${file}`, import.meta.url));
    let from = 0;
    for (const [start, end] of cutsByParser(file, source)) {
      assert.ok(start >= from, `${file}: cuts apart`);
      expected += source.slice(from, start);
      from = end;
    }
    expected += source.slice(from);
  }
  assert.equal(linkedScript(SCRIPT_FILES), expected);
});
