// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// DC Field Services home page. Served as /assets/app.js under a 'self'-only CSP.
// The server renders the catalog and the covered cities into the page; this script
// enhances it: the coverage check and the two forms, and WebMCP. Everything that comes
// from the server is written with textContent, never as HTML.

import { inWords, money, STATUS_WORDS } from "./words.js";

/**
 * What an API call returns; `status` 0 means the request did not get through. `data`
 * is the JSON body as sent, checked field by field where it is used.
 * @typedef {{ status: number, data: any }} ApiResult
 */
/** @typedef {Node | string | number | null | undefined | false} Child */

const API = {
  services: "/api/v1/services",
  locations: "/api/v1/locations",
  // The page's own form endpoints: the same submissions as /api/v1/intake and
  // /api/v1/quotes, recorded as coming from the web page.
  intake: "/forms/lead",
  quotes: "/forms/quote",
  descriptor: "/.well-known/mcp.json",
};

// ---- small DOM helpers ----

/**
 * @param {string} tag
 * @param {Record<string, string | boolean | null | undefined | ((ev: Event) => void)> | null} props
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
function h(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = String(value);
    else if (typeof value === "function") node.addEventListener(key, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error("the page has no #" + id);
  return node;
}

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function byIdAs(id, type) {
  const node = byId(id);
  if (!(node instanceof type)) throw new Error("#" + id + " is not a " + type.name);
  return node;
}

/**
 * A named control of a form.
 * @param {HTMLFormElement} form
 * @param {string} name
 * @returns {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement}
 */
function controlOf(form, name) {
  const control = form.elements.namedItem(name);
  if (
    control instanceof HTMLInputElement || control instanceof HTMLSelectElement ||
    control instanceof HTMLTextAreaElement
  ) return control;
  throw new Error("the form has no control " + name);
}

/**
 * @param {number} n
 * @param {string} one
 * @param {string} many
 */
function plural(n, one, many) {
  return n + " " + (n === 1 ? one : many);
}

// ---- HTTP ----

// Returns { status, data } and never throws: status 0 means the request did not get through.
/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 * @returns {Promise<ApiResult>}
 */
