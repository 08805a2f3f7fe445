/**
 * @module
 * The console's own files under `/staff/assets/`: its stylesheet (beside the site's) and the
 * passkey script, the only script the console runs. Read once when this module loads (as
 * web/pages.ts does) and compressed once per encoding.
 */

import { type StaticDocument, staticDocument } from "../http/static_document.ts";
import { CACHE_CONTROL } from "../http/json.ts";
import { HttpError } from "../http/errors.ts";
import type { Params } from "../http/router.ts";
import { CONTENT_SECURITY_POLICY } from "../web/pages.ts";

const _JS = "text/javascript; charset=utf-8";

function _file(name: string): string {
  return Deno.readTextFileSync(new URL(name, import.meta.url));
}

/** Looked up in a Map, so a caller's `toString` finds nothing an object inherits. */
const _ASSETS = new Map(
  Object.entries({
    "staff.css": { body: _file("staff.css"), type: "text/css; charset=utf-8" },
    "passkey.js": { body: _file("passkey.js"), type: _JS },
  }).map(([name, { body, type }]) => [
    name,
    staticDocument(body, {
      "Content-Type": type,
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "Cache-Control": CACHE_CONTROL.public,
    }),
  ]),
);

/** The console's files, for `prepareDocuments` (http/static_document.ts) at start. */
export function staffDocuments(): StaticDocument[] {
  return [..._ASSETS.values()];
}

/** `GET /staff/assets/:name`. */
export function staffAsset(req: Request, _ctx: unknown, params: Params): Response {
  const asset = _ASSETS.get(params.name ?? "");
  if (!asset) throw new HttpError(404, "not_found", "no such asset");
  return asset(req);
}
