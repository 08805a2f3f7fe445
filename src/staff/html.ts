/**
 * @module
 * HTML for the staff console, written with the escaping template of `web/html.ts` (passed on
 * from here, so the pages import one module): submitted text can only reach a page as a
 * value, so it is always text, never markup. {@linkcode staffPage} is the layout every console page shares;
 * {@linkcode seeOther} and {@linkcode staffError} the two other answers a console handler
 * gives (here, not in routes.ts, so the page modules that routes.ts imports import neither
 * it nor themselves through it).
 */

import { CONTENT_SECURITY_POLICY } from "../web/pages.ts";
import { type Html, html } from "../web/html.ts";
import { HttpError } from "../http/errors.ts";
import { CACHE_CONTROL } from "../http/json.ts";
import { STAFF_PATHS } from "../http/paths.ts";

export { Html, html } from "../web/html.ts";

/**
 * Headers of every console answer: no cache keeps it (a proxy included), nothing compresses
 * it on the way (its form token sits beside text a submitter wrote: http/json.ts,
 * `CACHE_CONTROL.secret`), nobody frames it, the site's CSP (only its own scripts and
 * styles), no referrer beyond the site.
 */
export const STAFF_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "Cache-Control": CACHE_CONTROL.staffPage,
  "Pragma": "no-cache",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
});

/** Who is signed in, as the layout shows it (the navigation and the sign-out form). */
export interface SignedIn {
  name: string;
  csrf: string;
}

/** A console page: the layout around `body`, with the navigation when someone is signed in. */
export function staffPage(
  title: string,
  body: Html,
  options: { who?: SignedIn; status?: number; headers?: HeadersInit; script?: string } = {},
): Response {
  const { who } = options;
  const nav = who
    ? html`<nav class="staff-nav" aria-label="Console">
  <a href="${STAFF_PATHS.queue}">Queue</a>
  <a href="${STAFF_PATHS.eraseEmail}">Erase by email</a>
  <a href="${STAFF_PATHS.clients}">Agent clients</a>
  <a href="${STAFF_PATHS.members}">Staff</a>
  <a href="${STAFF_PATHS.audit}">Audit trail</a>
  <a href="${STAFF_PATHS.demand}">Demand</a>
  <form method="post" action="${STAFF_PATHS.signOut}" class="staff-signout">
    <input type="hidden" name="csrf" value="${who.csrf}">
    <span>${who.name}</span> <button type="submit">Sign out</button>
  </form>
</nav>`
    : null;
  const script = options.script
    ? html`<script type="module" src="${STAFF_PATHS.assets}${options.script}"></script>`
    : null;
  const doc = html`
    <!doctype html>
    <html lang="en">
      <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="robots" content="noindex">
    <title>${title} · Staff console</title>
    <link rel="stylesheet" href="/assets/styles.css">
    <link rel="stylesheet" href="${STAFF_PATHS.assets}staff.css">
    <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
    ${script}
      </head>
      <body class="staff">
        <header class="staff-header"><strong>Staff console</strong>${nav}</header>
        <main id="main">
    <h1>${title}</h1>
    ${body}
        </main>
      </body>
    </html>
  `;
  const headers = new Headers(STAFF_HEADERS);
  for (const [k, v] of new Headers(options.headers)) headers.set(k, v);
  return new Response(doc.toString(), { status: options.status ?? 200, headers });
}

/** `303 See Other` to a console path (after a form post, or to sign in). */
export function seeOther(path: string, headers: Record<string, string> = {}): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: path, "Cache-Control": CACHE_CONTROL.secret, ...headers },
  });
}

/** An {@linkcode HttpError} as a console page with its status; anything else is thrown on. */
export function staffError(err: unknown): Response {
  if (!(err instanceof HttpError)) throw err;
  const signIn = err.status === 401
    ? html`<p><a href="${STAFF_PATHS.signIn}">Sign in</a></p>`
    : null;
  return staffPage(
    _TITLES[err.status] ?? "Refused",
    html`<p class="notice notice-error" role="alert">${err.message}</p>${signIn}`,
    { status: err.status, headers: err.headers },
  );
}

const _TITLES: Readonly<Record<number, string>> = {
  400: "Not understood",
  401: "Not signed in",
  403: "Refused",
  404: "Not found",
  409: "Changed meanwhile",
  413: "Too large",
  415: "Not accepted",
  429: "Too many attempts",
  503: "Unavailable",
};