async function callApi(method, path, body, headers) {
  /** @type {Record<string, string>} */
  const sent = { Accept: "application/json", ...(headers || {}) };
  /** @type {RequestInit} */
  const init = { method, headers: sent };
  if (body !== undefined) {
    sent["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    return { status: 0, data: null };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  return { status: res.status, data };
}

/** @param {ApiResult} result */
function problemText(result) {
  if (result.status === 0) {
    return "The service could not be reached. Check your connection and try again.";
  }
  const message = result.data && typeof result.data.message === "string"
    ? result.data.message
    : "The service answered with status " + result.status + ".";
  if (result.status === 429) return message + " Please wait a minute before trying again.";
  return message;
}

function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- notices, field errors ----

/**
 * @param {string} kind
 * @param {string | null} title
 * @param {...(Child | Child[])} body
 */
function notice(kind, title, ...body) {
  return h(
    "div",
    { class: "notice notice-" + kind, role: kind === "error" ? "alert" : null },
    title ? h("p", { class: "notice-title" }, title) : null,
    ...body,
  );
}

/**
 * @param {HTMLElement} box
 * @param {Node} node
 */
function showResult(box, node) {
  box.replaceChildren(node);
}

/** @param {HTMLFormElement} form */
function clearFieldErrors(form) {
  for (const slot of form.querySelectorAll("[data-error-for]")) {
    if (!(slot instanceof HTMLElement)) continue;
    slot.textContent = "";
    slot.hidden = true;
  }
  for (const control of form.querySelectorAll("[aria-invalid]")) {
    control.removeAttribute("aria-invalid");
  }
}

/**
 * @param {HTMLFormElement} form
 * @param {string} path
 */
function fieldControl(form, path) {
  const control = form.elements.namedItem(path);
  return control instanceof HTMLElement ? control : null;
}

/**
 * The label people see for a field, without its "required"/"optional" marks.
 * @param {HTMLElement} control
 */
function labelOf(control) {
  const label = control.id ? document.querySelector("label[for='" + control.id + "']") : null;
  if (!label) return "";
  let text = "";
  for (const node of label.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) text += node.textContent;
  }
  return text.trim();
}

/**
 * An issue's message in the page's words (see words.js).
 * @param {string} text
 * @param {string} path
 * @param {HTMLElement | null} control
 */
function friendly(text, path, control) {
  return inWords(text, path, control ? labelOf(control) : "");
}

/**
 * Puts each issue next to its field and returns a summary listing all of them.
 * @param {HTMLFormElement} form
 * @param {any[]} issues
 * @param {string | undefined} message
 */
function showIssues(form, issues, message) {
  /** @type {HTMLElement[]} */
  const items = [];
  /** @type {HTMLElement | null} */
  let first = null;
  for (const issue of issues) {
    const path = typeof issue.path === "string" ? issue.path : "";
    const control = fieldControl(form, path);
    const text = friendly(
      typeof issue.message === "string" ? issue.message : "invalid value",
      path,
      control,
    );
    const slot = Array.from(form.querySelectorAll("[data-error-for]"))
      .find((el) => el.getAttribute("data-error-for") === path);
    if (slot instanceof HTMLElement) {
      slot.textContent = slot.textContent ? slot.textContent + " " + text : text;
      slot.hidden = false;
    }
    if (control) {
      control.setAttribute("aria-invalid", "true");
      if (!first) first = control;
      const target = control;
      items.push(h(
        "li",
        null,
        h("a", {
          href: "#" + control.id,
          click: (/** @type {Event} */ ev) => {
            ev.preventDefault();
            target.focus();
          },
        }, text),
      ));
    } else {
      items.push(h("li", null, text));
    }
  }
  const count = issues.length;
  const title = count > 0
    ? "Please correct " + plural(count, "field", "fields") + " and send again."
    : message || "The request was not accepted.";
  if (first) first.focus();
  return notice("error", title, count > 0 ? h("ul", { class: "issue-list" }, items) : null);
}

// ---- catalog ----

// The server renders the service cards; "Request a quote" on a card picks its service.
function enhanceCatalog() {
  const select = byIdAs("q-service", HTMLSelectElement);
  for (const link of document.querySelectorAll("a[data-service]")) {
    link.addEventListener("click", () => {
      select.value = link.getAttribute("data-service") || "";
    });
  }
}

// ---- coverage ----

/**
 * @param {string} city
 * @param {string} [country]
 */
function locationLabel(city, country) {
  return country ? city + ", " + country : city;
}

/**
 * @param {any} coverage
 * @param {HTMLFormElement} form
 */
function coverageNode(coverage, form) {
  const asked = coverage.query && coverage.query.city ? coverage.query.city : "";
  if (coverage.covered && coverage.location) {
    const loc = coverage.location;
    const where = locationLabel(loc.city, loc.country);
    return notice(
      "success",
      "Covered: " + where,
      h(
        "dl",
        { class: "facts" },
        h("div", null, h("dt", null, "Region"), h("dd", null, loc.region)),
        h("div", null, h("dt", null, "Time zone"), h("dd", null, loc.timezone)),
        typeof coverage.response_time_hours === "number"
          ? h(
            "div",
            null,
            h("dt", null, "Typical response"),
            h("dd", null, "within " + plural(coverage.response_time_hours, "hour", "hours")),
          )
          : null,
      ),
      coverage.services.length
        ? h(
          "div",
          null,
          h("p", { class: "small-title" }, "Services available here"),
          h(
            "ul",
            { class: "chips" },
            coverage.services.map((/** @type {any} */ s) => h("li", null, s.name)),
          ),
        )
        : null,
      h("a", {
        class: "btn btn-secondary btn-small",
        href: "#quote",
        click: () => {
          byIdAs("q-city", HTMLInputElement).value = loc.city;
          byIdAs("q-country", HTMLSelectElement).value = loc.country;
        },
      }, "Request a quote in " + loc.city),
    );
  }
  if (
    (coverage.match === "ambiguous" || coverage.match === "other_country") &&
    coverage.candidates.length
  ) {
    return notice(
      "info",
      coverage.match === "ambiguous"
        ? "“" + asked + "” matches several cities"
        : "“" + asked + "” is not in that country",
      h("p", null, coverage.match === "ambiguous" ? "Choose the one you mean:" : "It is here:"),
      h(
        "ul",
        { class: "choice-list" },
        coverage.candidates.map((/** @type {any} */ c) =>
          h(
            "li",
            null,
            h("button", {
              class: "btn btn-small btn-secondary",
              type: "button",
              click: () => {
                controlOf(form, "city").value = c.city;
                controlOf(form, "country").value = c.country;
                form.requestSubmit();
              },
            }, locationLabel(c.city, c.country)),
            h(
              "span",
              { class: c.covered ? "badge badge-ok" : "badge" },
              c.covered ? "covered" : "not covered",
            ),
          )
        ),
      ),
    );
  }
  const nearest = Array.isArray(coverage.nearest) ? coverage.nearest : [];
  if (coverage.match === "known_uncovered" || nearest.length) {
    return notice(
      "warn",
      "Not covered: " + asked,
      h(
        "p",
        null,
        "This city is outside our published coverage. You can still request a quote; travel costs may apply.",
      ),
      nearest.length
        ? h(
          "div",
          null,
          h("p", { class: "small-title" }, "Nearest covered cities"),
          h(
            "ul",
            { class: "nearest-list" },
            nearest.map((/** @type {any} */ n) =>
              h(
                "li",
                null,
                h("span", { class: "nearest-city" }, locationLabel(n.city, n.country)),
                h(
                  "span",
                  { class: "nearest-meta" },
                  n.distance_km + " km · response within " + n.response_time_hours + " h",
                ),
              )
            ),
          ),
        )
        : null,
    );
  }
  return notice(
    "neutral",
    "Unknown city: " + asked,
    h(
      "p",
      null,
      "We could not find a city of that name. Check the spelling, try the English or local name, or choose the country.",
    ),
  );
}

/**
 * @param {HTMLFormElement} form
 * @param {boolean} busy
 */
function setBusy(form, busy) {
  const button = form.querySelector("button[type=submit]");
  if (!(button instanceof HTMLButtonElement)) return;
  button.disabled = busy;
  form.setAttribute("aria-busy", busy ? "true" : "false");
}

function setupCoverage() {
  const form = byIdAs("coverage-form", HTMLFormElement);
  const box = byId("coverage-result");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearFieldErrors(form);
    const query = new URLSearchParams();
    const city = controlOf(form, "city").value.trim();
    const country = controlOf(form, "country").value.trim();
    query.set("city", city);
    if (country) query.set("country", country);
    setBusy(form, true);
    showResult(box, h("p", { class: "status" }, "Checking…"));
    const result = await callApi("GET", API.locations + "?" + query.toString());
    setBusy(form, false);
    if (result.status === 200 && result.data && result.data.coverage) {
      showResult(box, coverageNode(result.data.coverage, form));
    } else if (result.status === 400 && result.data && Array.isArray(result.data.issues)) {
      showResult(box, showIssues(form, result.data.issues, result.data.message));
    } else {
      showResult(
        box,
        notice("error", "The coverage check failed", h("p", null, problemText(result))),
      );
    }
  });
}

