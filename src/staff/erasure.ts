/**
 * @module
 * Erasing from the console, through the CLI's own erasures (review/erase.ts):
 * - `POST /staff/submissions/:request_id/erase` (`confirm=yes`): one submission, with its
 *   audit entry in the erasure's commit, then `303` to the queue, which says so;
 * - `GET /staff/erase-email` and `POST /staff/erase-email`: a data-subject request. Without
 *   `confirm` the post is a dry run that lists what would go and erases nothing, with a
 *   form to confirm; with `confirm=yes` it erases them and `303`s to a page with the count.
 *   One request lists and erases at most {@linkcode ERASE_PAGE}: whoever submits controls
 *   how many share an address, and a flood of them is erased a page at a time, the result
 *   saying that more remain.
 *   The address travels in the form's body only, never in a URL: it reaches no log, no
 *   Referer and no audit entry (which records the count).
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { boundedQuery } from "../http/query.ts";
import type { Params } from "../http/router.ts";
import { isRequestId } from "../intake/ids.ts";
import { eraseAudited, eraseByEmail, findByEmail } from "../review/erase.ts";
import type { SubmissionRecord } from "../store/submissions.ts";
import { type Html, html, seeOther, staffPage } from "./html.ts";
import {
  actorOf,
  csrfField,
  dataTable,
  fieldForm,
  statusBadge,
  submissionLink,
  when,
  who,
} from "./parts.ts";
import type { StaffVisit } from "./session.ts";

/** The longest address a form may ask about (RFC 5321's path limit). */
const EMAIL_MAX = 320;

/** The most submissions one erase-by-email request lists or erases (four commits). */
export const ERASE_PAGE = 100;

type Posted = { visit: StaffVisit; form: URLSearchParams };

/** `POST /staff/submissions/:request_id/erase`: `confirm=yes`. */
export async function eraseForm(
  _req: Request,
  ctx: Context,
  { visit, form }: Posted,
  params: Params,
): Promise<Response> {
  const id = params.request_id ?? "";
  if (!isRequestId(id)) throw new HttpError(404, "not_found", `no submission ${id}`);
  _confirmed(form);
  const erased = await eraseAudited(ctx.kv, id, ctx.now(), actorOf(visit));
  if (!erased) throw new HttpError(404, "not_found", `no submission ${id}: erased already?`);
  return seeOther(`${STAFF_PATHS.queue}?erased=${encodeURIComponent(id)}`);
}

/** `GET /staff/erase-email`: the form, and the count of the erasure just done. */
export function eraseEmailPage(req: Request, _ctx: Context, visit: StaffVisit): Response {
  const query = boundedQuery(req, ["erased", "more"]);
  const erased = query.get("erased");
  const count = erased !== null && /^\d{1,9}$/.test(erased) ? Number(erased) : null;
  const body = html`
    ${count === null ? null : html`
      <p class="notice notice-success"
        role="status">Erased ${_count(
          count,
        )}, each with its stored request, its notice and its idempotency record.</p>
    `}
    ${count !== null && query.get("more") === "1"
      ? html`
        <p class="notice notice-warn" role="status">More submissions have this address: find them
        again to erase the next ${ERASE_PAGE}.</p>
      `
      : null}
    <p>A data-subject request: every submission whose email is this address (in any case) is
    found through the email index. You see them first; nothing is erased until you confirm.</p>
    ${fieldForm({
      action: STAFF_PATHS.eraseEmail,
      cls: "erase-email",
      csrf: visit.csrf,
      label: "Email address",
      id: "email",
      input:
        html`<input id="email" name="email" type="email" required maxlength="${EMAIL_MAX}" autocomplete="off">`,
      button: "Find submissions",
    })}
  `;
  return staffPage("Erase by email", body, { who: who(visit) });
}

/** `POST /staff/erase-email`: `email`; a dry run, or with `confirm=yes` the erasure. */
export async function eraseEmailForm(
  _req: Request,
  ctx: Context,
  { visit, form }: Posted,
): Promise<Response> {
  const email = (form.get("email") ?? "").trim();
  if (!email.includes("@") || email.length > EMAIL_MAX) {
    throw new HttpError(
      400,
      "invalid_request",
      `email must be an address of at most ${EMAIL_MAX} characters`,
    );
  }
  if (form.has("confirm")) {
    _confirmed(form);
    const { erased, more } = await eraseByEmail(ctx.kv, email, ctx.now(), actorOf(visit), {
      limit: ERASE_PAGE,
    });
    return seeOther(`${STAFF_PATHS.eraseEmail}?erased=${erased}${more ? "&more=1" : ""}`);
  }
  const found = await findByEmail(ctx.kv, email, ERASE_PAGE + 1);
  return staffPage("Erase by email: dry run", _dryRun(email, found, visit), { who: who(visit) });
}

/** The page of what a confirmation would erase: `found` holds one more when more remain. */
function _dryRun(email: string, matches: readonly SubmissionRecord[], visit: StaffVisit): Html {
  const found = matches.slice(0, ERASE_PAGE);
  if (!found.length) {
    return html`
      <p class="notice notice-info">No submission has the email ${email}. Nothing to erase.</p>
      <p><a href="${STAFF_PATHS.eraseEmail}">Another address</a></p>
    `;
  }
  return html`
    ${matches.length > found.length
      ? html`
        <p>More than ${_count(
          ERASE_PAGE,
        )} have the email ${email}: these ${ERASE_PAGE}, the first, would be erased now, and the
        rest by finding them again. Nothing is erased yet.</p>
      `
      : html`
        <p>${_count(
          found.length,
        )} with the email ${email} would be erased. Nothing is erased yet.</p>
      `}
    ${dataTable(
      "queue dry-run",
      ["Request", "Kind", "Status", "Received"],
      found.map((r) =>
        html`
          <tr data-request-id="${r.request_id}">
            <td>${submissionLink(r.request_id)}</td>
            <td>${r.kind}</td>
            <td>${statusBadge(r.status)}</td>
            <td>${when(r.created_at)}</td>
          </tr>
        `
      ),
    )}
    <form method="post" action="${STAFF_PATHS.eraseEmail}" class="erase">
      ${csrfField(visit.csrf)}
      <input type="hidden" name="email" value="${email}">
      <input type="hidden" name="confirm" value="yes">
      <div class="form-actions">
        <button type="submit" class="btn btn-danger">Erase ${_count(found.length)}</button>
        <a href="${STAFF_PATHS.eraseEmail}">Cancel</a>
      </div>
    </form>
  `;
}

/** Refuses a form whose `confirm` is not `yes`: erasing is for good. */
function _confirmed(form: URLSearchParams): void {
  if (form.get("confirm") !== "yes") {
    throw new HttpError(400, "invalid_request", "confirm the erasure: it cannot be undone");
  }
}

function _count(n: number): string {
  return `${n} submission${n === 1 ? "" : "s"}`;
}
