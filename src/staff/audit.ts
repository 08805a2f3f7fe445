/**
 * @module
 * `GET /staff/audit?before=<at_ms>.<entry_id>`: the audit trail of staff actions, newest
 * first, 50 to a page, the page `deno task review audit` prints: when, who (name and member
 * id: two members may share a name), from which session, what, on what. Entries hold identifiers and fixed words only, never submitted
 * text; a request id links to its submission.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { boundedQuery } from "../http/query.ts";
import { isRequestId } from "../intake/ids.ts";
import { AUDIT_PAGE, auditCursor, parseAuditCursor } from "../review/audit.ts";
import { AUDIT_RETENTION_MS, type AuditEntry, listAudit } from "../store/staff_audit.ts";
import { DAY_MS } from "../time.ts";
import { type Html, html, staffPage } from "./html.ts";
import { auditActor, dataTable, submissionLink, when, who } from "./parts.ts";
import type { StaffVisit } from "./session.ts";

/** `GET /staff/audit`. */
export async function auditPage(req: Request, ctx: Context, visit: StaffVisit): Promise<Response> {
  const raw = boundedQuery(req, ["before"]).get("before") || undefined;
  const before = raw === undefined ? undefined : parseAuditCursor(raw);
  if (raw !== undefined && !before) {
    throw new HttpError(400, "invalid_query", "before must be a cursor from an audit page");
  }
  const entries = await listAudit(ctx.kv, ctx.now(), AUDIT_PAGE, before);
  const last = entries.at(-1);
  const body = html`
    <p>Every staff action: who (their name and member id), from which session (the first characters of its digest, or
    cli), what and on what. Kept ${AUDIT_RETENTION_MS /
      DAY_MS} days. It holds no submitted text.</p>
    ${entries.length
      ? _table(entries)
      : html`<p class="notice notice-info empty">${
        before ? "No older entries." : "No staff action is recorded yet."
      }</p>`}
    ${last && entries.length === AUDIT_PAGE
      ? html`<p class="pager"><a class="next" rel="next" href="${STAFF_PATHS.audit}?before=${
        auditCursor(last)
      }">Next page</a></p>`
      : null}
  `;
  return staffPage("Audit trail", body, { who: who(visit) });
}

function _table(entries: readonly AuditEntry[]): Html {
  const target = (t: string | null) => t === null ? "–" : isRequestId(t) ? submissionLink(t) : t;
  return dataTable(
    "audit",
    ["When", "Who", "Session", "Action", "On", "Detail"],
    entries.map((e) =>
      html`
        <tr data-entry-id="${e.entry_id}">
          <td>${when(e.at)}</td>
          <td>${auditActor(e)}</td>
          <td><code>${e.session}</code></td>
          <td>${e.action}</td>
          <td>${target(e.target)}</td>
          <td>${e.detail ?? "–"}</td>
        </tr>
      `
    ),
  );
}
