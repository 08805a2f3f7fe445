/**
 * @module
 * `deno task review list`: a page of submissions, newest first, read from the time index
 * (store/submission_index.ts) and the records' summaries, never their payloads, so a page
 * costs the same at a thousand submissions and at a million. `--before <request_id>` goes
 * on from a page's last row; `--all` streams every page. Urgent requests lead their page.
 * {@linkcode listRows} reads the pages for the CLI and the console's queue alike.
 */

import type { Kv } from "../store/store.ts";
import { isRequestId, requestIdTime } from "../intake/ids.ts";
import { getOutboxEntries, type OutboxEntry } from "../store/outbox.ts";
import { idPagesNewestFirst } from "../store/submission_index.ts";
import { getSubmissions, type SubmissionRecord } from "../store/submissions.ts";
import { REVIEW_BACKOFF_MS } from "./notifier.ts";
import type { ReviewIo } from "./io.ts";
import { tableRow } from "./terminal.ts";

/** Rows a page shows unless `--limit` says otherwise. */
const LIST_PAGE = 50;
/** Most rows `--limit` may ask for in one page; `--all` streams any number. */
const LIST_MAX = 1000;

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

/** Which submissions a list shows, and how many: the CLI's flags, the console's query. */
export interface ListQuery {
  status?: "pending" | "approved" | "rejected";
  kind?: "lead" | "quote";
  limit: number;
  /** List only submissions older than this one. */
  before?: { createdMs: number; id: string };
  /** Every page, however many rows (the CLI's `--all`). */
  all?: boolean;
  /**
   * Stop once this many ids were read, filled or not, and go on from the oldest read: what
   * a page someone waits on reads at most, however few submissions a filter matches (the
   * console's). The CLI reads on until it fills its page.
   */
  scanMax?: number;
}

export interface ListOptions extends ListQuery {
  json?: boolean;
}

/** A row of a list: the record and the state of its review notice. */
export interface ListRow {
  record: SubmissionRecord;
  notification: string;
}

/** What {@linkcode listRows} yields for each page of the time index it reads. */
interface ListPage {
  /** The page's rows that pass the filters, urgent first. */
  rows: ListRow[];
  /** How many ids the page read from the index, filtered or not. */
  seen: number;
  /**
   * On the last page of a query that stopped at its limit: the request id to go on from
   * (the oldest row shown, whatever the urgency order put last); or, stopped at `scanMax`,
   * the oldest id read.
   */
  next?: string;
}

/**
 * The raw filters of a list (a flag or query value each, absent when not given) as a
 * {@linkcode ListQuery}; `refuse` throws the surface's own error with the message, whose
 * names start with `flag` (`--` for the CLI, nothing for the console).
 */
export function parseListQuery(
  raw: { status?: string; kind?: string; limit?: string; before?: string },
  flag: string,
  refuse: (message: string) => never,
): ListQuery {
  if (raw.status !== undefined && !["pending", "approved", "rejected"].includes(raw.status)) {
    refuse(`${flag}status must be pending, approved or rejected`);
  }
  if (raw.kind !== undefined && !["lead", "quote"].includes(raw.kind)) {
    refuse(`${flag}kind must be lead or quote`);
  }
  const limit = raw.limit === undefined ? LIST_PAGE : Number(raw.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) {
    refuse(`${flag}limit must be a whole number from 1 to ${LIST_MAX}`);
  }
  let before: ListQuery["before"];
  if (raw.before !== undefined) {
    if (!isRequestId(raw.before)) refuse(`${flag}before takes a request id from a list`);
    before = { createdMs: requestIdTime(raw.before), id: raw.before };
  }
  return {
    status: raw.status as ListQuery["status"],
    kind: raw.kind as ListQuery["kind"],
    limit,
    before,
  };
}

/**
 * The rows of a list, a page of the time index at a time, newest first and urgent first
 * within each page, each with its notice's state: what `review list` prints and the
 * console's queue shows. Stops once `limit` rows were given, unless `all`.
 */
