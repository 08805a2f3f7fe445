/**
 * @module
 * The home page for people and browser agents (WebMCP): one HTML page, one script (the
 * module `app.js` and the modules it imports) and one stylesheet, served with a strict CSP
 * ('self' only). The files live in `src/web/` as what they are (`home.html`, `*.js` with
 * `// @ts-check`, `styles.css`), so `deno lint`, `deno check` and `deno fmt` see them, and
 * read once when this module loads. They are read, not imported as text: text imports need
 * `--unstable-raw-imports`, which Deno Deploy cannot pass (docs/operations.md, "Deno Deploy").
 *
 * The page is rendered once per catalog: the catalog, the covered cities and the
 * choices of the forms are written into the HTML, so it is useful with JavaScript off.
 * The script only enhances it (the coverage check and the forms, WebMCP).
 */

import { countryName } from "../catalog/regions.ts";
import { type StaticDocument, staticDocument } from "../http/static_document.ts";
import { CACHE_CONTROL } from "../http/json.ts";
import { inWords, money, reviewTime, STATUS_WORDS } from "./words.js";
import type { Catalog } from "../catalog/catalog.ts";
import type { Config } from "../config.ts";
import { PATHS } from "../http/paths.ts";
import type { Location, Service } from "../catalog/records.ts";
import { BUSINESS_HOURS } from "../pricing/work_span.ts";
import { TOOLS } from "../mcp/tools.ts";
import { type FieldIssue, HttpError } from "../http/errors.ts";
import type { SubmissionKind } from "../store/submissions.ts";
import type { SubmissionResult } from "../intake/answer.ts";
import type { Params } from "../http/router.ts";
import { escapeHtml } from "./html.ts";

/** Only same-origin resources; no inline script or style, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const _JS = "text/javascript; charset=utf-8";

/** A file beside this module, as text. */
function _file(name: string): string {
  return Deno.readTextFileSync(new URL(name, import.meta.url));
}

const HOME_HTML = _file("home.html");
const RESULT_HTML = _file("result.html");

/** The files under /assets/: the script is app.js and the modules it imports. */
const _FILES = Object.entries({
  "app.js": { body: _file("app.js"), type: _JS },
  "styles.css": { body: _file("styles.css"), type: "text/css; charset=utf-8" },
  "words.js": { body: _file("words.js"), type: _JS },
  "api.js": { body: _file("api.js"), type: _JS },
  "coverage.js": { body: _file("coverage.js"), type: _JS },
  "dom.js": { body: _file("dom.js"), type: _JS },
  "forms.js": { body: _file("forms.js"), type: _JS },
  "notices.js": { body: _file("notices.js"), type: _JS },
  "webmcp.js": { body: _file("webmcp.js"), type: _JS },
  "favicon.svg": { body: _file("favicon.svg"), type: "image/svg+xml" },
});

/**
 * Each asset's answer, compressed once per encoding (http/compression.ts). A Map, not an
 * object: a caller's name is looked up, and `toString` or `constructor` must not find what
 * every object inherits.
 */
const _ASSETS = new Map(_FILES.map(([name, { body, type }]) => [
  name,
  staticDocument(body, {
    "Content-Type": type,
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Cache-Control": CACHE_CONTROL.public,
  }),
]));

const _PAGE_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "Cache-Control": CACHE_CONTROL.public,
  // Not no-referrer: under it a browser sends `Origin: null` with the page's own form
  // posts, which the origin rule must refuse. same-origin sends nothing to other sites.
  "Referrer-Policy": "same-origin",
};

/**
 * Each catalog's page at each base URL, rendered when first needed (neither changes while
 * a handler runs) and compressed once per encoding.
 */
const _rendered = new WeakMap<Catalog, Map<string, StaticDocument>>();

