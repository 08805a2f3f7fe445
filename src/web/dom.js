// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Small DOM helpers of the home page's script: build elements, find them, count in words.

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * @param {string} tag
 * @param {Record<string, string | boolean | null | undefined | ((ev: Event) => void)> | null} props
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function h(tag, props, ...children) {
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
export function byId(id) {
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
export function byIdAs(id, type) {
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
export function controlOf(form, name) {
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
export function plural(n, one, many) {
  return n + " " + (n === 1 ? one : many);
}

/**
 * Marks a form busy while its request is out: its submit handler sends nothing more, and the
 * submit button says so with `aria-disabled`. It is not `disabled`: a disabled button loses
 * focus, and the person pressing Enter on it would find their place at the top of the page.
 * @param {HTMLFormElement} form
 * @param {boolean} busy
 */
export function setBusy(form, busy) {
  const button = form.querySelector("button[type=submit]");
  if (!(button instanceof HTMLButtonElement)) return;
  if (busy) button.setAttribute("aria-disabled", "true");
  else button.removeAttribute("aria-disabled");
  form.setAttribute("aria-busy", busy ? "true" : "false");
}

/**
 * Whether a form's request is out (see {@linkcode setBusy}).
 * @param {HTMLFormElement} form
 */
export function isBusy(form) {
  return form.getAttribute("aria-busy") === "true";
}