// ---- lead and quote forms ----

// The form's named controls as a JSON object: empty fields are left out, numbers
// are sent as numbers and the checkbox as a boolean.
/** @param {HTMLFormElement} form */
function formPayload(form) {
  /** @type {Record<string, string | number | boolean>} */
  const payload = {};
  for (const control of form.elements) {
    if (
      !(control instanceof HTMLInputElement || control instanceof HTMLSelectElement ||
        control instanceof HTMLTextAreaElement)
    ) continue;
    const name = control.name;
    if (!name || control.disabled) continue;
    if (control instanceof HTMLInputElement && control.type === "checkbox") {
      payload[name] = control.checked;
      continue;
    }
    const value = typeof control.value === "string" ? control.value.trim() : "";
    if (value === "") continue;
    if (control.type === "number") {
      const n = Number(value);
      payload[name] = Number.isFinite(n) ? n : value;
    } else if (name === "country") {
      payload[name] = value.toUpperCase();
    } else {
      payload[name] = value;
    }
  }
  return payload;
}

/**
 * @param {any} data
 * @param {string} kind
 */
function receiptNode(data, kind) {
  const status = typeof data.status === "string" ? data.status : "pending_review";
  const facts = h(
    "dl",
    { class: "facts" },
    h(
      "div",
      null,
      h("dt", null, "Request id"),
      h("dd", null, h("code", { class: "request-id" }, data.request_id)),
    ),
    h(
      "div",
      null,
      h("dt", null, "Status"),
      h("dd", null, STATUS_WORDS[status] || status),
    ),
  );
  const parts = [facts];
  const estimate = data.budget_estimate;
  if (kind === "quote" && estimate && typeof estimate === "object") {
    const range = money(estimate.low, estimate.currency) + " – " +
      money(estimate.high, estimate.currency);
    parts.push(h(
      "div",
      { class: "estimate" },
      h(
        "p",
        { class: "small-title" },
        estimate.non_binding === false ? "Budget estimate" : "Budget estimate (non-binding)",
      ),
      h("p", { class: "estimate-range" }, range),
      estimate.note ? h("p", { class: "estimate-note" }, estimate.note) : null,
      h(
        "p",
        { class: "estimate-note" },
        "Based on published rates. The binding quotation comes from our team after review.",
      ),
    ));
  }
  parts.push(h(
    "p",
    null,
    typeof data.next_steps === "string"
      ? data.next_steps
      : "A member of our team will review your request; nothing has been ordered or scheduled.",
  ));
  parts.push(h("p", { class: "muted" }, "Keep the request id for reference."));
  const title = kind === "quote" ? "Quote request received" : "Message received";
  return notice("success", title, ...parts);
}

