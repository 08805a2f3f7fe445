// @ts-check
/// <reference lib="dom" />
// The test host's sandbox proxy (MCP Apps 2026-01-26, "Sandbox proxy"), served from another
// origin than the host page. It says it is ready, takes the app's HTML from the host once,
// renders it in an inner frame sandboxed to scripts alone (an opaque origin: no access to
// this page, no forms, popups, modals or top navigation) under the CSP built from the
// resource's `_meta.ui.csp`, put first in the document's <head> so that it governs all of
// it, and relays every other message both ways.

const PROXY_READY = "ui/notifications/sandbox-proxy-ready";
const RESOURCE_READY = "ui/notifications/sandbox-resource-ready";
const SANDBOX_METHODS = "ui/notifications/sandbox-";

const hostOrigin = new URL(location.href).searchParams.get("host");
if (!hostOrigin || hostOrigin === location.origin || globalThis.self === globalThis.top) {
  throw new Error("the sandbox proxy runs framed by a host of another origin (?host=)");
}

const inner = document.createElement("iframe");
inner.title = "MCP App";
let loaded = false;

/**
 * Origins a host may grant: a scheme and host, a port or a wildcard subdomain; nothing that
 * could close a directive or add a keyword.
 * @param {unknown} list
 * @returns {string[]}
 */
function domains(list) {
  if (!Array.isArray(list)) return [];
  return list.filter((d) =>
    typeof d === "string" && /^[a-z][a-z0-9+.-]*:\/\/[^\s;,'"<>]+$/i.test(d)
  );
}

/**
 * The app's policy: the spec's restrictive default, widened only by the domains declared.
 * @param {Record<string, unknown> | undefined} csp
 * @returns {string}
 */
function contentSecurityPolicy(csp) {
  const resources = domains(csp?.resourceDomains);
  const connect = domains(csp?.connectDomains);
  const frames = domains(csp?.frameDomains);
  const bases = domains(csp?.baseUriDomains);
  /** @param {string[]} parts */
  const directive = (...parts) => parts.join(" ");
  return [
    "default-src 'none'",
    directive("script-src 'self' 'unsafe-inline'", ...resources),
    directive("style-src 'self' 'unsafe-inline'", ...resources),
    directive("img-src 'self' data:", ...resources),
    directive("media-src 'self' data:", ...resources),
    ...(resources.length ? [directive("font-src", ...resources)] : []),
    directive("connect-src", ...(connect.length ? connect : ["'none'"])),
    directive("frame-src", ...(frames.length ? frames : ["'none'"])),
    "object-src 'none'",
    directive("base-uri", ...(bases.length ? bases : ["'self'"])),
  ].join("; ");
}

/**
 * The app's document with the policy as the first element of its <head>. The HTML is parsed
 * inertly (no script runs) so that the <meta> lands in the head the browser will build,
 * whatever the markup before it.
 * @param {string} html
 * @param {string} policy
 * @returns {string}
 */
function withPolicy(html, policy) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const meta = doc.createElement("meta");
  meta.httpEquiv = "Content-Security-Policy";
  meta.content = policy;
  doc.head.prepend(meta);
  return `<!doctype html>\n${doc.documentElement.outerHTML}`;
}

/** @param {{ html?: unknown, csp?: Record<string, unknown>, sandbox?: unknown }} params */
function load(params) {
  if (loaded || typeof params.html !== "string") return;
  loaded = true;
  inner.setAttribute(
    "sandbox",
    typeof params.sandbox === "string" ? params.sandbox : "allow-scripts",
  );
  inner.srcdoc = withPolicy(params.html, contentSecurityPolicy(params.csp));
  document.body.append(inner);
}

globalThis.addEventListener("message", (event) => {
  const message = event.data;
  const method = typeof message?.method === "string" ? message.method : "";
  if (event.source === globalThis.parent && event.origin === hostOrigin) {
    if (method === RESOURCE_READY) load(message.params ?? {});
    else if (!method.startsWith(SANDBOX_METHODS)) inner.contentWindow?.postMessage(message, "*");
  } else if (inner.contentWindow && event.source === inner.contentWindow) {
    if (!method.startsWith(SANDBOX_METHODS)) globalThis.parent.postMessage(message, hostOrigin);
  }
});

globalThis.parent.postMessage({ jsonrpc: "2.0", method: PROXY_READY, params: {} }, hostOrigin);
