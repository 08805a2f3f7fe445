/**
 * @module
 * The quote builder's script modules linked into the one inline module script its document
 * can hold (an inline script can import nothing): each file's imports of the files linked
 * before it are dropped, the `export` of its declarations removed (its names are then the
 * one module's), and its comments on lines of their own left out (a fifth of the bytes).
 * A small scanner reads each file as JavaScript does: comments, strings, template literals
 * with their substitutions and regular expressions, so a line starting with `//` inside a
 * template stays text. Anything it does not know for certain stops the build with the file
 * and line: an import other than `import { names } from "./earlier.js";` of names that file
 * exports, an export other than of a function, `const` or `let` declaration at the top
 * level, a dynamic import or `import.meta`, an unterminated comment, string, template or
 * regular expression, an unmatched brace.
 */

/** A part of a file the link leaves out. */
interface Cut {
  from: number;
  to: number;
}

/** What the link knows of the files before: each one's names, by its URL. */
type Exports = Map<string, Set<string>>;

const _IMPORT = /import[ \t]*\{([^}]*)\}[ \t]*from[ \t]*"(\.\/[a-z_]+\.js)";[ \t]*(?:\n|$)/y;
const _EXPORT = /export (?:(?:async )?function\*? ?|const |let )([A-Za-z_$][\w$]*)/y;
const _NAME = /^[A-Za-z_$][\w$]*$/;
const _WORD = /[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*/uy;
/** Words after which a `/` starts a regular expression, not a division. */
const _BEFORE_REGEX = new Set(
  "return typeof instanceof in of new delete void throw case do else yield await".split(" "),
);

function _read(url: URL): string {
  return Deno.readTextFileSync(url);
}

/** Throws for what the link does not know, naming the file and line of `at`. */
type Fail = (why: string, at: number) => never;

/** The files (names relative to this module, or URLs) as one script, in the order given. */
export function linkedScript(files: readonly string[]): string {
  const exports: Exports = new Map();
  return files.map((name) => {
    const url = new URL(name, import.meta.url);
    const source = _read(url);
    const fail: Fail = (why, at) => {
      const line = source.slice(0, at).split("\n").length;
      throw new Error(`${url.pathname}:${line}: cannot link ${why}`);
    };
    const names = new Set<string>();
    const cuts = _scan(
      source,
      fail,
      (word, at) => _link(word, at, source, url, exports, names, fail),
    );
    exports.set(url.href, names);
    return _apply(source, cuts);
  }).join("");
}

function _apply(source: string, cuts: Cut[]): string {
  let out = "";
  let from = 0;
  for (const cut of cuts.sort((a, b) => a.from - b.from)) {
    out += source.slice(from, cut.from);
    from = cut.to;
  }
  return out + source.slice(from);
}

/**
 * An `import` or `export` met at the top level: the cut that links it (scanning goes on at
 * its end). Throws for anything but the two forms the link knows.
 */
function _link(
  word: "import" | "export",
  at: number,
  source: string,
  url: URL,
  exports: Exports,
  names: Set<string>,
  fail: Fail,
): Cut {
  const pattern = word === "import" ? _IMPORT : _EXPORT;
  pattern.lastIndex = at;
  const m = pattern.exec(source) ?? fail(`an ${word} of another form`, at);
  if (word === "export") {
    names.add(m[1]!);
    return { from: at, to: at + "export ".length };
  }
  const known = exports.get(new URL(m[2]!, url).href) ??
    fail(`an import of ${m[2]}, not linked before this file`, at);
  for (const name of m[1]!.split(",").map((n) => n.trim()).filter(Boolean)) {
    if (!_NAME.test(name)) fail(`an import as "${name}"`, at);
    if (!known.has(name)) fail(`an import of ${name}, which ${m[2]} does not export`, at);
  }
  return { from: at, to: at + m[0].length };
}

/**
 * The cuts of one file: its comments on lines of their own, and what `link` says of each
 * `import` and `export` at the top level.
 */
function _scan(source: string, fail: Fail, link: (word: "import" | "export", at: number) => Cut) {
  const cuts: Cut[] = [];
  // Brace depth of each code context: the file's, then one per open template substitution.
  const depths = [0];
  let regexAllowed = true;
  let last = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "/" && (source[i + 1] === "/" || source[i + 1] === "*")) {
      const end = source[i + 1] === "/" ? _lineEnd(source, i) : source.indexOf("*/", i + 2) + 2;
      if (end < 2) fail("an unterminated comment", i);
      _ownLine(source, i, end, cuts);
      i = end;
    } else if (c === "'" || c === '"') {
      [i, regexAllowed, last] = [_string(source, i, fail), false, c];
    } else if (c === "`" || (c === "}" && depths.length > 1 && depths.at(-1) === 0)) {
      if (c === "}") depths.pop();
      i = _templateText(source, i + 1, fail);
      if (source[i - 1] === "{") depths.push(0);
      [regexAllowed, last] = [source[i - 1] === "{", source[i - 1]!];
    } else if (c === "/" && regexAllowed) {
      [i, regexAllowed, last] = [_regex(source, i, fail), false, "/"];
    } else if (/\s/.test(c)) {
      i++;
    } else {
      _WORD.lastIndex = i;
      const word = _WORD.exec(source)?.[0];
      if (word === undefined) {
        if (c === "{") depths[depths.length - 1]!++;
        if (c === "}" && depths[depths.length - 1]!-- === 0) fail("an unmatched }", i);
        // `++` and `--` leave a `/` after them as it was (after a value, a division); a
        // digit, `)` and `]` end a value; any other sign starts an expression.
        const step = (c === "+" || c === "-") && source[i + 1] === c ? 2 : 1;
        if (step === 1) regexAllowed = !/[\w)\]]/.test(c);
        [i, last] = [i + step, c];
      } else if ((word === "import" || word === "export") && _keyword(source, i, last)) {
        if (depths.length > 1 || depths[0] !== 0) fail(`an ${word} inside a block`, i);
        const cut = link(word, i);
        cuts.push(cut);
        [i, regexAllowed, last] = [cut.to, true, ";"];
      } else {
        [i, regexAllowed, last] = [i + word.length, _BEFORE_REGEX.has(word), word.at(-1)!];
      }
    }
  }
  if (depths.length > 1 || depths[0] !== 0) fail("an unmatched { or ${", source.length);
  return cuts;
}

