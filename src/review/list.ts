/**
 * @module
 * `deno task review list`: a page of submissions, newest first, read from the time index
 * (store/submission_index.ts) and the records' summaries, never their payloads, so a page
 * costs the same at a thousand submissions and at a million. `--before <request_id>` goes
 * on from a page's last row; `--all` streams every page. Urgent requests lead their page.
 */

import { getOutboxEntries, type OutboxEntry } from "../store/outbox.ts";
import { idPagesNewestFirst } from "../store/submission_index.ts";
import { getSubmissions, type SubmissionRecord } from "../store/submissions.ts";
import { REVIEW_BACKOFF_MS } from "./notifier.ts";
import type { ReviewIo } from "./io.ts";
import { indexOlderSubmissions } from "./summary.ts";
import { oneLine } from "./terminal.ts";

/** Rows a page shows unless `--limit` says otherwise. */
export const LIST_PAGE = 50;
/** Most rows `--limit` may ask for in one page; `--all` streams any number. */
export const LIST_MAX = 1000;

export interface ListOptions {
  status?: "pending" | "approved" | "rejected";
  kind?: "lead" | "quote";
  json?: boolean;
  limit: number;
  /** List only submissions older than this one. */
  before?: { createdMs: number; id: string };
  all?: boolean;
}

const _COLUMNS = [
  ["REQUEST_ID", 32],
  ["URGENCY", 9],
  ["KIND", 5],
  ["STATUS", 8],
  ["CREATED_AT", 24],
  ["VIA", 3],
  ["COMPANY", 24],
  ["CONTACT", 24],
  ["CITY", 24],
  ["SERVICE", 18],
  ["NOTIFICATION", 12],
] as const;

/** Lists a page (or, with `all`, every page) of submissions. */
export async function listSubmissionsPage(io: ReviewIo, o: ListOptions): Promise<void> {
  const indexed = await indexOlderSubmissions(io.kv);
  if (indexed) io.err(`indexed ${indexed} older submissions (once per store)`);
  if (!o.json && io.store) io.err(`store: ${io.store}`);
  let shown = 0;
  let seen = 0;
  let last: SubmissionRecord | undefined;
  let full = false;
  const json: string[] = [];
  const table: string[] = [];
  for await (const ids of idPagesNewestFirst(io.kv, Math.min(o.limit, 200), o.before)) {
    seen += ids.length;
    const records = (await getSubmissions(io.kv, ids))
      .filter((r) => (!o.status || r.status === o.status) && (!o.kind || r.kind === o.kind));
    const rows = o.all ? records : records.slice(0, o.limit - shown);
    rows.sort((a, b) => _urgencyRank(a) - _urgencyRank(b));
    const notices = await getOutboxEntries(io.kv, rows.map((r) => r.request_id));
    for (const [i, r] of rows.entries()) {
      const summary = listItem(r, notices[i]!.value ?? undefined);
      // A page of JSON is one line; --all --json streams the array an item a line.
      if (o.json && o.all) io.out(`${shown ? "," : "["}${JSON.stringify(summary)}`);
      else if (o.json) json.push(JSON.stringify(summary));
      else table.push(_row(_cells(r, summary.notification)));
      shown++;
      last = r;
    }
    // The table is printed a page at a time, as it is read (the header first).
    if (table.length) {
      if (shown === table.length) table.unshift(_row(_COLUMNS.map(([name]) => name)));
      io.out(table.join("\n"));
      table.length = 0;
    }
    if (!o.all && shown >= o.limit) {
      full = true;
      break;
    }
  }
  if (o.json) io.out(o.all ? (shown ? "]" : "[]") : `[${json.join(",")}]`);
  if (seen === 0 && !o.before && !o.json) {
    // The usual cause: the service runs with KV_PATH and this run does not, or the other way.
    io.err(
      "warning: this store holds no submissions at all. If the service uses another store, " +
        "run this with the service's KV_PATH.",
    );
  }
  if (!o.json && shown === 0) io.out("no submissions");
  if (full && last) io.err(`more: deno task review list --before ${last.request_id}`);
}

/** What `list --json` prints of a submission. */
function listItem(r: SubmissionRecord, outbox: OutboxEntry | undefined) {
  return {
    request_id: r.request_id,
    urgency: r.urgency ?? null,
    kind: r.kind,
    status: r.status,
    created_at: r.created_at,
    channel: r.channel ?? null,
    service_id: r.service_id,
    covered: r.covered,
    notification: notificationState(r, outbox),
    notified_at: r.notified_at,
    notified_via: r.notified_via ?? null,
    decided_at: r.decision?.decided_at ?? null,
  };
}

/**
 * `sent` (the webhook answered 2xx); `logged` (no webhook was configured: the notice was
 * only logged); `notified` (by a version that did not record which); `pending` (not tried
 * yet, or being sent); `retrying` after a failed attempt; `failing` once every backoff
 * step has failed (it is still retried every 10 minutes).
 */
export function notificationState(record: SubmissionRecord, outbox: OutboxEntry | undefined) {
  if (record.notified_at) return _NOTIFIED[record.notified_via ?? ""] ?? "notified";
  if (!outbox?.last_error) return "pending";
  return outbox.attempts >= REVIEW_BACKOFF_MS.length ? "failing" : "retrying";
}

const _NOTIFIED: Readonly<Record<string, string>> = { webhook: "sent", log: "logged" };

const _URGENCY_RANK: Readonly<Record<string, number>> = { emergency: 0, asap: 1 };

/** Where a request's urgency puts it in its page: emergency, asap, then the rest. */
function _urgencyRank(r: SubmissionRecord): number {
  return r.urgency && Object.hasOwn(_URGENCY_RANK, r.urgency) ? _URGENCY_RANK[r.urgency]! : 2;
}

function _cells(r: SubmissionRecord, notification: string): string[] {
  return [
    r.request_id,
    r.urgency ?? "-",
    r.kind,
    r.status,
    r.created_at,
    r.channel ?? "-",
    r.summary?.company ?? "-",
    r.summary?.contact ?? "-",
    r.summary?.city ?? "-",
    r.service_id ?? "-",
    notification,
  ];
}

/** One row with fixed column widths, so rows can be printed as they are read. */
function _row(cells: readonly string[]): string {
  return cells.map((cell, c) => {
    const width = _COLUMNS[c]![1];
    const chars = [...oneLine(cell)];
    const text = chars.length > width ? chars.slice(0, width - 1).join("") + "…" : chars.join("");
    return text.padEnd(width);
  }).join("  ").trimEnd();
}
