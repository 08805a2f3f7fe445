/**
 * @module
 * The home page for people and browser agents (WebMCP): one HTML page, one script
 * and one stylesheet, all served from this module with a strict CSP ('self' only).
 */

import type { Context } from "./context.ts";
import { FAVICON_SVG, HOME_HTML } from "./web/home_html.ts";
import { APP_JS } from "./web/app_js.ts";
import { STYLES_CSS } from "./web/styles_css.ts";
import { HttpError } from "./http.ts";
import type { Params } from "./router.ts";

/** Only same-origin resources; no inline script or style, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const _ASSETS: Record<string, { body: string; type: string }> = {
  "app.js": { body: APP_JS, type: "text/javascript; charset=utf-8" },
  "styles.css": { body: STYLES_CSS, type: "text/css; charset=utf-8" },
  "favicon.svg": { body: FAVICON_SVG, type: "image/svg+xml" },
};

/** `GET /`: the home page. */
export function homePage(_req: Request, _ctx: Context): Response {
  return new Response(HOME_HTML, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "Cache-Control": "public, max-age=300",
      "Referrer-Policy": "no-referrer",
    },
  });
}

/** `GET /assets/:name`: the page's script and stylesheet. */
export function webAsset(_req: Request, _ctx: Context, params: Params): Response {
  const asset = _ASSETS[params.name ?? ""];
  if (!asset) throw new HttpError(404, "not_found", "no such asset");
  return new Response(asset.body, {
    headers: {
      "Content-Type": asset.type,
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "Cache-Control": "public, max-age=300",
    },
  });
}
