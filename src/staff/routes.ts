/**
 * @module
 * The staff console's route table, beside the service's own (routes.ts) in the one router,
 * and left out of the OpenAPI document: the console is for staff, not agents. Served only
 * when `STAFF_CONSOLE` is on (the default). Every console answer is HTML in the console's
 * layout, errors included, with the headers of html.ts (no-store, never framed).
 *
 * Two kinds of console route, by their wrapper:
 * - {@linkcode signedInPage}: a GET that needs a session; without one, `303` to sign-in.
 * - {@linkcode signedInForm}: a POST that changes something; `Origin`, session and form
 *   token checked first (session.ts).
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { type Params, type Route, route } from "../http/router.ts";
import { html, staffPage } from "./html.ts";
import { staffAsset } from "./assets.ts";
import { clearCookie, signOut, staffForm, type StaffVisit, staffVisit } from "./session.ts";

/** A console handler, given the signed-in member. */
export type StaffHandler = (
  req: Request,
  ctx: Context,
  visit: StaffVisit,
  params: Params,
) => Response | Promise<Response>;

/** A console handler for a state-changing request: the visit and the checked form. */
export type StaffFormHandler = (
  req: Request,
  ctx: Context,
  posted: { visit: StaffVisit; form: URLSearchParams },
  params: Params,
) => Response | Promise<Response>;

/** The console's routes (none when `STAFF_CONSOLE` is off: every `/staff/` path is then 404). */
export function staffRoutes(): Route<Context>[] {
  const r = route<Context>;
  return [
    r("GET", STAFF_PATHS.asset, staffAsset),
    r("POST", STAFF_PATHS.signOut, signedInForm(_signOut)),
  ];
}

/** A GET that needs a session: without one, `303 See Other` to the sign-in page. */
export function signedInPage(handler: StaffHandler) {
  return async (req: Request, ctx: Context, params: Params): Promise<Response> => {
    try {
      const visit = await staffVisit(req, ctx);
      if (!visit) return seeOther(STAFF_PATHS.signIn);
      return await handler(req, ctx, visit, params);
    } catch (err) {
      return staffError(err);
    }
  };
}

/** A POST that changes something: `Origin`, session and form token checked before `handler`. */
export function signedInForm(handler: StaffFormHandler) {
  return async (req: Request, ctx: Context, params: Params): Promise<Response> => {
    try {
      return await handler(req, ctx, await staffForm(req, ctx), params);
    } catch (err) {
      return staffError(err);
    }
  };
}

/** `303 See Other` to a console path (after a form post, or to sign in). */
export function seeOther(path: string, headers: Record<string, string> = {}): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: path, "Cache-Control": "no-store", ...headers },
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
    html`<p class="notice error" role="alert">${err.message}</p>${signIn}`,
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
  429: "Too many attempts",
  503: "Unavailable",
};

/** `POST /staff/sign-out`: ends this session here and everywhere. */
async function _signOut(
  _req: Request,
  ctx: Context,
  { visit }: { visit: StaffVisit },
): Promise<Response> {
  await signOut(ctx, visit);
  return seeOther(STAFF_PATHS.signIn, { "Set-Cookie": clearCookie(ctx.config.baseUrl) });
}
