/**
 * @module
 * The quote builder's HTML document: markup written here with the escaping template, the
 * script (`quote_builder.js`) and stylesheet (`quote_builder.css`) read from their own files
 * and inlined whole, since an MCP App is one document with no server of its own to load from.
 * Everything in it comes from the catalog, which is public: the services the form suggests,
 * the covered cities it suggests and the map (`map.ts`). No caller data, no outside URL.
 */

import type { Catalog } from "../../catalog/catalog.ts";
import { html, rawElementText } from "../../web/html.ts";
import { coverageMap } from "./map.ts";

function _file(name: string): string {
  return Deno.readTextFileSync(new URL(name, import.meta.url));
}

const _SCRIPT = _file("quote_builder.js");
const _STYLE = _file("quote_builder.css");

/** The whole document, as one string. */
export function quoteBuilderDocument(catalog: Catalog): string {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Quote builder</title>
        ${rawElementText("style", _STYLE)}
      </head>
      <body>
        <main>
          <header>
            <h1>Quote builder</h1>
            <p id="status" role="status" data-state="idle">Connecting to the chat…</p>
          </header>
          ${_form(catalog)}
          <div class="results">
            <section id="coverage" data-state="idle" aria-labelledby="coverage-title">
              <h2 id="coverage-title">Coverage</h2>
              <p id="coverage-summary" aria-live="polite">Enter a city to see whether it is covered.</p>
              <ul id="coverage-details"></ul>
            </section>
            <section id="estimate" data-state="idle" aria-labelledby="estimate-title">
              <h2 id="estimate-title">Estimate</h2>
              <p id="price" aria-live="polite">Choose a service to see a price.</p>
              <p id="estimate-basis"></p>
              <ul id="assumptions"></ul>
              <p id="estimate-terms" class="muted"></p>
              <ul id="issues"></ul>
            </section>
          </div>
          <figure>
            ${coverageMap(catalog)}
            <figcaption class="muted">
              Click a covered city to check it. Land is shaded where the GeoNames gazetteer (CC BY
              4.0) has towns.
            </figcaption>
          </figure>
          <div class="ask">
            <button id="ask" type="button" disabled aria-describedby="ask-hint ask-preview">
              Ask for a quote for this job
            </button>
            <p id="ask-hint" class="muted">
              Sends the message below to the chat as yours; the assistant prepares the request
              and asks for your contact details. Nothing is submitted from here.
            </p>
            <p id="ask-preview"></p>
            <p id="ask-status" role="status"></p>
          </div>
        </main>
        ${rawElementText("script", _SCRIPT, ' type="module"')}
      </body>
    </html>
  `.toString();
}

/** The job form: every field labelled; suggestions from the catalog. */
function _form(catalog: Catalog) {
  const services = catalog.services.map((s) =>
    html`<option value="${s.name}" data-id="${s.id}"></option>`
  );
  const cities = catalog.locations.map((l) => html`<option value="${l.city}"></option>`);
  return html`
    <form id="job" autocomplete="off">
      <div class="field wide">
        <label for="city">City</label>
        <input id="city" name="city" list="cities" maxlength="100" required spellcheck="false">
      </div>
      <div class="field">
        <label for="country">Country <span class="muted">(optional)</span></label>
        <input id="country" name="country" maxlength="60" spellcheck="false">
      </div>
      <div class="field wide">
        <label for="service">Service</label>
        <input id="service" name="service" list="services" maxlength="100" spellcheck="false"
          aria-describedby="service-hint">
        <span id="service-hint" class="muted hint">Empty: coverage only</span>
      </div>
      <div class="field">
        <label for="engineers">Engineers</label>
        <input id="engineers" name="engineers" type="number" inputmode="numeric" min="1" max="50">
      </div>
      <div class="field">
        <label for="hours">Hours each</label>
        <input id="hours" name="hours" type="number" inputmode="decimal" min="0.5" max="1000"
          step="0.5">
      </div>
      <div class="field">
        <label for="date">Start date <span class="muted">(site)</span></label>
        <input id="date" name="date" type="date">
      </div>
      <div class="field">
        <label for="time">Start time <span class="muted">(site)</span></label>
        <input id="time" name="time" type="time">
      </div>
      <div class="field">
        <label for="out-of-hours">Rate</label>
        <select id="out-of-hours" name="out_of_hours">
          <option value="">By start time</option>
          <option value="false">Business hours</option>
          <option value="true">Out of hours</option>
        </select>
      </div>
      <datalist id="services">${services}</datalist>
      <datalist id="cities">${cities}</datalist>
    </form>
  `;
}