/** The home page of `catalog` at `baseUrl`, rendered once. */
function _homeDocument(catalog: Catalog, baseUrl: string): StaticDocument {
  const pages = _rendered.get(catalog) ?? new Map<string, StaticDocument>();
  _rendered.set(catalog, pages);
  let page = pages.get(baseUrl);
  if (page === undefined) {
    pages.set(baseUrl, page = staticDocument(() => renderHome(catalog, baseUrl), _PAGE_HEADERS));
  }
  return page;
}

/** `GET /`: the home page, rendered from the request's catalog and base URL. */
export function homePage(req: Request, ctx: { catalog: Catalog; config: Config }): Response {
  return _homeDocument(ctx.catalog, ctx.config.baseUrl)(req);
}

/** The home page at `baseUrl` and its files, for `prepareDocuments` (http/static_document.ts) at start. */
export function webDocuments(catalog: Catalog, baseUrl: string): StaticDocument[] {
  return [_homeDocument(catalog, baseUrl), ..._ASSETS.values()];
}

/** `GET /assets/:name`: the page's script, stylesheet and icon. */
export function webAsset(req: Request, _ctx: unknown, params: Params): Response {
  const asset = _ASSETS.get(params.name ?? "");
  if (!asset) throw new HttpError(404, "not_found", "no such asset");
  return asset(req);
}

/**
 * The home page with its slots (`<!-- slot:name -->` in home.html) filled from the
 * catalog. Throws when the file and the slots disagree, so a renamed slot fails at
 * start-up, not as a page with a hole.
 */
export function renderHome(catalog: Catalog, baseUrl: string): string {
  return _fill("home.html", HOME_HTML, {
    // Where clients connect, as BASE_URL says: with script off too, not a placeholder.
    "mcp-url": escapeHtml(baseUrl + PATHS.mcp),
    facts: _facts(catalog),
    terms: _terms(catalog),
    services: catalog.services.map(_serviceCard).join("\n"),
    "service-options": catalog.services
      .map((s) => `<option value="${escapeHtml(s.id)}">${escapeHtml(s.name)}</option>`).join(""),
    "country-options": _countries(catalog.locations)
      .map(([code, name]) => `<option value="${escapeHtml(code)}">${escapeHtml(name)}</option>`)
      .join(""),
    cities: _cities(catalog.locations),
    // From the tool list itself, so the page cannot name fewer tools than the endpoint serves.
    "tool-count": _countWord(TOOLS.length),
    "tool-names": TOOLS.map((t) => `<code>${escapeHtml(t.name)}</code>`).join(", "),
  });
}

const _NUMBER_WORDS = [
  "no",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
];

/** A small count as a word ("six"), a larger one in digits. */
function _countWord(n: number): string {
  return _NUMBER_WORDS[n] ?? String(n);
}

function _fill(file: string, html: string, slots: Record<string, string>): string {
  const used = new Set<string>();
  const out = html.replace(/<!-- slot:([a-z-]+) -->/g, (_, name: string) => {
    const value = slots[name];
    if (value === undefined) throw new Error(`${file}: unknown slot ${name}`);
    used.add(name);
    return value;
  });
  const unused = Object.keys(slots).filter((name) => !used.has(name));
  if (unused.length) throw new Error(`${file}: slot(s) missing: ${unused.join(", ")}`);
  return out;
}

/**
 * Each form's field labels as the page shows them (name → label), read from home.html
 * itself, so the server's error page and the page's own errors name fields alike.
 */
const _FORM_LABELS: Readonly<Record<SubmissionKind, ReadonlyMap<string, string>>> = {
  lead: _labelsOf("lead-form"),
  quote: _labelsOf("quote-form"),
};

function _labelsOf(formId: string): Map<string, string> {
  const start = HOME_HTML.indexOf(`<form id="${formId}"`);
  const form = HOME_HTML.slice(start, HOME_HTML.indexOf("</form>", start));
  const labels = new Map<string, string>();
  for (const m of form.matchAll(/<label for="([^"]+)">([^<]+)</g)) {
    const name = form.match(new RegExp(`id="${m[1]}" name="([^"]+)"`))?.[1];
    if (name) labels.set(name, m[2]!.trim());
  }
  if (start < 0 || labels.size === 0) throw new Error(`home.html: no labels in #${formId}`);
  return labels;
}

