/**
 * @module
 * Staff review CLI, `deno task review`: list, show, approve and reject submissions
 * in the same KV store as the service, erase or purge them, and disable a client.
 * Approving records a human decision and nothing else: no order, invoice or dispatch
 * is ever created. Everything printed passes through `terminalSafe`: submitted text
 * never reaches the terminal as control characters.
 */

import { parseArgs } from "node:util";
import { isClientId, isRequestId } from "../intake/ids.ts";
import { eraseEmail, eraseOne, parseCutoff, purge } from "./erase.ts";
import { ReviewError, type ReviewIo } from "./io.ts";
import { oneLine, terminalSafe } from "./terminal.ts";
import { REVIEW_BACKOFF_MS } from "./notifier.ts";
import type { BudgetEstimate } from "../catalog/estimate.ts";
import { disableClient } from "../store/credentials.ts";
import {
  getSubmission,
  getSubmissionPayload,
  listSubmissions,
  type ReviewStatus,
  type SubmissionRecord,
  updateSubmission,
} from "../store/submissions.ts";
import { listOutbox, type OutboxEntry } from "../store/outbox.ts";
import { openStore } from "../store/open.ts";

export type { ReviewIo };

export const USAGE = `usage: deno task review <command>
  list [--status pending|approved|rejected] [--kind lead|quote] [--json]
  show <request_id> [--json]
  approve <request_id> [--note "…"] [--by "name"]
  reject <request_id> [--note "…"] [--by "name"]
  erase <request_id>
  erase --email <address> [--dry-run]
  purge --decided-before <YYYY-MM-DD | Nd> [--dry-run]
  disable-client <client_id>
Run "deno task review <command> --help" for what a command does.`;

