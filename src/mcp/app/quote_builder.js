// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The quote builder's script, in three parts in the order they run: the view's side of the
// bridge to the host, the answers shown, and the app itself. One file, because the app is one
// HTML document whose inline script can import nothing.

// The bridge, the view's side of MCP Apps (2026-01-26): JSON-RPC 2.0 over postMessage with the
// parent frame only. Requests time out; the host's requests are answered (teardown, ping, and
// "method not found" for the rest); its notifications go to the app's handler. After the
// host's teardown nothing is sent or taken. No SDK: the protocol is a handful of messages.
const PROTOCOL_VERSION = "2026-01-26";
const TIMEOUT_MS = 30_000;

let nextId = 1;
/** Set once the host has torn the view down: nothing is sent or taken after that. */
let closed = false;
/**
 * @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void,
 *   timer: ReturnType<typeof setTimeout>}>}
 */
const pending = new Map();

/** @param {Record<string, unknown>} message */
function post(message) {
  if (closed) return;
  // The view cannot know the host's origin (a sandbox proxy sits between them): "*", as the
  // extension's own SDK does; only the parent frame is ever written to or listened to.
  globalThis.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
}

/**
 * A request to the host; rejected with its error, or (a `TimeoutError`) when no answer comes
 * in time.
 * @param {string} method
 * @param {Record<string, unknown>} params
 * @returns {Promise<any>}
 */
function request(method, params) {
  if (closed) return Promise.reject(new Error("the chat has closed this app"));
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      const error = new Error(`no answer within ${TIMEOUT_MS / 1000} s`);
      error.name = "TimeoutError"; // the host may still act on it
      reject(error);
    }, TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    post({ id, method, params });
  });
}

/** @param {string} method @param {Record<string, unknown>} [params] */
function notify(method, params = {}) {
  post({ method, params });
}

/**
 * @typedef {object} Handlers
 * @property {(method: string, params: any) => void} notification a host notification
 * @property {() => void} teardown the host is about to remove the view
 */

/** @param {Handlers} handlers */
function listen(handlers) {
  globalThis.addEventListener("message", (event) => {
    if (closed || event.source !== globalThis.parent) return;
    const message = event.data;
    if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") return;
    if (typeof message.method === "string") {
      const params = message.params && typeof message.params === "object" ? message.params : {};
      if (message.id === undefined || message.id === null) {
        handlers.notification(message.method, params);
      } else answer(message.id, message.method, handlers);
    } else if (typeof message.id === "number" && ("result" in message || "error" in message)) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (!message.error) waiting.resolve(message.result);
      else {
        const why = message.error.message;
        waiting.reject(new Error(typeof why === "string" ? why.slice(0, 300) : "refused"));
      }
    }
  });
}

/** @param {string | number} id @param {string} method @param {Handlers} handlers */
function answer(id, method, handlers) {
  if (method === "ui/resource-teardown") {
    handlers.teardown();
    post({ id, result: {} });
    closed = true;
    for (const waiting of pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error("the chat has closed this app"));
    }
    pending.clear();
  } else if (method === "ping") {
    post({ id, result: {} });
  } else {
    post({ id, error: { code: -32601, message: "Method not found" } });
  }
}

/** Tells the host the document's size whenever it changes. */
function observeSize() {
  let last = "";
  new ResizeObserver(() => {
    const box = document.documentElement.getBoundingClientRect();
    const size = { width: Math.ceil(box.width), height: Math.ceil(box.height) };
    if (`${size.width}x${size.height}` === last) return;
    last = `${size.width}x${size.height}`;
    notify("ui/notifications/size-changed", size);
  }).observe(document.documentElement);
}

/**
 * The handshake: `ui/initialize`, then `ui/notifications/initialized` (the host sends
 * nothing before it), then the view's size as it changes. Resolves with the host's answer.
 * @param {{name: string, version: string}} appInfo
 * @param {Handlers} handlers
 * @returns {Promise<any>}
 */
async function connect(appInfo, handlers) {
  if (globalThis.parent === globalThis.window) throw new Error("not inside a chat host's frame");
  listen(handlers);
  const result = await request("ui/initialize", {
    appInfo,
    appCapabilities: {},
    protocolVersion: PROTOCOL_VERSION,
  });
  notify("ui/notifications/initialized");
  observeSize();
  return result;
}

