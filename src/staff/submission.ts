/**
 * @module
 * `GET /staff/submissions/:request_id`: one submission, everything `deno task review show`
 * prints (review/show.ts: the record, how it came in, its notice with attempts and last
 * error, the decision, the estimate with its basis and timing, and the request itself as
 * pretty JSON in a `<pre>`), its history (received, notified, decided, and the audit
 * entries about it), and the decide and erase forms. The decide form carries the record's
 * versionstamp as this page read it, so a decision made meanwhile is found out (decision.ts).
 * Every value reaches the page through the escaping `html` template: submitted text is text.
 */

import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import type { Params } from "../http/router.ts";
import { isRequestId } from "../intake/ids.ts";
import { NOTE_MAX } from "../review/decide.ts";
import {
  estimateFacts,
  type Fact,
  readSubmission,
  recordFacts,
  requestText,
  type SubmissionView,
} from "../review/show.ts";
import { oneLine } from "../review/terminal.ts";
import { type AuditEntry, listAuditOf } from "../store/staff_audit.ts";
import { type Html, html, staffPage } from "./html.ts";
import {
  auditActor,
  csrfField,
  statusBadge,
  submissionPath,
  urgencyMark,
  when,
  who,
} from "./parts.ts";
import type { StaffVisit } from "./session.ts";

/** The most audit entries a submission's history shows (a submission sees a handful). */
const HISTORY_MAX = 50;

/** `GET /staff/submissions/:request_id`. */
export async function submissionPage(
  _req: Request,
  ctx: Context,
  visit: StaffVisit,
  params: Params,
): Promise<Response> {
  const id = params.request_id ?? "";
  const view = isRequestId(id) ? await readSubmission(ctx.kv, id) : null;
  if (!view) {
    throw new HttpError(404, "not_found", `no submission ${id}: it may have been erased`);
  }
  const audit = await listAuditOf(ctx.kv, id, ctx.now(), HISTORY_MAX);
  const r = view.record;
  const estimate = r.budget_estimate
    ? _facts(estimateFacts(r.budget_estimate))
    : html`<p class="muted">No estimate: ${
      r.kind === "lead" ? "a lead has none" : "none stored"
    }.</p>`;
  const body = html`
    <p class="submission-head">
      <span>${r.kind}</span> ${statusBadge(r.status)} ${urgencyMark(r.urgency)}
      <a href="${STAFF_PATHS.queue}">Back to the queue</a>
    </p>
    <section aria-labelledby="record"><h2 id="record">Record</h2>${_facts(
      recordFacts(view),
    )}</section>
    <section aria-labelledby="estimate"><h2 id="estimate">Estimate</h2>${estimate}</section>
    <section aria-labelledby="request">
      <h2 id="request">Request, as submitted</h2>
      <pre class="request">${requestText(view)}</pre>
    </section>
    <section aria-labelledby="history"><h2 id="history">History</h2>${_history(
      view,
      audit,
    )}</section>
    ${r.status === "pending" ? _decideForm(view, visit) : null}
    ${_eraseForm(id, visit)}
  `;
  return staffPage(id, body, { who: who(visit) });
}

/** Facts as a definition list, in the order `show` prints them. */
function _facts(facts: readonly Fact[]): Html {
  return html`<dl class="facts">${
    facts.map(([label, text]) =>
      html`
        <dt>${label}</dt>
        <dd>${text}</dd>
      `
    )
  }</dl>`;
}

interface Event {
  at: number;
  what: Html;
}

/** What happened to the submission, oldest first: the record's times and the audit entries. */
function _history(view: SubmissionView, audit: readonly AuditEntry[]): Html {
  const r = view.record;
  const events: Event[] = [
    {
      at: Date.parse(r.created_at),
      what: html`Received via ${r.channel}`,
    },
  ];
  if (r.notified_at) {
    events.push({
      at: Date.parse(r.notified_at),
      what: html`Review notice ${r.notified_via === "log" ? "logged (no webhook)" : "sent"}`,
    });
  }
  if (r.decision) {
    const d = r.decision;
    events.push({
      at: Date.parse(d.decided_at),
      what: html`Decided: ${d.status}${
        d.by
          ? html`
            by ${oneLine(d.by)}
          `
          : null
      }`,
    });
  }
  for (const e of audit) {
    events.push({
      at: e.at,
      what: html`Audit: <strong>${e.action}</strong> by ${
        auditActor(e)
      }, session <code>${e.session}</code>${
        e.detail
          ? html`
            (${e.detail})
          `
          : null
      }`,
    });
  }
  events.sort((a, b) => a.at - b.at);
  return html`<ol class="history">${
    events.map((e) => html`<li>${when(e.at)} ${e.what}</li>`)
  }</ol>`;
}

function _decideForm(view: SubmissionView, visit: StaffVisit): Html {
  const id = view.record.request_id;
  return html`
    <section aria-labelledby="decide">
      <h2 id="decide">Decide</h2>
      <form method="post" action="${submissionPath(id, STAFF_PATHS.decide)}" class="decide">
        ${csrfField(visit.csrf)}
        <input type="hidden" name="versionstamp" value="${view.versionstamp}">
        <label for="note">Note <span class="optional">kept on the submission, not in the audit trail</span></label>
        <textarea id="note" name="note" rows="3" maxlength="${NOTE_MAX}"></textarea>
        <p class="hint">Approving records a decision and nothing else: nothing is ordered, invoiced or dispatched.</p>
        <div class="form-actions">
          <button type="submit" name="decision" value="approve" class="btn btn-primary">Approve</button>
          <button type="submit" name="decision" value="reject" class="btn btn-secondary">Reject</button>
        </div>
      </form>
    </section>
  `;
}

function _eraseForm(id: string, visit: StaffVisit): Html {
  return html`
    <section aria-labelledby="erase">
      <h2 id="erase">Erase</h2>
      <form method="post" action="${submissionPath(id, STAFF_PATHS.erase)}" class="erase">
        ${csrfField(visit.csrf)}
        <label class="confirm"><input type="checkbox" name="confirm" value="yes" required>
          Erase this submission, its stored request, its notice and its idempotency record, for good</label>
        <div class="form-actions"><button type="submit" class="btn btn-danger">Erase</button></div>
      </form>
    </section>
  `;
}
