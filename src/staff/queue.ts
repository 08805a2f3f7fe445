/**
 * @module
 * `GET /staff/`: the review queue, the page `deno task review list` prints. Its rows come
 * from the same function (review/list.ts `listRows`): newest first, urgent first within a
 * page, the filters `status` and `kind`, `limit` rows (50 unless asked, at most 1,000), and
 * `before=<request_id>` for the next page, as `--before` goes on from a page's oldest row.
 * Each row shows the notice's state and links to the submission.
 */

import type { Context } from "../context.ts";
import { isRequestId } from "../intake/ids.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { boundedQuery } from "../http/query.ts";
import { type ListQuery, type ListRow, listRows, parseListQuery } from "../review/list.ts";
import { oneLine } from "../review/terminal.ts";
import { type Html, html, staffPage } from "./html.ts";
import {
  dataTable,
  noticeBadge,
  statusBadge,
  submissionLink,
  urgencyMark,
  when,
  who,
} from "./parts.ts";
import type { StaffVisit } from "./session.ts";

const _FIELDS = ["status", "kind", "limit", "before", "erased"] as const;

/**
 * The most submissions one page looks through, however few a filter matches: a page someone
 * waits on reads at most this much of the index (the CLI reads on until its page is full).
 */
const SCAN_MAX = 1000;

/** `GET /staff/?status=&kind=&limit=&before=`. */
export async function queuePage(req: Request, ctx: Context, visit: StaffVisit): Promise<Response> {
  const params = boundedQuery(req, _FIELDS);
  // A filter form left at "any" sends the field empty: that is no filter.
  const value = (name: string) => params.get(name) || undefined;
  const filters = parseListQuery(
    {
      status: value("status"),
      kind: value("kind"),
      limit: value("limit"),
      before: value("before"),
    },
    "",
    (message) => {
      throw new HttpError(400, "invalid_query", message);
    },
  );
  const query: ListQuery = { ...filters, scanMax: SCAN_MAX };
  const rows: ListRow[] = [];
  let seen = 0;
  let next: string | undefined;
  for await (const page of listRows(ctx.kv, query)) {
    rows.push(...page.rows);
    seen += page.seen;
    next = page.next;
  }
  const erased = value("erased");
  const body = html`
    ${erased && isRequestId(erased)
      ? html`
        <p class="notice notice-success"
          role="status">Erased ${erased}, with its stored request and its notice.</p>
      `
      : null}
    ${_filters(query)}
    ${rows.length ? _table(rows) : _empty(query, seen)}
    ${next && rows.length < query.limit
      ? html`
        <p
          class="muted">Looked through ${seen} submissions for these filters; the next page looks further.</p>
      `
      : null}
    ${next ? _nextLink(query, next) : null}
  `;
  return staffPage("Review queue", body, { who: who(visit) });
}

function _filters(q: ListQuery): Html {
  return html`<form method="get" action="${STAFF_PATHS.queue}" class="filters">
  ${_select("Status", "status", ["pending", "approved", "rejected"], q.status)}
  ${_select("Kind", "kind", ["lead", "quote"], q.kind)}
  <button type="submit" class="btn btn-secondary btn-small">Filter</button>
</form>`;
}

/** A filter: "any" (sent empty), then each value, the one in force selected. */
function _select(label: string, name: string, values: readonly string[], chosen?: string): Html {
  const options = ["", ...values].map((value) =>
    html`
      <option value="${value}" ${value === (chosen ?? "")
        ? html`
          selected
        `
        : null}>${value || "any"}</option>
    `
  );
  return html`<label>${label} <select name="${name}">${options}</select></label>`;
}

const _COLUMNS = [
  "Request",
  "Urgency",
  "Kind",
  "Status",
  "Received",
  "Via",
  "Company",
  "Contact",
  "City",
  "Service",
  "Notice",
];

function _table(rows: readonly ListRow[]): Html {
  const cell = (text: string | null | undefined) => text ? oneLine(text) : "–";
  const urgent = (u: string | null | undefined) => u === "emergency" || u === "asap";
  return dataTable(
    "queue",
    _COLUMNS,
    rows.map(({ record: r, notification }) =>
      html`
        <tr data-request-id="${r.request_id}" ${urgent(r.urgency)
          ? html`
            class="urgent-row"
          `
          : null}>
          <td>${submissionLink(r.request_id)}</td>
          <td>${urgencyMark(r.urgency)}</td>
          <td>${r.kind}</td>
          <td>${statusBadge(r.status)}</td>
          <td>${when(r.created_at)}</td>
          <td>${r.channel}</td>
          <td>${cell(r.summary.company)}</td>
          <td>${cell(r.summary.contact)}</td>
          <td>${cell(r.summary.city)}</td>
          <td>${r.service_id ?? "–"}</td>
          <td>${noticeBadge(notification)}</td>
        </tr>
      `
    ),
  );
}

/** Why nothing is listed: an empty store, filters that match nothing, or no older page. */
function _empty(q: ListQuery, seen: number): Html {
  const text = q.before && seen === 0
    ? "No older submissions."
    : seen === 0
    ? "No submissions yet. Leads and quotes appear here as they come in, newest first."
    : "No submissions match these filters.";
  return html`<p class="notice notice-info empty">${text}</p>`;
}

function _nextLink(q: ListQuery, next: string): Html {
  const params = new URLSearchParams();
  if (q.status) params.set("status", q.status);
  if (q.kind) params.set("kind", q.kind);
  params.set("limit", String(q.limit));
  params.set("before", next);
  return html`<p class="pager"><a class="next" rel="next" href="${STAFF_PATHS.queue}?${params}">Next page</a></p>`;
}
