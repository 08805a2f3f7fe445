// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Notices and field errors: what the page shows after a call, next to the fields at fault.

import { h, plural } from "./dom.js";
import { inWords } from "./words.js";

/**
 * @param {string} kind
 * @param {string | null} title
 * @param {...(import("./dom.js").Child | import("./dom.js").Child[])} body
 */
export function notice(kind, title, ...body) {
  return h(
    "div",
    { class: "notice notice-" + kind, role: kind === "error" ? "alert" : "region" },
    title ? h("p", { class: "notice-title" }, title) : null,
    ...body,
  );
}

/**
 * @param {HTMLElement} box
 * @param {Node} node
 */
export function showResult(box, node) {
  box.replaceChildren(node);
}

/**
 * Shows the answer to a submit (a receipt, a coverage result, an error summary) and moves
 * focus to it: the person's place is the answer, and the next Tab goes on from there. The
 * answer is focusable (tabindex -1: not a stop of its own) and named by its title.
 * @param {HTMLElement} box
 * @param {HTMLElement} answer
 */
export function showAnswer(box, answer) {
  const title = answer.querySelector(".notice-title");
  if (title) {
    title.id = box.id + "-title";
    answer.setAttribute("aria-labelledby", title.id);
  }
  answer.tabIndex = -1;
  box.replaceChildren(answer);
  answer.focus();
}

/** @param {HTMLFormElement} form */
export function clearFieldErrors(form) {
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
 * Puts each issue next to its field and returns a summary listing all of them, each a link
 * to its field: the answer focus moves to ({@linkcode showAnswer}).
 * @param {HTMLFormElement} form
 * @param {any[]} issues
 * @param {string | undefined} message
 */
export function showIssues(form, issues, message) {
  /** @type {HTMLElement[]} */
  const items = [];
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
  return notice("error", title, count > 0 ? h("ul", { class: "issue-list" }, items) : null);
}
