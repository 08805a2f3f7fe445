/**
 * @module
 * Staff review CLI, `deno task review`: list, show, approve and reject submissions
 * in the same KV store as the service, erase or purge them, disable a client, and invite
 * or remove staff console members (review/staff.ts).
 * Approving records a human decision and nothing else: no order, invoice or dispatch
 * is ever created. Everything printed passes through `terminalSafe`: submitted text
 * never reaches the terminal as control characters.
 */

import { parseArgs } from "node:util";
import { isClientId, isRequestId, requestIdTime } from "../intake/ids.ts";
import { printNoticeBacklog } from "./backlog.ts";
import { eraseEmail, eraseOne, parseCutoff, purge } from "./erase.ts";
import { ReviewError, type ReviewIo, UsageError } from "./io.ts";
import { oneLine, terminalSafe } from "./terminal.ts";
import type { BudgetEstimate } from "../pricing/budget.ts";
import { disableClient } from "../store/credentials.ts";
import {
  getSubmission,
  getSubmissionPayload,
  type ReviewStatus,
  type SubmissionRecord,
  updateSubmission,
} from "../store/submissions.ts";
import { getOutboxEntry } from "../store/outbox.ts";
import {
  LIST_MAX,
  LIST_PAGE,
  type ListOptions,
  listSubmissionsPage,
  notificationState,
} from "./list.ts";
import { openStore } from "../store/open.ts";
import { isStoreUnavailable } from "../store/deadline.ts";
import { storeLocation } from "../ops/platform.ts";
import { loadConfig } from "../config.ts";
import { runStaffCommand, STAFF_HELP, STAFF_USAGE } from "./staff.ts";

const USAGE = `usage: deno task review <command>
  list [--status pending|approved|rejected] [--kind lead|quote] [--limit N | --before <request_id> | --all] [--json]
  show <request_id> [--json]
  approve <request_id> [--note "…"] [--by "name"]
  reject <request_id> [--note "…"] [--by "name"]
  erase <request_id>
  erase --email <address> [--dry-run]
  purge --decided-before <YYYY-MM-DD | Nd> [--dry-run]
  disable-client <client_id>
  notices [--json]
${STAFF_USAGE}
Run "deno task review <command> --help" for what a command does.`;

/** What each command does, for `<command> --help`. */
const COMMAND_HELP: Readonly<Record<string, string>> = {
  list: `usage: deno task review list [--status pending|approved|rejected] [--kind lead|quote]
                        [--limit N | --before <request_id> | --all] [--json]
Lists submissions newest first, 50 to a page (--limit, at most 1000), urgent ones first in
their page, with their review status and whether the review notice went out. The next
page: --before the last request id shown (printed on stderr). --all streams every page.
--json prints a JSON array and nothing else.`,
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
  notices: `usage: deno task review notices [--json]
How many review notices wait to be sent (counted up to 10,000), how old the oldest is,
and whether that is stale (over 15 minutes: the webhook has been failing). The same as the
dcfs.review.notices.* gauges; /readyz does not say it.`,
  ...STAFF_HELP,
};

const NOTE_MAX = 1000;

/**
 * The CLI's store deadline: a person waits and can stop it, and the first read of a store
 * holding a million expired keys takes ~10 s (Deno KV clears them first; docs/operations.md),
 * which the service's 2.5 s would refuse. A store that never answers still ends the run.
 */
const CLI_STORE_DEADLINE_MS = 30_000;

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
        await listSubmissionsPage(safe, _listOptions(values));
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
      case "notices":
        if (id) throw new UsageError("notices takes no argument");
        await printNoticeBacklog(safe, values.json ?? false);
        return 0;
      case "disable-client":
        if (!id) throw new UsageError("a client id is required");
        if (!isClientId(id)) throw new UsageError(`"${oneLine(id)}" is not a client id`);
        await _disable(safe, id);
        return 0;
      default:
        await runStaffCommand(safe, command, id, values);
        return 0;
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
    if (isStoreUnavailable(err)) {
      safe.err("error: the store did not answer in time; try again (a write may have landed)");
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
  name?: string;
  limit?: string;
  before?: string;
  all?: boolean;
};

function _listOptions(o: Options): ListOptions {
  if (o.status !== undefined && !["pending", "approved", "rejected"].includes(o.status)) {
    throw new UsageError("--status must be pending, approved or rejected");
  }
  if (o.kind !== undefined && !["lead", "quote"].includes(o.kind)) {
    throw new UsageError("--kind must be lead or quote");
  }
  const limit = o.limit === undefined ? LIST_PAGE : Number(o.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) {
    throw new UsageError(`--limit must be a whole number from 1 to ${LIST_MAX}`);
  }
  if (o.all && (o.limit !== undefined || o.before !== undefined)) {
    throw new UsageError("--all lists everything: it takes no --limit or --before");
  }
  let before: ListOptions["before"];
  if (o.before !== undefined) {
    if (!isRequestId(o.before)) throw new UsageError("--before takes a request id from a list");
    before = { createdMs: requestIdTime(o.before), id: o.before };
  }
  return {
    status: o.status as ListOptions["status"],
    kind: o.kind as ListOptions["kind"],
    json: o.json,
    limit,
    before,
    all: o.all,
  };
}

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
        name: { type: "string" },
        email: { type: "string" },
        "decided-before": { type: "string" },
        "dry-run": { type: "boolean" },
        limit: { type: "string" },
        before: { type: "string" },
        all: { type: "boolean" },
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

async function _show(io: ReviewIo, id: string, asJson: boolean): Promise<void> {
  const entry = await getSubmission(io.kv, id);
  if (!entry.value) throw new ReviewError(`no submission ${id}`);
  const record = entry.value;
  const request = JSON.parse(await getSubmissionPayload(io.kv, record));
  const outbox = (await getOutboxEntry(io.kv, id)).value ?? undefined;
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
    `notification: ${notification}${
      record.notified_at ? ` (${record.notified_at}${_NOTIFIED_NOTE[notification] ?? ""})` : ""
    }${
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

/** What `show` adds to a notification state that alone could mislead. */
const _NOTIFIED_NOTE: Readonly<Record<string, string>> = {
  logged: "; no webhook was configured",
  notified: "; channel not recorded",
};

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
  // Estimates stored before the site's time was read lack these fields.
  if (b.hours_out_of_hours !== undefined) {
    lines.push(
      `  timing:     ${b.hours_out_of_hours} of ${b.hours} h out of hours, read in ` +
        `${b.time_zone ?? "no known time zone"}` +
        `${b.short_notice ? `; short notice (${b.notice_hours} h needed)` : ""}`,
    );
  }
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

if (import.meta.main) {
  const set = Deno.env.get("KV_PATH") || undefined;
  // The same store the service opens off Deno Deploy: KV_PATH, or the checkout's default.
  const path = storeLocation(set, {});
  const kv = await openStore(path, { deadlineMs: CLI_STORE_DEADLINE_MS });
  const code = await runReview(Deno.args, {
    kv,
    store: set ?? `${path} (the default: KV_PATH is not set)`,
    // As the service reads it: BASE_URL, else http://localhost:$PORT.
    baseUrl: () =>
      loadConfig({ BASE_URL: Deno.env.get("BASE_URL"), PORT: Deno.env.get("PORT") }).baseUrl,
    now: Date.now,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
  kv.close();
  Deno.exit(code);
}
