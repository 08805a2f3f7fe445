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
import { STAFF_PATHS } from "../http/paths.ts";
import { type Params, type Route, route } from "../http/router.ts";
import { seeOther, staffError } from "./html.ts";
import { staffAsset } from "./assets.ts";
import { enrolBegin, enrolFinish, enrolPage } from "./enrolment.ts";
import { createInviteLink, membersPage, removeStaffMember } from "./members.ts";
import { signInBegin, signInFinish, signInPage } from "./sign_in.ts";
import { auditPage } from "./audit.ts";
import { clientsPage, disableClientForm } from "./clients.ts";
import { decisionForm } from "./decision.ts";
import { demandPage } from "./demand.ts";
import { eraseEmailForm, eraseEmailPage, eraseForm } from "./erasure.ts";
import { queuePage } from "./queue.ts";
import { submissionPage } from "./submission.ts";
import { clearCookie, signOut, staffForm, type StaffVisit, staffVisit } from "./session.ts";

/** A console handler, given the signed-in member. */
type StaffHandler = (
  req: Request,
  ctx: Context,
  visit: StaffVisit,
  params: Params,
) => Response | Promise<Response>;

/** A console handler for a state-changing request: the visit and the checked form. */
type StaffFormHandler = (
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
    // Passkey ceremonies: open pages, and JSON POSTs that check Origin and are rate limited.
    r("GET", STAFF_PATHS.signIn, signInPage),
    r("POST", STAFF_PATHS.signInOptions, signInBegin),
    r("POST", STAFF_PATHS.signIn, signInFinish),
    r("GET", STAFF_PATHS.enrol, enrolPage),
    r("POST", STAFF_PATHS.enrolOptions, enrolBegin),
    r("POST", STAFF_PATHS.enrol, enrolFinish),
    r("POST", STAFF_PATHS.signOut, signedInForm(_signOut)),
    // Staff members and invites.
    r("GET", STAFF_PATHS.members, signedInPage(membersPage)),
    r("POST", STAFF_PATHS.invites, signedInForm(createInviteLink)),
    r("POST", STAFF_PATHS.removeMember, signedInForm(removeStaffMember)),
    r("GET", STAFF_PATHS.queue, signedInPage(queuePage)),
    r("GET", STAFF_PATHS.submission, signedInPage(submissionPage)),
    r("POST", STAFF_PATHS.decide, signedInForm(decisionForm)),
    r("POST", STAFF_PATHS.erase, signedInForm(eraseForm)),
    r("GET", STAFF_PATHS.eraseEmail, signedInPage(eraseEmailPage)),
    r("POST", STAFF_PATHS.eraseEmail, signedInForm(eraseEmailForm)),
    r("GET", STAFF_PATHS.clients, signedInPage(clientsPage)),
    r("POST", STAFF_PATHS.clients, signedInForm(disableClientForm)),
    r("GET", STAFF_PATHS.audit, signedInPage(auditPage)),
    r("GET", STAFF_PATHS.demand, signedInPage(demandPage)),
  ];
}

/** A GET that needs a session: without one, `303 See Other` to the sign-in page. */
function signedInPage(handler: StaffHandler) {
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
function signedInForm(handler: StaffFormHandler) {
  return async (req: Request, ctx: Context, params: Params): Promise<Response> => {
    try {
      return await handler(req, ctx, await staffForm(req, ctx), params);
    } catch (err) {
      return staffError(err);
    }
  };
}

/** `POST /staff/sign-out`: ends this session here and everywhere. */
async function _signOut(
  _req: Request,
  ctx: Context,
  { visit }: { visit: StaffVisit },
): Promise<Response> {
  await signOut(ctx, visit);
  return seeOther(STAFF_PATHS.signIn, { "Set-Cookie": clearCookie(ctx.config.baseUrl) });
}