/**
 * @param {string} formId
 * @param {string} resultId
 * @param {string} path
 * @param {string} kind
 */
function setupSubmission(formId, resultId, path, kind) {
  const form = byIdAs(formId, HTMLFormElement);
  const box = byId(resultId);
  // One Idempotency-Key per distinct body: sending the same body again (a double
  // click, a retry after a network error) cannot create a second request.
  let last = { body: "", key: "" };
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (form.getAttribute("aria-busy") === "true") return;
    clearFieldErrors(form);
    const payload = formPayload(form);
    const body = JSON.stringify(payload);
    const key = body === last.body ? last.key : newIdempotencyKey();
    last = { body, key };
    setBusy(form, true);
    showResult(box, h("p", { class: "status" }, "Sending…"));
    const result = await callApi("POST", path, payload, { "Idempotency-Key": key });
    setBusy(form, false);
    const data = result.data;
    if (result.status === 202 && data && data.ok && typeof data.request_id === "string") {
      showResult(box, receiptNode(data, kind));
      form.reset();
      last = { body: "", key: "" };
      box.scrollIntoView({ block: "nearest" });
    } else if (result.status === 400 && data && Array.isArray(data.issues)) {
      showResult(box, showIssues(form, data.issues, data.message));
    } else {
      showResult(
        box,
        notice("error", "The request was not sent", h("p", null, problemText(result))),
      );
    }
  });
}

// ---- WebMCP ----

/** @param {unknown} path */
function sameOriginPath(path) {
  return typeof path === "string" && path.startsWith("/") && !path.startsWith("//");
}

// Calls the REST endpoint a tool maps to and returns its JSON body, errors included.
/**
 * @param {{ method: string, path: string }} http
 * @param {unknown} args
 */
async function runTool(http, args) {
  const input = args && typeof args === "object" ? args : {};
  const method = String(http.method || "GET").toUpperCase();
  let path = http.path;
  let result;
  if (method === "GET") {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(input)) {
      if (value === undefined || value === null) continue;
      query.append(key, typeof value === "object" ? JSON.stringify(value) : String(value));
    }
    const qs = query.toString();
    if (qs) path += "?" + qs;
    result = await callApi("GET", path);
  } else {
    result = await callApi(method, path, input);
  }
  if (result.data !== null) return result.data;
  return {
    ok: false,
    error: result.status === 0 ? "network_error" : "invalid_response",
    message: problemText(result),
  };
}

async function registerWebMcp() {
  const status = byId("webmcp-status");
  // WebMCP is not in the DOM types yet: the model context, where a browser has one.
  /** @type {any} */
  const page = document;
  /** @type {any} */
  const nav = navigator;
  const context = page.modelContext || nav.modelContext;
  if (!context || typeof context.registerTool !== "function") {
    status.textContent = "No WebMCP model context in this browser, so no tools were registered. " +
      "Browsers with WebMCP get the same four tools, with the schemas of the tool descriptor.";
    return;
  }
  const result = await callApi("GET", API.descriptor);
  const tools = result.status === 200 && result.data && Array.isArray(result.data.tools)
    ? result.data.tools
    : null;
  if (!tools) {
    status.textContent =
      "A model context is present, but the tool descriptor could not be loaded: " +
      problemText(result);
    return;
  }
  /** @type {string[]} */
  const registered = [];
  for (const tool of tools) {
    if (!tool || typeof tool.name !== "string" || !tool.http || !sameOriginPath(tool.http.path)) {
      continue;
    }
    const http = { method: tool.http.method, path: tool.http.path };
    try {
      await context.registerTool({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input_schema,
        annotations: tool.annotations,
        execute: (/** @type {unknown} */ args) => runTool(http, args),
      });
      registered.push(tool.name);
    } catch (err) {
      console.warn("WebMCP: could not register " + tool.name, err);
    }
  }
  status.textContent = "Registered " + plural(registered.length, "tool", "tools") +
    " with this browser's model context: " + registered.join(", ") + ".";
}

// ---- start ----

for (const node of document.querySelectorAll("[data-origin]")) {
  node.textContent = location.origin;
}
setupCoverage();
setupSubmission("lead-form", "lead-result", API.intake, "lead");
setupSubmission("quote-form", "quote-result", API.quotes, "quote");
enhanceCatalog();
registerWebMcp();