// The answers: the coverage, the estimate and a refusal, every value set as text
// (textContent, attributes), never as markup. Money is formatted with Intl from the server's
// numbers; no price is computed here. The map marks the city an answer is about.
/**
 * The element of `id`, checked to be of its expected type.
 * @template {Element} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`the document has no #${id}`);
  return element;
}

const view = {
  coverage: byId("coverage", HTMLElement),
  summary: byId("coverage-summary", HTMLElement),
  details: byId("coverage-details", HTMLUListElement),
  estimate: byId("estimate", HTMLElement),
  price: byId("price", HTMLElement),
  basis: byId("estimate-basis", HTMLElement),
  assumptions: byId("assumptions", HTMLUListElement),
  terms: byId("estimate-terms", HTMLElement),
  issues: byId("issues", HTMLUListElement),
  services: byId("services", HTMLDataListElement),
  map: byId("map", SVGSVGElement),
  label: byId("map-label", SVGTextElement),
};

/** @type {string | undefined} */
let locale;

/** Numbers follow the host's locale when it names one this browser knows. */
function setLocale(/** @type {string} */ tag) {
  try {
    locale = Intl.NumberFormat.supportedLocalesOf([tag])[0];
  } catch {
    locale = undefined;
  }
}

/** A string or number from an answer as text; anything else as nothing. */
function text(/** @type {unknown} */ value) {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

/** @param {unknown} value @returns {any[]} */
function list(value) {
  return Array.isArray(value) ? value : [];
}

/** A number of an answer, formatted; "?" when it is not one. */
function number(/** @type {unknown} */ value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "?";
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(value);
}

/** @param {HTMLUListElement} target @param {string[]} items */
function fillList(target, items) {
  target.replaceChildren(
    ...items.filter(Boolean).map((item) => {
      const li = document.createElement("li");
      li.textContent = item;
      return li;
    }),
  );
}

/** A coverage answer: the summary, the site or the nearest covered cities, the map. */
function showCoverage(/** @type {any} */ coverage) {
  if (!coverage || typeof coverage !== "object") return;
  view.coverage.dataset.state = coverage.covered ? "covered" : "uncovered";
  view.summary.textContent = text(coverage.summary);
  const items = [];
  const site = coverage.location;
  if (site) {
    items.push(`Site: ${text(site.city)}, ${text(site.country)} (${text(site.region)})`);
    items.push(`Engineer on site within ${number(coverage.response_time_hours)} h`);
  }
  const services = list(coverage.services).map((s) => text(s?.name)).filter(Boolean);
  if (services.length) items.push(`Services: ${services.join(", ")}`);
  for (const near of list(coverage.nearest)) {
    items.push(
      `${text(near?.city)}, ${text(near?.country)}: ${number(near?.distance_km)} km away, ` +
        `on site within ${number(near?.response_time_hours)} h`,
    );
  }
  fillList(view.details, items);
  selectCity(text(site?.id) || text(list(coverage.nearest)[0]?.id));
}

/**
 * An estimate answer: the price, its basis, the assumptions and the terms. Returns what the
 * request for a quote repeats: the basis, the service's name and the price as shown.
 * @param {any} data
 */
function showEstimate(data) {
  const estimate = data.budget_estimate;
  const basis = estimate.basis && typeof estimate.basis === "object" ? estimate.basis : {};
  const currency = text(estimate.currency);
  const range = estimate.low === estimate.high
    ? number(estimate.low)
    : `${number(estimate.low)} – ${number(estimate.high)}`;
  view.estimate.dataset.state = "priced";
  view.price.textContent = `${range} ${currency}`;
  const service = serviceName(data.service_id);
  let line = `${service}: ${number(basis.engineers)} × ${number(basis.hours)} h at ` +
    `${number(basis.hourly_rate)} ${currency}/h (minimum ${number(basis.minimum_hours)} h)`;
  if (basis.hours_out_of_hours > 0) {
    line += `, ${number(basis.hours_out_of_hours)} h of them out of hours ` +
      `(×${number(basis.out_of_hours_multiplier)})`;
  }
  if (basis.call_out_fee > 0) line += `, call-out fee ${number(basis.call_out_fee)} ${currency}`;
  if (basis.contingency > 0) {
    const share = new Intl.NumberFormat(locale, { style: "percent" }).format(basis.contingency);
    line += `, up to ${share} contingency`;
  }
  if (basis.short_notice) line += `; short notice (under ${number(basis.notice_hours)} h)`;
  view.basis.textContent = line;
  fillList(view.assumptions, list(estimate.assumptions).map((a) => text(a?.why)));
  const terms = [text(estimate.tax), text(estimate.note)];
  if (estimate.non_binding) terms.push("Non-binding: the quotation a person sends is the price.");
  view.terms.textContent = terms.filter(Boolean).join(" ");
  fillList(view.issues, []);
  return { basis, service, price: view.price.textContent };
}

/**
 * A refusal: its message and each issue as text, in the section of the tool refused. A
 * place the service could not read shows in the coverage section too; a refused estimate
 * for another place than the coverage on show leaves no coverage.
 * @param {any} result
 * @param {string} tool
 * @param {boolean} coverageStillTrue the coverage on show is for the place refused
 */
function showRefusal(result, tool, coverageStillTrue) {
  const data = result?.structuredContent ?? {};
  const content = list(result?.content).find((c) => c?.type === "text");
  const message = text(data.message) || text(content?.text).slice(0, 500) ||
    "The service did not answer.";
  const issues = list(data.issues).filter((i) => i && typeof i === "object");
  const place = issues.filter((i) => i.path === "city" || i.path === "country");
  const estimate = tool === "estimate_quote";
  if (estimate) {
    idleEstimate();
    view.estimate.dataset.state = "error";
    view.price.textContent = message;
    fillList(view.issues, issues.map((i) => text(i.message)));
  }
  if (!estimate || place.length) {
    view.coverage.dataset.state = "error";
    view.summary.textContent = estimate ? "The service could not read the place." : message;
    fillList(view.details, (estimate ? place : issues).map((i) => text(i.message)));
    selectCity("");
  } else if (!coverageStillTrue) {
    idleCoverage("Coverage shows with the estimate once the job is accepted.");
  }
}

/** No coverage to show: no city yet, or none the service accepted. */
function idleCoverage(words = "Enter a city to see whether it is covered.") {
  view.coverage.dataset.state = "idle";
  view.summary.textContent = words;
  fillList(view.details, []);
  selectCity("");
}

/** No estimate to show: no service yet. */
function idleEstimate() {
  view.estimate.dataset.state = "idle";
  view.price.textContent = "Choose a service to see a price.";
  view.basis.textContent = "";
  view.terms.textContent = "";
  fillList(view.assumptions, []);
  fillList(view.issues, []);
}

/** Marks the city an answer is about (class `selected`), drawn last, with its name beside it. */
function selectCity(/** @type {string} */ id) {
  for (const circle of view.map.querySelectorAll(".selected")) circle.classList.remove("selected");
  const circle = [...view.map.querySelectorAll("[data-id]")]
    .find((c) => id !== "" && c.getAttribute("data-id") === id);
  view.label.textContent = "";
  if (!circle) return;
  circle.classList.add("selected");
  view.map.insertBefore(circle, view.label);
  const x = Number(circle.getAttribute("cx"));
  const width = view.map.viewBox.baseVal.width;
  view.label.setAttribute("x", String(Math.min(Math.max(x, 24), width - 24)));
  view.label.setAttribute("y", String(Math.max(Number(circle.getAttribute("cy")) - 5, 8)));
  view.label.textContent = circle.getAttribute("data-city") ?? "";
}

/** The catalog's name of a service id (the datalist's options carry both). */
function serviceName(/** @type {unknown} */ id) {
  const option = [...view.services.options].find((o) => o.dataset.id === id);
  return option ? option.value : text(id);
}

// The app: the quote builder inside an MCP host (the MCP Apps extension, 2026-01-26). It fills
// its form from the tool's input, shows the tool's answer (the answers, above), sends the
// person's edits back as read-only tool calls through the host (debounced; an answer older than
// the newest request is dropped), and asks the assistant for a quote with one chat message, only
// when the person clicks. It never submits anything itself, and never updates the model's context.

const APP_INFO = { name: "dc-field-services-quote-builder", version: "1.0.0" };
const DEBOUNCE_MS = 400;

const form = byId("job", HTMLFormElement);
const fields = {
  city: byId("city", HTMLInputElement),
  country: byId("country", HTMLInputElement),
  service: byId("service", HTMLInputElement),
  engineers: byId("engineers", HTMLInputElement),
  hours: byId("hours", HTMLInputElement),
  date: byId("date", HTMLInputElement),
  time: byId("time", HTMLInputElement),
  outOfHours: byId("out-of-hours", HTMLSelectElement),
};
const status = byId("status", HTMLElement);
const askButton = byId("ask", HTMLButtonElement);
const askStatus = byId("ask-status", HTMLElement);
const askPreview = byId("ask-preview", HTMLElement);
const map = byId("map", SVGSVGElement);

/**
 * What the app knows: whether the host runs tools for it, the tool that opened it and its
 * input, whether the person has taken the form over, the newest request (older answers are
 * dropped), the pending edit, the estimate on show (what #ask repeats) and whether the form
 * still matches it, and the estimate asked about.
 * @type {{ serverTools: boolean, toolName: string, toolArgs: any, owned: boolean,
 *   latest: number, timer: ReturnType<typeof setTimeout> | undefined, stale: boolean,
 *   asking: boolean, priced: any, asked: any, coverageCity: string }}
 */
const state = {
  serverTools: false,
  toolName: "",
  toolArgs: null,
  owned: false,
  latest: 0,
  timer: undefined,
  stale: false,
  asking: false,
  priced: null,
  asked: null,
  coverageCity: "",
};

/** @param {"idle" | "busy" | "ok" | "error"} kind @param {string} words */
function setStatus(kind, words) {
  status.dataset.state = kind;
  status.textContent = words;
}

/** @param {string} method @param {any} params */
function onNotification(method, params) {
  if (method === "ui/notifications/host-context-changed") return applyContext(params);
  // The model's call (its input, result or cancellation) shows until the person changes the
  // job or asks again: the form is theirs from then on, and a late word of the model's call
  // would show another job than the form's, or undo their edit.
  if (state.owned) return;
  if (method === "ui/notifications/tool-input") {
    const args = params.arguments;
    state.toolArgs = args && typeof args === "object" ? args : {};
    fillForm(state.toolArgs);
    setStatus("busy", "The assistant is asking the service…");
  } else if (method === "ui/notifications/tool-result") {
    const query = params.structuredContent?.coverage?.query;
    if (!state.toolArgs && query) fillForm({ city: query.city, country: query.country });
    const args = state.toolArgs ?? jobRequest().args;
    const tool = state.toolName || (args.service_type ? "estimate_quote" : "check_coverage");
    showAnswer(params, tool, args);
  } else if (method === "ui/notifications/tool-cancelled") {
    setStatus("error", "The assistant's call was cancelled.");
  }
}

/** The spec's theme variables (colours, fonts, borders, shadows), nothing else. */
const THEME_NAME = /^--(?:color|font|border|shadow)-[a-z0-9-]{1,40}$/;
/** The CSS functions a theme value may call: colours and arithmetic, none that loads. */
const THEME_FUNCTIONS = new Set([
  "",
  "calc",
  "clamp",
  "color",
  "color-mix",
  "hsl",
  "hsla",
  "hwb",
  "lab",
  "lch",
  "light-dark",
  "max",
  "min",
  "oklab",
  "oklch",
  "rgb",
  "rgba",
  "var",
]);

/**
 * Whether a host's theme value is one this app takes: printable ASCII without an escape, a
 * block, an at-rule, `!` or a comment, and only the functions above. A deny-list of what
 * loads (`url(`, `image-set(`…) misses the next one (`src(`, specified, not yet shipped), and
 * a host's CSP looser than the default would let it leave the frame.
 * @param {unknown} value
 * @returns {value is string}
 */
function themeValue(value) {
  if (typeof value !== "string" || value.length > 200) return false;
  if (!/^[\w \t\n#%.,()'"+*/-]*$/.test(value) || value.includes("/*")) return false;
  return [...value.matchAll(/([\w-]*)\(/g)].every((m) =>
    THEME_FUNCTIONS.has((m[1] ?? "").toLowerCase())
  );
}

/** The host's theme, its style variables (the theme's, checked), locale and tool. */
function applyContext(/** @type {any} */ context) {
  if (!context || typeof context !== "object") return;
  const root = document.documentElement;
  if (context.theme === "light" || context.theme === "dark") {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  const variables = context.styles?.variables;
  if (variables && typeof variables === "object") {
    for (const [name, value] of Object.entries(variables)) {
      if (THEME_NAME.test(name) && themeValue(value)) root.style.setProperty(name, value);
    }
  }
  if (typeof context.locale === "string") setLocale(context.locale);
  const tool = context.toolInfo?.tool?.name;
  if (tool === "check_coverage" || tool === "estimate_quote") state.toolName = tool;
}

/** The tool's input in the form (as text: a field shows what it was given, or nothing). */
function fillForm(/** @type {any} */ args) {
  /** @param {HTMLInputElement} input @param {unknown} value */
  const set = (input, value) => {
    const given = typeof value === "string" || typeof value === "number";
    input.value = given ? String(value).slice(0, 200) : "";
  };
  set(fields.city, args.city);
  set(fields.country, args.country);
  set(fields.service, args.service_type);
  set(fields.engineers, args.engineer_count);
  set(fields.hours, args.estimated_hours);
  set(fields.date, args.requested_date);
  set(fields.time, args.requested_time);
  fields.outOfHours.value = typeof args.out_of_hours === "boolean" ? String(args.out_of_hours) : "";
}

/** The call the form stands for: an estimate once a service is set, else a coverage check. */
function jobRequest() {
  /** @type {Record<string, unknown>} */
  const args = { city: fields.city.value.trim() };
  const country = fields.country.value.trim();
  if (country) args.country = country;
  const service = fields.service.value.trim();
  if (!service) return { tool: "check_coverage", args };
  args.service_type = service;
  if (fields.engineers.value !== "") args.engineer_count = Number(fields.engineers.value);
  if (fields.hours.value !== "") args.estimated_hours = Number(fields.hours.value);
  if (fields.date.value) args.requested_date = fields.date.value;
  if (fields.time.value) args.requested_time = fields.time.value;
  if (fields.outOfHours.value) args.out_of_hours = fields.outOfHours.value === "true";
  return { tool: "estimate_quote", args };
}

/** An edit: the answer on show no longer matches the form; ask again once typing stops. */
function edited() {
  state.owned = true;
  state.latest++;
  state.stale = true;
  refreshAsk();
  clearTimeout(state.timer);
  state.timer = setTimeout(update, DEBOUNCE_MS);
  setStatus("busy", "Updating…");
}

/** Asks the service about the form's job, through the host; only the newest answer shows. */
async function update() {
  state.owned = true;
  clearTimeout(state.timer);
  const seq = ++state.latest;
  const { tool, args } = jobRequest();
  if (!args.city) {
    idleCoverage();
    idleEstimate();
    state.priced = null;
    state.coverageCity = "";
    return setStatus("idle", "Enter a city to check coverage.");
  }
  if (!state.serverTools) {
    return setStatus(
      "error",
      "This chat does not let the form update itself: ask the assistant for another city or job.",
    );
  }
  try {
    const result = await request("tools/call", { name: tool, arguments: args });
    if (seq === state.latest) showAnswer(result, tool, args);
  } catch (error) {
    if (seq !== state.latest) return;
    const why = error instanceof Error ? error.message : "no answer";
    setStatus("error", `Could not update (${why}). The last answer is still shown.`);
  }
}

/** @param {any} args */
function cityKey(args) {
  return `${text(args?.city).trim().toLowerCase()}|${text(args?.country).trim().toLowerCase()}`;
}

/**
 * A tool's answer, told apart by its shape (an estimate carries its coverage).
 * @param {any} result @param {string} tool @param {any} args
 */
function showAnswer(result, tool, args) {
  const data = result?.structuredContent;
  state.stale = false;
  state.priced = null;
  if (result?.isError || !data || data.ok !== true) {
    showRefusal(result, tool, state.coverageCity === cityKey(args));
    if (tool !== "estimate_quote") {
      // A coverage check is for a form without a service: no earlier price stays beside it.
      idleEstimate();
      state.coverageCity = "";
    }
    setStatus("error", "The service refused this job: the reasons are shown below.");
  } else if (!readable(data)) {
    idleEstimate();
    idleCoverage("This answer could not be read.");
    state.coverageCity = "";
    setStatus("error", "The chat passed on an answer this app cannot read.");
  } else {
    if (data.budget_estimate) {
      state.priced = { ...showEstimate(data), args, coverage: data.coverage };
      state.priced.message = plain(askText(state.priced));
    } else idleEstimate();
    showCoverage(data.coverage);
    state.coverageCity = cityKey(args);
    setStatus("ok", "Up to date");
  }
  refreshAsk();
}

/**
 * Whether an accepted answer has what is shown of it: a coverage (every answer carries one),
 * and a price in numbers if it has an estimate. Anything less from the host would show the
 * last answer's coverage, or a price of "?" the person could ask a quote for.
 */
function readable(/** @type {any} */ data) {
  const estimate = data.budget_estimate;
  const price = estimate === undefined || estimate === null ||
    (Number.isFinite(estimate?.low) && Number.isFinite(estimate?.high));
  return Boolean(data.coverage) && typeof data.coverage === "object" && price;
}

/** The button, and beside it the exact message it sends while there is one to send. */
function refreshAsk() {
  askButton.disabled = !state.priced || state.stale || state.asking ||
    state.asked === state.priced;
  askPreview.textContent = state.priced && !state.stale ? state.priced.message : "";
}

/**
 * Text as a person reads it on screen: format characters (bidi overrides, zero widths) go,
 * control and line-separating characters become spaces, and runs of spaces one. The message
 * repeats a city as the model or the person gave it: neither a line break nor an invisible
 * character may reach the chat unseen.
 */
function plain(/** @type {string} */ words) {
  return words.replace(/\p{Cf}/gu, "").replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ").trim();
}

/** A plain sentence for the chat: the job, as the service read it, and the estimate shown. */
function askText(/** @type {any} */ priced) {
  const { args, basis } = priced;
  const count = (/** @type {unknown} */ n, /** @type {string} */ word) =>
    `${number(n)} ${n === 1 ? word : `${word}s`}`;
  let job = `${priced.service} in ${placeName(priced.coverage, args)}, ` +
    `${count(basis.engineers, "engineer")} for ${count(basis.hours, "hour")} each`;
  if (args.requested_date) job += `, starting ${text(args.requested_date)}`;
  if (args.requested_time) job += ` at ${text(args.requested_time)} site time`;
  if (args.out_of_hours === true) job += ", out of hours";
  if (args.out_of_hours === false) job += ", in business hours";
  return `Please prepare a quote request for this job: ${job}. The estimate shown was ` +
    `${priced.price}, excluding tax and non-binding. Ask me for my contact details ` +
    "(name, email and company) before you submit it.";
}

/** The place as the service read it: the covered city, or the place and its nearest one. */
function placeName(/** @type {any} */ coverage, /** @type {any} */ args) {
  const site = coverage?.location;
  if (site) return `${text(site.city)}, ${text(site.country)}`;
  const place = coverage?.place;
  const asked = place
    ? `${text(place.name)}, ${text(place.subdivision) || text(place.country)}`
    : `"${plain(text(args.city)).slice(0, 100)}"${args.country ? `, ${text(args.country)}` : ""}`;
  const near = list(coverage?.nearest)[0];
  if (!near) return asked;
  return `${asked} (not covered; the nearest covered city is ${text(near.city)}, ` +
    `${text(near.country)})`;
}

/** The person's click: one `ui/message`, the text shown beside the button, nothing else. */
async function ask() {
  const priced = state.priced;
  if (!priced || askButton.disabled) return;
  state.asking = true;
  refreshAsk();
  askStatus.textContent = "Sending to the chat…";
  try {
    const result = await request("ui/message", {
      role: "user",
      content: [{ type: "text", text: priced.message }],
    });
    if (result?.isError) throw new Error("the chat did not take the message");
    state.asked = priced;
    askStatus.textContent =
      "Sent to the chat: the assistant prepares the quote request and asks for your contact details.";
  } catch (error) {
    const why = error instanceof Error ? error.message : "refused";
    // Silence is not a refusal: the chat may show the message yet, and a second click would
    // send it twice.
    askStatus.textContent = error instanceof Error && error.name === "TimeoutError"
      ? `The chat gave no answer (${why}): look there before you ask again.`
      : `Not sent (${why}). You can ask the assistant in the chat.`;
  } finally {
    state.asking = false;
    refreshAsk();
  }
}

form.addEventListener("input", edited);
form.addEventListener("submit", (event) => {
  event.preventDefault();
  update();
});
map.addEventListener("click", (event) => {
  const circle = event.target instanceof Element ? event.target.closest("[data-id]") : null;
  if (!circle) return;
  fields.city.value = circle.getAttribute("data-city") ?? "";
  fields.country.value = circle.getAttribute("data-country") ?? "";
  edited();
  update();
});
askButton.addEventListener("click", ask);

try {
  const teardown = () => {
    clearTimeout(state.timer);
    state.latest++;
  };
  const host = await connect(APP_INFO, { notification: onNotification, teardown });
  state.serverTools = Boolean(host?.hostCapabilities?.serverTools);
  applyContext(host?.hostContext);
  setStatus("idle", "Waiting for the assistant's answer…");
} catch (error) {
  const why = error instanceof Error ? error.message : "no answer";
  setStatus("error", `Could not connect to the chat (${why}).`);
}