/** What each command does, for `<command> --help`. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  list:
    `usage: deno task review list [--status pending|approved|rejected] [--kind lead|quote] [--json]
Lists submissions, oldest first, with their review status and whether the review notice
went out. --json prints a JSON array and nothing else.`,
  show: `usage: deno task review show <request_id> [--json]
Shows one submission: the request as submitted, its estimate, decision and notice state.`,
  approve: `usage: deno task review approve <request_id> [--note "…"] [--by "name"]
Records that a person approved the request. Nothing is ordered, invoiced or dispatched.`,
  reject: `usage: deno task review reject <request_id> [--note "…"] [--by "name"]
Records that a person rejected the request.`,
  erase: `usage: deno task review erase <request_id>
       deno task review erase --email <address> [--dry-run]
Erases a submission, its stored request, its review notice and its idempotency record,
in one commit. With --email, every submission whose email is that address (ignoring
case): a data-subject erasure request. --dry-run lists them and erases nothing.`,
  purge: `usage: deno task review purge --decided-before <YYYY-MM-DD | Nd> [--dry-run]
Erases every approved or rejected submission decided before that date (midnight UTC) or
that many days ago. Pending submissions are never purged. SUBMISSION_RETENTION_DAYS makes
the service do this on its own.`,
  "disable-client": `usage: deno task review disable-client <client_id>
Disables an agent client: every token it holds stops working at once on every instance,
and its token requests get invalid_client. Use it when a client secret leaked.`,
};

const NOTE_MAX = 1000;

class UsageError extends Error {}

/** Runs one command; returns the exit code (0 done, 1 refused or failed, 2 usage). */
export async function runReview(args: string[], io: ReviewIo): Promise<number> {
  const safe: ReviewIo = {
    ...io,
    out: (line) => io.out(terminalSafe(line)),
    err: (line) => io.err(terminalSafe(line)),
  };
  try {
    const { values, positionals } = _parse(args);
    const [command, id, ...extra] = positionals;
    if (values.help) {
      safe.out(command && Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command]! : USAGE);
      return 0;
    }
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
    switch (command) {
      case "list":
        if (id) throw new UsageError("list takes no request id");
        await _list(safe, values);
        return 0;
      case "show":
        await _show(safe, _id(id), values.json ?? false);
        return 0;
      case "approve":
      case "reject":
        await _decide(safe, _id(id), command === "approve" ? "approved" : "rejected", values);
        return 0;
      case "erase":
        if (values.email !== undefined) {
          if (id) throw new UsageError("erase takes a request id or --email, not both");
          if (!values.email.includes("@")) throw new UsageError("--email must be an address");
          await eraseEmail(safe, values.email, values["dry-run"] ?? false);
        } else {
          if (values["dry-run"]) throw new UsageError("--dry-run goes with --email");
          await eraseOne(safe, _id(id));
        }
        return 0;
      case "purge": {
        if (id) throw new UsageError("purge takes no request id");
        const raw = values["decided-before"];
        if (raw === undefined) throw new UsageError("purge needs --decided-before");
        const before = parseCutoff(raw, io.now());
        if (before === undefined) {
          throw new UsageError("--decided-before must be a date (YYYY-MM-DD) or days (30d)");
        }
        await purge(safe, before, values["dry-run"] ?? false);
        return 0;
      }
      case "disable-client":
        if (!id) throw new UsageError("a client id is required");
        if (!isClientId(id)) throw new UsageError(`"${oneLine(id)}" is not a client id`);
        await _disable(safe, id);
        return 0;
      default:
        throw new UsageError(
          command ? `unknown command "${oneLine(command)}"` : "no command given",
        );
    }
  } catch (err) {
    if (err instanceof UsageError) {
      safe.err(`error: ${err.message}\n${USAGE}`);
      return 2;
    }
    if (err instanceof ReviewError) {
      safe.err(`error: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

type Options = {
  status?: string;
  kind?: string;
  json?: boolean;
  note?: string;
  by?: string;
};

function _parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        status: { type: "string" },
        kind: { type: "string" },
        json: { type: "boolean" },
        note: { type: "string" },
        by: { type: "string" },
        email: { type: "string" },
        "decided-before": { type: "string" },
        "dry-run": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

function _id(id: string | undefined): string {
  if (!id) throw new UsageError("a request id is required");
  if (!isRequestId(id)) throw new UsageError(`"${oneLine(id)}" is not a request id`);
  return id;
}

async function _list(io: ReviewIo, o: Options): Promise<void> {
  if (o.status !== undefined && !["pending", "approved", "rejected"].includes(o.status)) {
    throw new UsageError("--status must be pending, approved or rejected");
  }
  if (o.kind !== undefined && !["lead", "quote"].includes(o.kind)) {
    throw new UsageError("--kind must be lead or quote");
  }
  const all = await listSubmissions(io.kv);
  // Urgent requests first (emergency, then asap), each group oldest first.
  const rows = all
    .filter((r) => (!o.status || r.status === o.status) && (!o.kind || r.kind === o.kind))
    .sort((a, b) => _urgencyRank(a) - _urgencyRank(b));
  const outbox = await _outbox(io.kv);
  const summaries = rows.map((r) => _summary(r, outbox.get(r.request_id)));
  if (o.json) {
    // Other tools rely on this: a JSON array, each item with request_id, kind, status, created_at.
    io.out(JSON.stringify(summaries));
    return;
  }
  if (io.store) io.err(`store: ${io.store}`);
  if (all.length === 0) {
    // The usual cause: the service runs with KV_PATH and this run does not, or the other way.
    io.err(
      "warning: this store holds no submissions at all. If the service uses another store, " +
        "run this with the service's KV_PATH.",
    );
  }
  if (rows.length === 0) {
    io.out("no submissions");
    return;
  }
  const people = await _people(io.kv, rows);
  io.out(_table([
    [
      "REQUEST_ID",
      "URGENCY",
      "KIND",
      "STATUS",
      "CREATED_AT",
      "VIA",
      "COMPANY",
      "CONTACT",
      "CITY",
      "SERVICE",
      "NOTIFICATION",
    ],
    ...summaries.map((r, i) => [
      r.request_id,
      r.urgency ?? "-",
      r.kind,
      r.status,
      r.created_at,
      r.channel ?? "-",
      _clip(people[i]!.company),
      _clip(people[i]!.contact),
      _clip(people[i]!.city),
      r.service_id ?? "-",
      r.notification,
    ]),
  ]));
}

/** Who sent each submission, from its stored request: company, contact, city. */
async function _people(kv: Deno.Kv, rows: SubmissionRecord[]) {
  return await Promise.all(rows.map(async (r) => {
    const request = JSON.parse(await getSubmissionPayload(kv, r)) as Record<string, unknown>;
    const text = (v: unknown) => typeof v === "string" && v.trim() ? v.trim() : "-";
    return {
      company: text(request.company),
      contact: text(request.contact_name) !== "-"
        ? text(request.contact_name)
        : text(request.email),
      city: text(request.city),
    };
  }));
}

function _clip(text: string, max = 24): string {
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - 1).join("") + "…" : text;
}

const _URGENCY_RANK: Readonly<Record<string, number>> = { emergency: 0, asap: 1 };

/** Where a request's urgency puts it in the list: emergency, asap, then the rest. */
function _urgencyRank(r: SubmissionRecord): number {
  return r.urgency && Object.hasOwn(_URGENCY_RANK, r.urgency) ? _URGENCY_RANK[r.urgency]! : 2;
}

function _summary(r: SubmissionRecord, outbox: OutboxEntry | undefined) {
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
    decided_at: r.decision?.decided_at ?? null,
  };
}

/**
 * `sent`; `pending` (not tried yet, or being sent); `retrying` after a failed attempt;
 * `failing` once every backoff step has failed (it is still retried every 10 minutes).
 */
export function notificationState(record: SubmissionRecord, outbox: OutboxEntry | undefined) {
  if (record.notified_at) return "sent";
  if (!outbox?.last_error) return "pending";
  return outbox.attempts >= REVIEW_BACKOFF_MS.length ? "failing" : "retrying";
}

async function _outbox(kv: Deno.Kv): Promise<Map<string, OutboxEntry>> {
  return new Map((await listOutbox(kv)).map((e) => [e.value.request_id, e.value]));
}

async function _show(io: ReviewIo, id: string, asJson: boolean): Promise<void> {
  const entry = await getSubmission(io.kv, id);
  if (!entry.value) throw new ReviewError(`no submission ${id}`);
  const record = entry.value;
  const request = JSON.parse(await getSubmissionPayload(io.kv, record));
  const outbox = (await _outbox(io.kv)).get(id);
  const notification = notificationState(record, outbox);
  const view = {
    ...record,
    notification,
    ...(outbox ? { notification_attempts: outbox.attempts, last_error: outbox.last_error } : {}),
    request,
  };
  if (asJson) {
    io.out(JSON.stringify(view, null, 2));
    return;
  }
  const lines = [
    `${record.request_id}  ${record.kind}  ${record.status}`,
    `created:      ${record.created_at}`,
    `via:          ${
      Object.hasOwn(_CHANNELS, record.channel ?? "") ? _CHANNELS[record.channel!] : "not recorded"
    }`,
    `notification: ${notification}${record.notified_at ? ` (${record.notified_at})` : ""}${
      outbox?.last_error ? ` after ${outbox.attempts} attempts: ${oneLine(outbox.last_error)}` : ""
    }`,
  ];
  if (record.decision) {
    const d = record.decision;
    lines.push(`decision:     ${d.status} at ${d.decided_at}${d.by ? ` by ${oneLine(d.by)}` : ""}`);
    if (d.note) lines.push(`note:         ${oneLine(d.note)}`);
  }
  if (record.budget_estimate) lines.push(..._estimateLines(record.budget_estimate));
  lines.push("request:", JSON.stringify(request, null, 2));
  io.out(lines.join("\n"));
}

const _CHANNELS: Readonly<Record<string, string>> = {
  web: "the home page's form",
  api: "the REST API",
  mcp: "an MCP tool",
};

/** The estimate as a reviewer reads it: the range, then how it was computed. */
function _estimateLines(e: BudgetEstimate): string[] {
  const b = e.basis;
  const money = (n: number) => `${n.toLocaleString("en-US")} ${e.currency}`;
  const lines = [
    `estimate:     ${money(e.low)} – ${money(e.high)} (non-binding)`,
    `  basis:      ${b.engineers} × ${b.hours} h${b.hours_assumed ? " (assumed)" : ""} at ` +
    `${money(b.hourly_rate)}/h, minimum ${b.minimum_hours} h` +
    `${b.out_of_hours ? ", out of hours" : ""}`,
  ];
  if (e.note) lines.push(`  note:       ${oneLine(e.note)}`);
  return lines;
}

async function _decide(
  io: ReviewIo,
  id: string,
  status: Exclude<ReviewStatus, "pending">,
  o: Options,
): Promise<void> {
  if (o.note !== undefined && o.note.length > NOTE_MAX) {
    throw new UsageError(`--note must be at most ${NOTE_MAX} characters`);
  }
  const entry = await getSubmission(io.kv, id);
  if (!entry.value) throw new ReviewError(`no submission ${id}`);
  if (entry.value.status !== "pending") {
    const d = entry.value.decision;
    throw new ReviewError(`${id} is already ${entry.value.status}${d ? ` (${d.decided_at})` : ""}`);
  }
  const decision = {
    status,
    decided_at: new Date(io.now()).toISOString(),
    by: o.by?.trim() || null,
    note: o.note?.trim() || null,
  };
  const next: SubmissionRecord = { ...entry.value, status, decision };
  // One atomic write that checks the versionstamp: two reviewers cannot overwrite each other.
  if (!await updateSubmission(io.kv, entry as Deno.KvEntry<SubmissionRecord>, next)) {
    throw new ReviewError(`${id} changed while you were deciding; run "show" and try again`);
  }
  io.out(`${id} ${status} at ${decision.decided_at}. Nothing was ordered, invoiced or dispatched.`);
}

/** `disable-client <client_id>`: its tokens stop working at once, everywhere. */
async function _disable(io: ReviewIo, clientId: string): Promise<void> {
  const result = await disableClient(io.kv, clientId, io.now());
  if (!result) throw new ReviewError(`no client ${clientId}`);
  const at = new Date(result.record.disabled_at!).toISOString();
  const was = result.already ? "was already disabled" : "disabled";
  io.out(
    `${clientId} ${was} at ${at}; its tokens are refused from now on, everywhere, and lapse ` +
      "within 15 minutes. Its token requests now get invalid_client.",
  );
}

function _table(cells: string[][]): string {
  const rows = cells.map((r) => r.map(oneLine));
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd())
    .join("\n");
}

if (import.meta.main) {
  const path = Deno.env.get("KV_PATH") || undefined;
  const kv = await openStore(path);
  const code = await runReview(Deno.args, {
    kv,
    store: path ?? "Deno's default store for this project (KV_PATH is not set)",
    now: Date.now,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
  kv.close();
  Deno.exit(code);
}
