// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// WebMCP: the tools of the descriptor, registered with a browser's model context.

import { API, callApi, problemText } from "./api.js";
import { byId, plural } from "./dom.js";

/** @param {unknown} path */
function sameOriginPath(path) {
  return typeof path === "string" && path.startsWith("/") && !path.startsWith("//");
}

// Calls the REST endpoint a tool maps to and returns its JSON body, errors included.
/**
 * @param {{ method: string, path: string }} http
 * @param {unknown} args
 */
async function runTool(http, args) {
  /** @type {Record<string, unknown>} */
  const input = args && typeof args === "object" ? { ...args } : {};
  const method = String(http.method || "GET").toUpperCase();
  // A path parameter ("/api/v1/requests/{request_id}") takes its argument.
  let path = http.path.replace(
    /\{(\w+)\}/g,
    (/** @type {string} */ _, /** @type {string} */ name) => {
      const value = input[name];
      delete input[name];
      return encodeURIComponent(value === undefined || value === null ? "" : String(value));
    },
  );
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

export async function registerWebMcp() {
  const status = byId("webmcp-status");
  // WebMCP is not in the DOM types yet: the model context, where a browser has one.
  /** @type {any} */
  const page = document;
  /** @type {any} */
  const nav = navigator;
  const context = page.modelContext || nav.modelContext;
  if (!context || typeof context.registerTool !== "function") {
    status.textContent = "No WebMCP model context in this browser, so no tools were registered. " +
      "Browsers with WebMCP get the same tools, with the schemas of the tool descriptor.";
    return;
  }
  const result = await callApi("GET", API.descriptor);
  const tools = result.status === 200 && result.data && Array.isArray(result.data.tools)
    ? result.data.tools
    : null;
  if (!tools) {
    status.textContent =
      "A model context is present, but the tool descriptor could not be loaded: " +
      problemText(result);
    return;
  }
  /** @type {string[]} */
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
        execute: (/** @type {unknown} */ args) => runTool(http, args),
      });
      registered.push(tool.name);
    } catch (err) {
      console.warn("WebMCP: could not register " + tool.name, err);
    }
  }
  status.textContent = "Registered " + plural(registered.length, "tool", "tools") +
    " with this browser's model context: " + registered.join(", ") + ".";
}
