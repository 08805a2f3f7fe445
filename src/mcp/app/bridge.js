// @ts-check
/// <reference lib="dom" />
// The view's side of the MCP Apps bridge (2026-01-26): JSON-RPC 2.0 over postMessage with the
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
export function request(method, params) {
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
export async function connect(appInfo, handlers) {
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
