// @ts-check
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page's calls to the service: the endpoints, and a fetch that never throws.

/**
 * What an API call returns; `status` 0 means the request did not get through. `data`
 * is the JSON body as sent, checked field by field where it is used.
 * @typedef {{ status: number, data: any }} ApiResult
 */

export const API = {
  services: "/api/v1/services",
  locations: "/api/v1/locations",
  // The page's own form endpoints: the same submissions as /api/v1/intake and
  // /api/v1/quotes, recorded as coming from the web page.
  intake: "/forms/lead",
  quotes: "/forms/quote",
  descriptor: "/.well-known/mcp.json",
};

// Returns { status, data } and never throws: status 0 means the request did not get through.
/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 * @returns {Promise<ApiResult>}
 */
export async function callApi(method, path, body, headers) {
  /** @type {Record<string, string>} */
  const sent = { Accept: "application/json", ...(headers || {}) };
  /** @type {RequestInit} */
  const init = { method, headers: sent };
  if (body !== undefined) {
    sent["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    return { status: 0, data: null };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  return { status: res.status, data };
}

/** @param {ApiResult} result */
export function problemText(result) {
  if (result.status === 0) {
    return "The service could not be reached. Check your connection and try again.";
  }
  const message = result.data && typeof result.data.message === "string"
    ? result.data.message
    : "The service answered with status " + result.status + ".";
  if (result.status === 429) return message + " Please wait a minute before trying again.";
  return message;
}

export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
