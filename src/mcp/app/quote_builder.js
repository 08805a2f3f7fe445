// @ts-check
/// <reference lib="dom" />
// The quote builder inside an MCP host (the MCP Apps extension, 2026-01-26): it fills its
// form from the tool's input, shows the tool's answer (answers.js), sends the person's edits
// back as read-only tool calls through the host (debounced; an answer older than the newest
// request is dropped), and asks the assistant for a quote with one chat message, only when
// the person clicks. It never submits anything itself, and never updates the model's context.

import { connect, request } from "./bridge.js";
import {
  byId,
  idleCoverage,
  idleEstimate,
  list,
  number,
  setLocale,
  showCoverage,
  showEstimate,
  showRefusal,
  text,
} from "./answers.js";

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
