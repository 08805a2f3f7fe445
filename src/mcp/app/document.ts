/**
 * @module
 * The quote builder's HTML document: markup written here with the escaping template, the
 * script (`quote_builder.js`) and stylesheet (`quote_builder.css`) read from their own files
 * and inlined, since an MCP App is one document with no server of its own to load from.
 * Everything in it comes from the catalog, which is public: no caller data.
 */

import type { Catalog } from "../../catalog/catalog.ts";
import { html, rawElementText } from "../../web/html.ts";

function _file(name: string): string {
  return Deno.readTextFileSync(new URL(name, import.meta.url));
}

const _SCRIPT = _file("quote_builder.js");
const _STYLE = _file("quote_builder.css");

/** The whole document, as one string. */
export function quoteBuilderDocument(catalog: Catalog): string {
  const services = catalog.services.map((s) => html`<option value="${s.name}"></option>`);
  return html`
    <!doctype html>
    <html lang="en">
      <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Quote builder</title>
    ${rawElementText("style", _STYLE)}
      </head>
      <body>
    <main>
    <h1>Field services quote builder</h1>
    <form id="job" autocomplete="off">
    <label>City <input id="city" name="city" maxlength="120"></label>
    <label>Country <input id="country" name="country" maxlength="60"></label>
    <label>Service <input id="service" name="service" list="services" maxlength="120"></label>
    <datalist id="services">${services}</datalist>
    <label>Engineers <input id="engineers" name="engineers" type="number" min="1" max="20"></label>
    <label>Hours <input id="hours" name="hours" type="number" min="1" max="200"></label>
    </form>
    <section id="coverage" aria-live="polite"></section>
    <section id="estimate" aria-live="polite"></section>
    <p id="status" role="status"></p>
    </main>
    ${rawElementText("script", _SCRIPT, ' type="module"')}
      </body>
    </html>
  `.toString();
}