/** An issue's message with the field named as the form names it. */
function friendlyIssue(kind: SubmissionKind, issue: FieldIssue): string {
  return inWords(issue.message, issue.path, _FORM_LABELS[kind].get(issue.path) ?? "");
}

/**
 * The page a form posted without script gets: the receipt of an accepted submission,
 * or what to correct. Same CSP as the home page.
 */
export function formResultPage(
  kind: SubmissionKind,
  outcome: { result: SubmissionResult } | HttpError,
): Response {
  const what = kind === "quote" ? "quote request" : "message";
  if (outcome instanceof HttpError) {
    const issues = outcome.issues?.length
      ? `<ul class="issue-list">${
        outcome.issues.map((i) => `<li>${escapeHtml(friendlyIssue(kind, i))}</li>`).join("")
      }</ul>`
      : `<p>${escapeHtml(outcome.message)}</p>`;
    const body = `<div class="notice notice-error" role="alert"><h1 class="notice-title">` +
      `Your ${what} was not sent</h1>${issues}` +
      `<p>Go back, correct ${outcome.issues?.length ? "these fields" : "it"} and send again; ` +
      `what you typed is still in the form.</p></div>`;
    return _page(outcome.status, `Your ${what} was not sent`, body, "Back to the form", outcome);
  }
  const r = outcome.result;
  const estimate = r.budget_estimate
    ? `<p class="small-title">Budget estimate (non-binding)</p><p class="estimate-range">${
      escapeHtml(money(r.budget_estimate.low, r.budget_estimate.currency))
    } – ${escapeHtml(money(r.budget_estimate.high, r.budget_estimate.currency))}</p>` +
      (r.budget_estimate.note
        ? `<p class="estimate-note">${escapeHtml(r.budget_estimate.note)}</p>`
        : "") +
      (r.budget_estimate.tax
        ? `<p class="estimate-note">${escapeHtml(r.budget_estimate.tax)}</p>`
        : "")
    : "";
  const review = reviewTime(r.expected_review);
  const title = kind === "quote" ? "Quote request received" : "Message received";
  const body = `<div class="notice notice-success"><h1 class="notice-title">${title}</h1>` +
    `<dl class="facts"><div><dt>Request id</dt><dd><code class="request-id">${
      escapeHtml(r.request_id)
    }</code></dd></div><div><dt>Status</dt><dd>${
      escapeHtml(STATUS_WORDS[r.status] ?? r.status)
    }</dd></div>${
      review ? `<div><dt>Expected review</dt><dd>${escapeHtml(review)}</dd></div>` : ""
    }</dl>${estimate}<p>${escapeHtml(r.next_step)}</p>` +
    `<p class="muted">Keep the request id for reference.</p></div>`;
  return _page(202, title, body, "Back to the home page");
}

function _page(
  status: number,
  title: string,
  body: string,
  back: string,
  err?: HttpError,
): Response {
  const headers = new Headers(err?.headers);
  for (const [k, v] of Object.entries(_PAGE_HEADERS)) headers.set(k, v);
  headers.set("Cache-Control", CACHE_CONTROL.noStore);
  const html = _fill("result.html", RESULT_HTML, {
    title: escapeHtml(title),
    body,
    back: escapeHtml(back),
  });
  return new Response(html, { status, headers });
}

