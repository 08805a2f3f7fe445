/**
 * @module
 * `POST /staff/submissions/:request_id/decision`: approve or reject with a note, through the
 * CLI's own decision (review/decide.ts), so the status read and the notifier see it exactly
 * as a CLI decision. The decision's `by` is the member's name, and its audit entry is
 * written in the decision's commit. It is checked against the versionstamp the page showed:
 * when two reviewers decide at once, one wins (`303` to the submission) and the other gets a
 * `409` page that tells them to look again, with a link to the submission.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import type { Params } from "../http/router.ts";
import { isRequestId } from "../intake/ids.ts";
import { decide, DecisionRefused, type Verdict } from "../review/decide.ts";
import { html, seeOther, staffPage } from "./html.ts";
import { actorOf, submissionPath, who } from "./parts.ts";
import type { StaffVisit } from "./session.ts";

const _VERDICTS: ReadonlyMap<string, Verdict> = new Map([
  ["approve", "approved"],
  ["reject", "rejected"],
]);

/** `POST /staff/submissions/:request_id/decision`: `versionstamp`, `decision`, `note`. */
export async function decisionForm(
  _req: Request,
  ctx: Context,
  { visit, form }: { visit: StaffVisit; form: URLSearchParams },
  params: Params,
): Promise<Response> {
  const id = params.request_id ?? "";
  if (!isRequestId(id)) throw new HttpError(404, "not_found", `no submission ${id}`);
  const status = _VERDICTS.get(form.get("decision") ?? "");
  if (!status) throw new HttpError(400, "invalid_request", "decision must be approve or reject");
  const seen = form.get("versionstamp");
  if (!seen) {
    throw new HttpError(400, "invalid_request", "the form lacks the version it showed: reload it");
  }
  try {
    await decide(ctx.kv, {
      request_id: id,
      status,
      note: form.get("note") ?? undefined,
      by: visit.member.name,
      now: ctx.now(),
      seen,
      actor: actorOf(visit),
    });
  } catch (err) {
    if (!(err instanceof DecisionRefused)) throw err;
    if (err.reason === "invalid") throw new HttpError(400, "invalid_request", err.message);
    if (err.reason === "missing") throw new HttpError(404, "not_found", err.message);
    return _lookAgain(id, visit, err.reason === "decided" ? err.message : null);
  }
  return seeOther(submissionPath(id));
}

/** `409`: someone decided (or anything changed) since the page was read; nothing was written. */
function _lookAgain(id: string, visit: StaffVisit, decided: string | null): Response {
  const why = decided ??
    `${id} changed after you opened it: another reviewer decided it, or its notice went out`;
  return staffPage(
    "Changed meanwhile",
    html`
      <div class="notice notice-warn" role="alert">
        <p>${why}. Your decision was not recorded.</p>
        <p><a href="${submissionPath(id)}">Look again at ${id}</a> before deciding.</p>
      </div>
    `,
    { status: 409, who: who(visit) },
  );
}