/** Whether `import` or `export` at `at` is the keyword, not a property's name. */
function _keyword(source: string, at: number, last: string): boolean {
  return last !== "." && !/^[ \t]*:/.test(source.slice(at + 6, at + 16));
}

function _lineEnd(source: string, from: number): number {
  const end = source.indexOf("\n", from);
  return end < 0 ? source.length : end;
}

/** A comment alone on its line(s) is cut with its line; one beside code stays. */
function _ownLine(source: string, from: number, to: number, cuts: Cut[]): void {
  const start = source.lastIndexOf("\n", from - 1) + 1;
  if (source.slice(start, from).trim() !== "") return;
  const end = _lineEnd(source, to);
  if (source.slice(to, end).trim() !== "") return;
  cuts.push({ from: start, to: Math.min(end + 1, source.length) });
}

/** The end of a quoted string starting at `from`; a string ends on its line. */
function _string(source: string, from: number, fail: Fail): number {
  const quote = source[from];
  for (let i = from + 1; i < source.length && source[i] !== "\n"; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === quote) return i + 1;
  }
  return fail("an unterminated string", from);
}

/** From inside a template's text: the index after its closing `` ` `` or its next `${`. */
function _templateText(source: string, from: number, fail: Fail): number {
  for (let i = from; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "`") return i + 1;
    else if (source[i] === "$" && source[i + 1] === "{") return i + 2;
  }
  return fail("an unterminated template literal", from);
}

/** The end of a regular expression literal starting at `from`, its flags included. */
function _regex(source: string, from: number, fail: Fail): number {
  let inClass = false;
  for (let i = from + 1; i < source.length && source[i] !== "\n"; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "[") inClass = true;
    else if (source[i] === "]") inClass = false;
    else if (source[i] === "/" && !inClass) {
      let end = i + 1;
      while (/[a-z]/.test(source[end] ?? "")) end++;
      return end;
    }
  }
  return fail("a regular expression that does not end on its line", from);
}