export async function* listRows(kv: Kv, q: ListQuery): AsyncGenerator<ListPage> {
  let shown = 0;
  let read = 0;
  for await (const ids of idPagesNewestFirst(kv, Math.min(q.limit, 200), q.before)) {
    read += ids.length;
    const records = (await getSubmissions(kv, ids))
      .filter((r) => (!q.status || r.status === q.status) && (!q.kind || r.kind === q.kind));
    const rows = q.all ? records : records.slice(0, q.limit - shown);
    const oldest = rows.at(-1);
    rows.sort((a, b) => _urgencyRank(a) - _urgencyRank(b));
    const notices = await getOutboxEntries(kv, rows.map((r) => r.request_id));
    shown += rows.length;
    const full = !q.all && shown >= q.limit;
    const next = full
      ? oldest?.request_id
      : read >= (q.scanMax ?? Infinity)
      ? ids.at(-1)
      : undefined;
    yield {
      rows: rows.map((record, i) => ({
        record,
        notification: notificationState(record, notices[i]!.value ?? undefined),
      })),
      seen: ids.length,
      ...(next ? { next } : {}),
    };
    if (next) return;
  }
}

/** Lists a page (or, with `all`, every page) of submissions. */
export async function listSubmissionsPage(io: ReviewIo, o: ListOptions): Promise<void> {
  if (!o.json && io.store) io.err(`store: ${io.store}`);
  let shown = 0;
  let seen = 0;
  let next: string | undefined;
  const json: string[] = [];
  const table: string[] = [];
  for await (const page of listRows(io.kv, o)) {
    seen += page.seen;
    next = page.next;
    for (const { record, notification } of page.rows) {
      const summary = listItem(record, notification);
      // A page of JSON is one line; --all --json streams the array an item a line.
      if (o.json && o.all) io.out(`${shown ? "," : "["}${JSON.stringify(summary)}`);
      else if (o.json) json.push(JSON.stringify(summary));
      else table.push(_row(_cells(record, notification)));
      shown++;
    }
    // The table is printed a page at a time, as it is read (the header first).
    if (table.length) {
      if (shown === table.length) table.unshift(_row(_COLUMNS.map(([name]) => name)));
      io.out(table.join("\n"));
      table.length = 0;
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
  if (next) io.err(`more: deno task review list --before ${next}`);
}

/** What `list --json` prints of a submission. */
function listItem(r: SubmissionRecord, notification: string) {
  return {
    request_id: r.request_id,
    urgency: r.urgency ?? null,
    kind: r.kind,
    status: r.status,
    created_at: r.created_at,
    channel: r.channel,
    service_id: r.service_id,
    covered: r.covered,
    notification,
    notified_at: r.notified_at,
    notified_via: r.notified_via ?? null,
    decided_at: r.decision?.decided_at ?? null,
  };
}

/**
 * `sent` (the webhook answered 2xx); `logged` (no webhook was configured: the notice was
 * only logged); `pending` (not tried yet, or being sent); `retrying` after a failed
 * attempt; `failing` once every backoff step has failed (it is still retried every 10
 * minutes).
 */
export function notificationState(
  record: SubmissionRecord,
  outbox: OutboxEntry | undefined,
): string {
  if (record.notified_at) return record.notified_via === "log" ? "logged" : "sent";
  if (!outbox?.last_error) return "pending";
  return outbox.attempts >= REVIEW_BACKOFF_MS.length ? "failing" : "retrying";
}

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
    r.channel,
    r.summary.company ?? "-",
    r.summary.contact ?? "-",
    r.summary.city ?? "-",
    r.service_id ?? "-",
    notification,
  ];
}

/** One row with the columns' fixed widths, so rows can be printed as they are read. */
function _row(cells: readonly string[]): string {
  return tableRow(cells, _COLUMNS.map(([, width]) => width));
}
