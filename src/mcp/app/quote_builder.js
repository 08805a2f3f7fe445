// @ts-check
/// <reference lib="dom" />
// The quote builder inside an MCP host: it talks to the host over postMessage JSON-RPC
// (the MCP Apps extension, 2026-01-26). Foundation stub: the handshake and the summary.

const PROTOCOL_VERSION = "2026-01-26";
let nextId = 1;
/** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
const pending = new Map();

/**
 * @param {string} method
 * @param {Record<string, unknown>} params
 * @returns {Promise<any>}
 */
function request(method, params) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    globalThis.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  });
}

/** @param {string} method @param {Record<string, unknown>} [params] */
function notify(method, params) {
  globalThis.parent.postMessage({ jsonrpc: "2.0", method, params: params ?? {} }, "*");
}

globalThis.addEventListener("message", (event) => {
  if (event.source !== globalThis.parent) return;
  const message = event.data;
  if (!message || message.jsonrpc !== "2.0") return;
  if (typeof message.id === "number" && pending.has(message.id) && !message.method) {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiting?.reject(new Error(String(message.error.message)));
    else waiting?.resolve(message.result);
    return;
  }
  if (message.method === "ui/notifications/tool-result") show(message.params);
});

/** @param {any} result */
function show(result) {
  const coverage = result?.structuredContent?.coverage;
  const section = document.getElementById("coverage");
  if (section && coverage) section.textContent = String(coverage.summary ?? "");
}

await request("ui/initialize", {
  appInfo: { name: "dc-field-services quote builder", version: "1.0.0" },
  appCapabilities: {},
  protocolVersion: PROTOCOL_VERSION,
});
notify("ui/notifications/initialized");
