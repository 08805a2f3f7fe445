/**
 * @module
 * HTML safe by construction, for every document the service renders: the home page, the
 * staff console and the MCP App. {@linkcode escapeHtml} is the one escaping of text for an
 * element's content or a quoted attribute. {@linkcode html} is a tagged template that
 * escapes every value it is given unless the value is already {@linkcode Html} (made by
 * another `html` template), so text from a caller can only reach a page as a value, always
 * text, never markup. {@linkcode rawElementText} is the one way to put a file's script or
 * stylesheet inside a `<script>` or `<style>` element, refused if it could end the element.
 */

/**
 * Text escaped for an element's content or a quoted attribute, with named entities.
 */
export function escapeHtml(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => _ENTITIES[c]!);
}

const _ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Markup known to be safe: only {@linkcode html} and {@linkcode rawElementText} make it. */
export class Html {
  readonly #text: string;
  private constructor(text: string) {
    this.#text = text;
  }
  /** Only this module calls it, from a template it escaped or text it checked. */
  static _trusted(text: string): Html {
    return new Html(text);
  }
  toString(): string {
    return this.#text;
  }
}

/**
 * The template tag: `html\`<p>${text}</p>\``. A value that is `Html` goes in as it is; an
 * array goes in item by item; `null`, `undefined` and `false` go in as nothing; anything else
 * goes in escaped.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += _value(values[i]) + strings[i + 1]!;
  return Html._trusted(out);
}

function _value(value: unknown): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(_value).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * A `<script>` or `<style>` element around the text of one of the service's own files. Such
 * an element's content is not escaped by the browser, so text that could close it early
 * (`</script`, `</style`) or open a comment the parser treats specially (`<!--`) is refused
 * with an Error when the document is built, never served.
 */
export function rawElementText(tag: "script" | "style", text: string, attributes = ""): Html {
  const lower = text.toLowerCase();
  if (lower.includes(`</${tag}`) || lower.includes("<!--")) {
    throw new Error(`<${tag}> text holds "</${tag}" or "<!--": it would end the element early`);
  }
  if (!/^(?: [a-z-]+="[^"<>]*")*$/.test(attributes)) {
    throw new Error(`<${tag}> attributes must be written as ' name="value"'`);
  }
  return Html._trusted(`<${tag}${attributes}>${text}</${tag}>`);
}
