/**
 * @module
 * What the console's review pages share: the signed-in member as the layout shows them and
 * the audit trail names them (by name and member id), times, the badges of a status, a notice and an urgency, the
 * path of a submission, and the form token's hidden field. Every value goes through the
 * escaping `html` template; a class name is only ever one of a fixed set.
 */

import { STAFF_PATHS } from "../http/paths.ts";
import { oneLine } from "../review/terminal.ts";
import type { AuditActor, AuditEntry } from "../store/staff_audit.ts";
import { type Html, html, type SignedIn } from "./html.ts";
import type { StaffVisit } from "./session.ts";

/** The member and form token the layout's navigation shows. */
export function who(visit: StaffVisit): SignedIn {
  return { name: visit.member.name, csrf: visit.csrf };
}

/** Who acts, as an audit entry names them: the member, their name, the session's tag. */
export function actorOf(visit: StaffVisit): AuditActor {
  return { member_id: visit.member.member_id, actor: visit.member.name, session: visit.sessionTag };
}

/**
 * Who an audit entry names: the member's name with their id, since two members may share a
 * name (or `cli`, the review CLI, which has no id).
 */
export function auditActor(e: Pick<AuditEntry, "member_id" | "actor">): Html {
  const name = oneLine(e.actor);
  return e.member_id === null
    ? html`${name}`
    : html`${name} <code class="member-id">${e.member_id}</code>`;
}

/** A time (ISO 8601 text or ms) as `2026-11-22 03:18:51 UTC`, exact in `datetime`. */
export function when(at: string | number): Html {
  const iso = new Date(at).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`;
}

/** The path of a submission's page, or of one of its forms (`decide`, `erase`). */
export function submissionPath(
  id: string,
  path: string = STAFF_PATHS.submission,
): string {
  return path.replace(":request_id", encodeURIComponent(id));
}

/** A request id linking to its page. */
export function submissionLink(id: string): Html {
  return html`<a href="${submissionPath(id)}">${id}</a>`;
}

/** A review status as a badge: `pending`, `approved`, `rejected`. */
export function statusBadge(status: string): Html {
  return html`<span class="badge ${_known(status, _STATUSES, "status")}">${status}</span>`;
}

/** A notice's state (review/list.ts `notificationState`) as a badge. */
export function noticeBadge(state: string): Html {
  return html`<span class="badge ${_known(state, _NOTICES, "notify")}">${state}</span>`;
}

/** An urgency: `emergency` and `asap` marked for the eye (and in words), else plain text. */
export function urgencyMark(urgency: string | null | undefined): Html {
  if (urgency === "emergency" || urgency === "asap") {
    return html`<strong class="urgent urgent-${urgency}">${_URGENT[urgency]}</strong>`;
  }
  return html`<span class="muted">${urgency ?? "not given"}</span>`;
}

/** The hidden field that carries the session's form token (session.ts). */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** A table of `rows` (each a `<tr>`) under a header row, with its class (`queue`, `audit`). */
export function dataTable(cls: string, headers: readonly string[], rows: readonly Html[]): Html {
  return html`
    <table class="${cls}">
      <thead>
        <tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  `;
}

/** A form of one labelled field and one button, posting with the session's form token. */
export function fieldForm(f: {
  action: string;
  cls: string;
  csrf: string;
  label: string;
  /** The `<input>`, whose `id` is `f.id`. */
  input: Html;
  id: string;
  button: string;
  danger?: boolean;
}): Html {
  return html`<form method="post" action="${f.action}" class="${f.cls}">
  ${csrfField(f.csrf)}
  <div class="field"><label for="${f.id}">${f.label}</label>${f.input}</div>
  <div class="form-actions">
    <button type="submit" class="btn ${
    f.danger ? "btn-danger" : "btn-primary"
  }">${f.button}</button>
  </div>
</form>`;
}

const _URGENT = { emergency: "Emergency", asap: "ASAP" } as const;
const _STATUSES = new Set(["pending", "approved", "rejected"]);
const _NOTICES = new Set(["sent", "logged", "pending", "retrying", "failing"]);

/** `<kind>-<value>` for a value of the set, `<kind>-other` for anything else. */
function _known(value: string, known: ReadonlySet<string>, kind: string): string {
  return `${kind}-${known.has(value) ? value : "other"}`;
}
