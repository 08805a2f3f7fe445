// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The coverage check: a city typed into the form, answered from GET /api/v1/locations.

import { API, callApi, problemText } from "./api.js";
import { byId, byIdAs, controlOf, h, isBusy, plural, setBusy } from "./dom.js";
import { clearFieldErrors, notice, showAnswer, showIssues, showResult } from "./notices.js";

/**
 * @param {string} city
 * @param {string} [country]
 */
function locationLabel(city, country) {
  return country ? city + ", " + country : city;
}

/**
 * The answer to a coverage check, as a notice: covered (or near a covered city), one of
 * several cities, a country's covered cities, not covered (with the nearest covered ones),
 * or unknown.
 * @param {any} coverage
 * @param {HTMLFormElement} form
 */
function coverageNode(coverage, form) {
  const asked = coverage.query && coverage.query.city ? coverage.query.city : "";
  if (coverage.covered && coverage.location) return coveredNode(coverage);
  if (
    (coverage.match === "ambiguous" || coverage.match === "other_country" ||
      coverage.match === "country") &&
    coverage.candidates.length
  ) {
    return choiceNode(coverage, asked, form);
  }
  const nearest = Array.isArray(coverage.nearest) ? coverage.nearest : [];
  if (coverage.match === "known_uncovered" || nearest.length) {
    return uncoveredNode(asked, nearest);
  }
  return notice(
    "neutral",
    "Unknown city: " + asked,
    h(
      "p",
      null,
      "We could not find a city of that name. Check the spelling, try the English or local name, or choose the country.",
    ),
    // What the resolver says: a close spelling, or what to send instead of a postcode.
    coverage.summary
      ? h("p", null, String(coverage.summary).replace(/ Covered cities: .*$/, ""))
      : null,
  );
}

/**
 * A covered city: its facts, its services, and a link that fills in the quote form.
 * @param {any} coverage
 */
function coveredNode(coverage) {
  const loc = coverage.location;
  const where = locationLabel(loc.city, loc.country);
  // A town, airport or ZIP code near a covered city: say which, and how far.
  const near = coverage.match === "nearby" && coverage.place ? coverage.place : null;
  const first = Array.isArray(coverage.nearest) ? coverage.nearest[0] : undefined;
  return notice(
    "success",
    near ? "Covered from " + where + ": " + near.name : "Covered: " + where,
    near && first
      ? h(
        "p",
        null,
        locationLabel(near.name, near.subdivision || near.country) + " is " +
          first.distance_km + " km from " + where + ".",
      )
      : null,
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
        // Near a covered city, the name as asked: the estimate reads it the same way.
        byIdAs("q-city", HTMLInputElement).value = near ? coverage.query.city : loc.city;
        byIdAs("q-country", HTMLSelectElement).value = loc.country;
      },
    }, "Request a quote in " + loc.city),
  );
}

/**
 * A name several cities share, or a city not in the country given: one button per city,
 * which checks it again.
 * @param {any} coverage
 * @param {string} asked
 * @param {HTMLFormElement} form
 */
function choiceNode(coverage, asked, form) {
  const ambiguous = coverage.match === "ambiguous";
  const country = coverage.match === "country";
  return notice(
    "info",
    ambiguous
      ? "“" + asked + "” matches several cities"
      : country
      ? "“" + asked + "” is a country or state"
      : "“" + asked + "” is not in that country",
    h(
      "p",
      null,
      ambiguous
        ? "Choose the one you mean:"
        : country
        ? "Covered cities there (or type the city or town of the site):"
        : "It is here:",
    ),
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

/**
 * A city outside coverage, with the nearest covered cities and their distances.
 * @param {string} asked
 * @param {any[]} nearest
 */
function uncoveredNode(asked, nearest) {
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

export function setupCoverage() {
  const form = byIdAs("coverage-form", HTMLFormElement);
  const box = byId("coverage-result");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (isBusy(form)) return;
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
      showAnswer(box, coverageNode(result.data.coverage, form));
    } else if (result.status === 400 && result.data && Array.isArray(result.data.issues)) {
      showAnswer(box, showIssues(form, result.data.issues, result.data.message));
    } else {
      showAnswer(
        box,
        notice("error", "The coverage check failed", h("p", null, problemText(result))),
      );
    }
  });
}
