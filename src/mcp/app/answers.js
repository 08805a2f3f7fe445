// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// How the quote builder shows the service's answers: the coverage, the estimate and a
// refusal, every value set as text (textContent, attributes), never as markup. Money is
// formatted with Intl from the server's numbers; no price is computed here. The map marks
// the city an answer is about.

/**
 * The element of `id`, checked to be of its expected type.
 * @template {Element} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
export function byId(id, type) {
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
export function setLocale(/** @type {string} */ tag) {
  try {
    locale = Intl.NumberFormat.supportedLocalesOf([tag])[0];
  } catch {
    locale = undefined;
  }
}

/** A string or number from an answer as text; anything else as nothing. */
export function text(/** @type {unknown} */ value) {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

/** @param {unknown} value @returns {any[]} */
export function list(value) {
  return Array.isArray(value) ? value : [];
}

/** A number of an answer, formatted; "?" when it is not one. */
export function number(/** @type {unknown} */ value) {
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
export function showCoverage(/** @type {any} */ coverage) {
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
export function showEstimate(data) {
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
export function showRefusal(result, tool, coverageStillTrue) {
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
export function idleCoverage(words = "Enter a city to see whether it is covered.") {
  view.coverage.dataset.state = "idle";
  view.summary.textContent = words;
  fillList(view.details, []);
  selectCity("");
}

/** No estimate to show: no service yet. */
export function idleEstimate() {
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
