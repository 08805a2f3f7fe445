// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The lead and quote forms, posted as JSON with an idempotency key, and the catalog's
// "Request a quote" buttons that fill in the quote form.

import { callApi, newIdempotencyKey, problemText } from "./api.js";
import { byId, byIdAs, h, isBusy, setBusy } from "./dom.js";
import { clearFieldErrors, notice, showAnswer, showIssues, showResult } from "./notices.js";
import { money, reviewTime, STATUS_WORDS } from "./words.js";

// The server renders the service cards; "Request a quote" on a card picks its service.
export function enhanceCatalog() {
  const select = byIdAs("q-service", HTMLSelectElement);
  for (const link of document.querySelectorAll("a[data-service]")) {
    link.addEventListener("click", () => {
      select.value = link.getAttribute("data-service") || "";
    });
  }
}

// The form's named controls as a JSON object: empty fields are left out, numbers
// are sent as numbers, and a ticked checkbox as true. An unticked box is left out too, as
// the form posted without script leaves it out: "not said", so the server infers
// out_of_hours from the date and time at the site, never a false that would underprice.
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
      if (control.checked) payload[name] = true;
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
  const status = typeof data.status === "string" ? data.status : "pending";
  const review = reviewTime(data.expected_review);
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
      h("dd", null, Object.hasOwn(STATUS_WORDS, status) ? STATUS_WORDS[status] : status),
    ),
    review ? h("div", null, h("dt", null, "Expected review"), h("dd", null, review)) : null,
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
      typeof estimate.tax === "string" ? h("p", { class: "estimate-note" }, estimate.tax) : null,
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
    typeof data.next_step === "string"
      ? data.next_step
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
export function setupSubmission(formId, resultId, path, kind) {
  const form = byIdAs(formId, HTMLFormElement);
  const box = byId(resultId);
  // One Idempotency-Key per distinct body: sending the same body again (a double
  // click, a retry after a network error) cannot create a second request.
  let last = { body: "", key: "" };
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (isBusy(form)) return;
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
      form.reset();
      last = { body: "", key: "" };
      showAnswer(box, receiptNode(data, kind));
    } else if (result.status === 400 && data && Array.isArray(data.issues)) {
      showAnswer(box, showIssues(form, data.issues, data.message));
    } else {
      showAnswer(
        box,
        notice("error", "The request was not sent", h("p", null, problemText(result))),
      );
    }
  });
}
