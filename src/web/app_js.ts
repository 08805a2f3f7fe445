/**
 * @module
 * The home page script (`/assets/app.js`, an ES module). It fills the catalog,
 * runs the coverage check and the two forms against the public REST endpoints,
 * and registers the tools of `/.well-known/mcp.json` with a WebMCP model context
 * when the browser has one. Server data only ever reaches the DOM as text.
 *
 * The script is kept free of backticks, `${` and backslashes so that it can live
 * in this template string unchanged.
 */

export const APP_JS =
  `// DC Field Services home page. Served as /assets/app.js under a 'self'-only CSP.
// Everything that comes from the server is written with textContent, never as HTML.

const API = {
  services: "/api/v1/services",
  locations: "/api/v1/locations",
  intake: "/api/v1/intake",
  quotes: "/api/v1/quotes",
  descriptor: "/.well-known/mcp.json",
};

const STATUS_LABELS = { pending_review: "Pending human review" };

// ---- small DOM helpers ----

function h(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (typeof value === "function") node.addEventListener(key, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function byId(id) {
  return document.getElementById(id);
}

function money(amount, currency) {
  if (typeof amount !== "number" || !Number.isFinite(amount)) return "–";
  try {
    return new Intl.NumberFormat("en-GB", {
      style: "currency",
      currency,
      minimumFractionDigits: Number.isInteger(amount) ? 0 : 2,
      maximumFractionDigits: 2,
    }).format(amount);
  } catch {
    return amount + " " + currency;
  }
}

function plural(n, one, many) {
  return n + " " + (n === 1 ? one : many);
}

// ---- HTTP ----

// Returns { status, data } and never throws: status 0 means the request did not get through.
async function callApi(method, path, body, headers) {
  const init = { method, headers: { Accept: "application/json", ...(headers || {}) } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
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

function notice(kind, title, ...body) {
  return h(
    "div",
    { class: "notice notice-" + kind, role: kind === "error" ? "alert" : null },
    title ? h("p", { class: "notice-title" }, title) : null,
    ...body,
  );
}

function showResult(box, node) {
  box.replaceChildren(node);
}

function clearFieldErrors(form) {
  for (const slot of form.querySelectorAll("[data-error-for]")) {
    slot.textContent = "";
    slot.hidden = true;
  }
  for (const control of form.querySelectorAll("[aria-invalid]")) {
    control.removeAttribute("aria-invalid");
  }
}

function fieldControl(form, path) {
  const control = form.elements.namedItem(path);
  return control instanceof HTMLElement ? control : null;
}

// Puts each issue next to its field and returns a summary listing all of them.
function showIssues(form, issues, message) {
  const items = [];
  let first = null;
  for (const issue of issues) {
    const path = typeof issue.path === "string" ? issue.path : "";
    const text = typeof issue.message === "string" ? issue.message : "invalid value";
    const slot = Array.from(form.querySelectorAll("[data-error-for]"))
      .find((el) => el.getAttribute("data-error-for") === path);
    const control = fieldControl(form, path);
    if (slot) {
      slot.textContent = slot.textContent ? slot.textContent + " " + text : text;
      slot.hidden = false;
    }
    if (control) {
      control.setAttribute("aria-invalid", "true");
      if (!first) first = control;
      const target = control;
      items.push(h("li", null, h("a", {
        href: "#" + control.id,
        click: (ev) => {
          ev.preventDefault();
          target.focus();
        },
      }, text)));
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

let services = [];

function serviceCard(service) {
  const p = service.pricing || {};
  const callOut = typeof p.call_out_fee === "number" && p.call_out_fee > 0
    ? money(p.call_out_fee, p.currency)
    : "None";
  return h(
    "li",
    { class: "service-card" },
    h(
      "div",
      { class: "service-head" },
      h("h3", null, service.name),
      h("span", { class: "tag" }, service.category),
    ),
    h("p", { class: "service-desc" }, service.description),
    h(
      "dl",
      { class: "price-list" },
      h("div", null, h("dt", null, "Rate"), h("dd", null, money(p.hourly_rate, p.currency) + " / h")),
      h("div", null, h("dt", null, "Minimum"), h("dd", null, p.minimum_hours + " h")),
      h("div", null, h("dt", null, "Out of hours"), h("dd", null, "× " + p.out_of_hours_multiplier)),
      h("div", null, h("dt", null, "Call-out fee"), h("dd", null, callOut)),
    ),
    h("a", {
      class: "card-link",
      href: "#quote",
      click: () => {
        byId("q-service").value = service.id;
      },
    }, "Request a quote", h("span", { class: "visually-hidden" }, " for " + service.name)),
  );
}

function fillServiceSelect(select) {
  const keep = select.value;
  const placeholder = select.options[0];
  select.replaceChildren(placeholder);
  for (const s of services) select.append(h("option", { value: s.id }, s.name));
  select.value = keep;
}

async function loadCatalog() {
  const status = byId("services-status");
  const list = byId("service-list");
  status.textContent = "Loading the service catalog…";
  status.hidden = false;
  const result = await callApi("GET", API.services);
  if (result.status !== 200 || !result.data || !Array.isArray(result.data.services)) {
    status.replaceChildren(
      "The service catalog could not be loaded. " + problemText(result) + " ",
      h("button", { class: "btn btn-small", type: "button", click: loadCatalog }, "Retry"),
    );
    return;
  }
  services = result.data.services;
  list.replaceChildren(...services.map(serviceCard));
  status.textContent = "";
  status.hidden = true;
  fillServiceSelect(byId("q-service"));
  fillServiceSelect(byId("l-service"));
}

// ---- coverage ----

function locationLabel(city, country) {
  return country ? city + ", " + country : city;
}

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
          h("ul", { class: "chips" }, coverage.services.map((s) => h("li", null, s.name))),
        )
        : null,
      h("a", {
        class: "btn btn-secondary btn-small",
        href: "#quote",
        click: () => {
          byId("q-city").value = loc.city;
          byId("q-country").value = loc.country;
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
        coverage.candidates.map((c) =>
          h(
            "li",
            null,
            h("button", {
              class: "btn btn-small btn-secondary",
              type: "button",
              click: () => {
                form.elements.namedItem("city").value = c.city;
                form.elements.namedItem("country").value = c.country;
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
            nearest.map((n) =>
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
      "We could not find a city of that name. Check the spelling, try the English or local name, or add a two-letter country code.",
    ),
  );
}

function setBusy(form, busy) {
  const button = form.querySelector("button[type=submit]");
  if (!button) return;
  button.disabled = busy;
  form.setAttribute("aria-busy", busy ? "true" : "false");
}

function setupCoverage() {
  const form = byId("coverage-form");
  const box = byId("coverage-result");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearFieldErrors(form);
    const query = new URLSearchParams();
    const city = form.elements.namedItem("city").value.trim();
    const country = form.elements.namedItem("country").value.trim();
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
      showResult(box, notice("error", "The coverage check failed", h("p", null, problemText(result))));
    }
  });
}

// ---- lead and quote forms ----

// The form's named controls as a JSON object: empty fields are left out, numbers
// are sent as numbers and the checkbox as a boolean.
function formPayload(form) {
  const payload = {};
  for (const control of form.elements) {
    const name = control.name;
    if (!name || control.disabled) continue;
    if (control.type === "checkbox") {
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
      h("dd", null, STATUS_LABELS[status] || status, " ", h("code", { class: "status-code" }, status)),
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

function setupSubmission(formId, resultId, path, kind) {
  const form = byId(formId);
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
      showResult(box, notice("error", "The request was not sent", h("p", null, problemText(result))));
    }
  });
}

// ---- WebMCP ----

function sameOriginPath(path) {
  return typeof path === "string" && path.startsWith("/") && !path.startsWith("//");
}

// Calls the REST endpoint a tool maps to and returns its JSON body, errors included.
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
  const context = document.modelContext || navigator.modelContext;
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
    status.textContent = "A model context is present, but the tool descriptor could not be loaded: " +
      problemText(result);
    return;
  }
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
        execute: (args) => runTool(http, args),
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
loadCatalog();
registerWebMcp();
`;