function _facts(catalog: Catalog): string {
  const countries = new Set(catalog.locations.map((l) => l.country)).size;
  const hours = catalog.locations.map((l) => l.response_time_hours);
  const fastest = Math.min(...hours);
  const slowest = Math.max(...hours);
  const facts = [
    [
      `${catalog.locations.length} cities, ${countries} countries`,
      `Our own engineers in ${
        _regions(catalog.locations).length
      } regions, listed city by city below.`,
    ],
    [
      `On site in ${fastest}–${slowest} hours`,
      "Typical response time from your request to an engineer at the rack, per city.",
    ],
    [
      `${BUSINESS_HOURS.from}–${BUSINESS_HOURS.to} local, and out of hours`,
      "Nights, weekends and holidays at each service's published multiplier.",
    ],
    [
      "A person answers",
      "Every request is read by our team, who reply by email with a written quotation.",
    ],
  ];
  return facts.map(([title, text]) =>
    `<li>\n          <h2 class="assurance-title">${escapeHtml(title!)}</h2>\n` +
    `          <p>${escapeHtml(text!)}</p>\n        </li>`
  ).join("\n        ");
}

/** The catalog's terms: the currency and tax statement, then which tax is added where. */
function _terms(catalog: Catalog): string {
  const where = new Map<string, string[]>();
  for (const [country, tax] of catalog.taxByCountry) {
    where.set(tax, [...(where.get(tax) ?? []), countryName(country)]);
  }
  const taxes = [...where].map(([tax, names]) =>
    `${tax} (${names.sort((a, b) => a.localeCompare(b, "en")).join(", ")})`
  );
  return `<p>${escapeHtml(catalog.terms.statement)}</p>\n        <p id="tax-by-country">` +
    `${escapeHtml(`Tax added where it applies: ${taxes.join("; ")}.`)}</p>`;
}

function _serviceCard(s: Service): string {
  const p = s.pricing;
  const callOut = p.call_out_fee > 0 ? money(p.call_out_fee, p.currency) : "None";
  return `<li class="service-card">
  <div class="service-head"><h3>${escapeHtml(s.name)}</h3><span class="tag">${
    escapeHtml(s.category)
  }</span></div>
  <p class="service-desc">${escapeHtml(s.description)}</p>
  <dl class="price-list">
    <div><dt>Rate</dt><dd>${escapeHtml(money(p.hourly_rate, p.currency))} / h</dd></div>
    <div><dt>Minimum</dt><dd>${escapeHtml(p.minimum_hours)} h</dd></div>
    <div><dt>Out of hours</dt><dd>× ${escapeHtml(p.out_of_hours_multiplier)}</dd></div>
    <div><dt>Call-out fee</dt><dd>${escapeHtml(callOut)}</dd></div>
  </dl>
  <a class="card-link" href="#quote" data-service="${
    escapeHtml(s.id)
  }">Request a quote<span class="visually-hidden"> for ${escapeHtml(s.name)}</span></a>
</li>`;
}

/** The covered countries as [code, English name], by name. */
function _countries(locations: readonly Location[]): [string, string][] {
  const codes = [...new Set(locations.map((l) => l.country))];
  return codes.map((c): [string, string] => [c, countryName(c)])
    .sort((a, b) => a[1].localeCompare(b[1], "en"));
}

function _regions(locations: readonly Location[]): string[] {
  return [...new Set(locations.map((l) => l.region))].sort();
}

/**
 * The covered cities by region, each with its country and response time: a region's heading
 * is a level under "Covered cities" (h3), which names the list by the page's structure.
 */
function _cities(locations: readonly Location[]): string {
  return _regions(locations).map((region) => {
    const here = locations.filter((l) => l.region === region)
      .sort((a, b) => a.city.localeCompare(b.city, "en"));
    const items = here.map((l) =>
      `<li><span class="city-name">${escapeHtml(l.city)}</span> <span class="muted">${
        escapeHtml(countryName(l.country))
      } · ${escapeHtml(l.response_time_hours)} h</span></li>`
    ).join("");
    return `<div class="region"><h4>${
      escapeHtml(region)
    } <span class="muted">(${here.length})</span></h4>` +
      `<ul class="city-list">${items}</ul></div>`;
  }).join("\n");
}
