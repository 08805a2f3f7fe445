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
import { isClientId, isRequestId } from "../intake/ids.ts";
import { AUDIT_MAX, AUDIT_PAGE, parseAuditCursor, printAudit } from "./audit.ts";
import { printNoticeBacklog } from "./backlog.ts";
import { decide, DecisionRefused, type Verdict } from "./decide.ts";
import { demandOptions, printDemand } from "./demand.ts";
import { eraseEmail, eraseOne, parseCutoff, purge } from "./erase.ts";
import type { PurgeStatus } from "./retention.ts";
import { CLI_ACTOR, ReviewError, type ReviewIo, UsageError } from "./io.ts";
import { oneLine, terminalSafe } from "./terminal.ts";
import { disableClient } from "../store/credentials.ts";
import { AUDIT_RETENTION_MS, auditEntry } from "../store/staff_audit.ts";
import { DEMAND_RETENTION_DAYS } from "../store/demand.ts";
import { DAY_MS } from "../time.ts";
import { type ListOptions, listSubmissionsPage, parseListQuery } from "./list.ts";
import {
  estimateFacts,
  type Fact,
  readSubmission,
  recordFacts,
  requestText,
  viewJson,
} from "./show.ts";
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
  purge --status pending|approved|rejected|decided --before <YYYY-MM-DD | Nd> [--yes]
  purge --decided-before <YYYY-MM-DD | Nd> [--dry-run]
  disable-client <client_id>
  notices [--json]
  audit [--limit N] [--before <at_ms>.<entry_id>] [--json]
  demand [--days N] [--limit N] [--json]
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
  purge: `usage: deno task review purge --status pending|approved|rejected|decided
                         --before <YYYY-MM-DD | Nd> [--yes]
       deno task review purge --decided-before <YYYY-MM-DD | Nd> [--dry-run]
Lists the submissions of that status from before that date (midnight UTC) or that many days
ago: pending ones created before it and still undecided; approved or rejected ones (decided:
both) decided before it. Nothing is erased without --yes; with it, each is erased, unless it
was decided meanwhile, and one audit entry says how many. --decided-before is the older form
of --status decided --before … --yes: it erases at once (--dry-run lists). The service does
this on its own with SUBMISSION_RETENTION_DAYS (decided) and PENDING_RETENTION_DAYS (pending).`,
  "disable-client": `usage: deno task review disable-client <client_id>
Disables an agent client: every token it holds stops working at once on every instance,
and its token requests get invalid_client. Use it when a client secret leaked.`,
  notices: `usage: deno task review notices [--json]
How many review notices wait to be sent (counted up to 10,000), how old the oldest is,
and whether that is stale (over 15 minutes: the webhook has been failing). The same as the
dcfs.review.notices.* gauges; /readyz does not say it.`,
  audit: `usage: deno task review audit [--limit N] [--before <at_ms>.<entry_id>] [--json]
Lists the audit trail of staff actions newest first, 50 to a page (--limit, at most 1000):
when, who (a member's name and member id, or cli), from which session, what (approve, reject, erase,
erase_email, disable_client, sign_in, invite…) and on what. It holds no submitted text.
The next page: --before the cursor printed on stderr. --json prints a JSON array.
Entries are kept ${AUDIT_RETENTION_MS / DAY_MS} days.`,
  demand: `usage: deno task review demand [--days N] [--limit N] [--json]
Lists the places outside coverage that agents and visitors asked about most over the last
30 days (--days, 1 to ${DEMAND_RETENTION_DAYS}, today included, UTC), 20 of them (--limit, at most 1000):
the place as the gazetteer names it, its subdivision and country, the requests that read it
as not covered and on how many days. Only places are kept, never what a caller typed or
who asked. --json prints one object: days, from, to, places, rows, cut.`,
  ...STAFF_HELP,
};

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
        await _erase(safe, id, values);
        return 0;
      case "purge":
        if (id) throw new UsageError("purge takes no request id");
        await _purge(safe, values);
        return 0;
      case "notices":
        if (id) throw new UsageError("notices takes no argument");
        await printNoticeBacklog(safe, values.json ?? false);
        return 0;
      case "audit":
        if (id) throw new UsageError("audit takes no argument");
        await printAudit(safe, _auditOptions(values));
        return 0;
      case "demand":
        if (id) throw new UsageError("demand takes no argument");
        await printDemand(safe, demandOptions(values));
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
  days?: string;
  before?: string;
  all?: boolean;
  email?: string;
  "dry-run"?: boolean;
  "decided-before"?: string;
  yes?: boolean;
};

function _listOptions(o: Options): ListOptions {
  if (o.all && (o.limit !== undefined || o.before !== undefined)) {
    throw new UsageError("--all lists everything: it takes no --limit or --before");
  }
  const query = parseListQuery(o, "--", (message) => {
    throw new UsageError(message);
  });
  return { ...query, json: o.json, all: o.all };
}

function _auditOptions(o: Options) {
  const limit = o.limit === undefined ? AUDIT_PAGE : Number(o.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX) {
    throw new UsageError(`--limit must be a whole number from 1 to ${AUDIT_MAX}`);
  }
  const before = o.before === undefined ? undefined : parseAuditCursor(o.before);
  if (o.before !== undefined && !before) {
    throw new UsageError("--before takes the <at_ms>.<entry_id> an audit page printed");
  }
  return { limit, before, json: o.json };
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
        yes: { type: "boolean" },
        limit: { type: "string" },
        days: { type: "string" },
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

/** `erase <request_id>`, or `erase --email <address> [--dry-run]`. */
async function _erase(io: ReviewIo, id: string | undefined, o: Options): Promise<void> {
  if (o.email !== undefined) {
    if (id) throw new UsageError("erase takes a request id or --email, not both");
    if (!o.email.includes("@")) throw new UsageError("--email must be an address");
    await eraseEmail(io, o.email, o["dry-run"] ?? false);
  } else {
    if (o["dry-run"]) throw new UsageError("--dry-run goes with --email");
    await eraseOne(io, _id(id));
  }
}

const _PURGE_STATUSES: readonly PurgeStatus[] = ["pending", "approved", "rejected", "decided"];

/**
 * `purge --status <status> --before <cutoff> [--yes]`, a dry run unless `--yes`; or the older
 * `purge --decided-before <cutoff> [--dry-run]`, which erases unless `--dry-run`.
 */
async function _purge(io: ReviewIo, o: Options): Promise<void> {
  const old = o["decided-before"];
  if (old !== undefined) {
    if (o.status !== undefined || o.before !== undefined || o.yes) {
      throw new UsageError("--decided-before is --status decided --before … --yes: use one form");
    }
    const before = _cutoff("--decided-before", old, io.now());
    return await purge(io, { status: "decided", before, dryRun: o["dry-run"] ?? false });
  }
  const status = o.status as PurgeStatus | undefined;
  if (status === undefined || o.before === undefined) {
    throw new UsageError(
      "purge needs --status pending|approved|rejected|decided and --before <YYYY-MM-DD | Nd>",
    );
  }
  if (!_PURGE_STATUSES.includes(status)) {
    throw new UsageError("--status must be pending, approved, rejected or decided");
  }
  if (o.yes && o["dry-run"]) throw new UsageError("--yes erases; --dry-run only lists: not both");
  const before = _cutoff("--before", o.before, io.now());
  if (before > io.now()) throw new UsageError("--before must not be in the future");
  await purge(io, { status, before, dryRun: !o.yes, erasesWith: "--yes" });
}

function _cutoff(flag: string, raw: string, now: number): number {
  const at = parseCutoff(raw, now);
  if (at === undefined) throw new UsageError(`${flag} must be a date (YYYY-MM-DD) or days (30d)`);
  return at;
}

async function _show(io: ReviewIo, id: string, asJson: boolean): Promise<void> {
  const view = await readSubmission(io.kv, id);
  if (!view) throw new ReviewError(`no submission ${id}`);
  if (asJson) {
    io.out(JSON.stringify(viewJson(view), null, 2));
    return;
  }
  const { record } = view;
  const label = (indent: string, [name, text]: Fact) => `${indent}${name}:`.padEnd(14) + text;
  const estimate = record.budget_estimate ? estimateFacts(record.budget_estimate) : [];
  io.out([
    `${record.request_id}  ${record.kind}  ${record.status}`,
    ...recordFacts(view).map((f) => label("", f)),
    ...estimate.map((f, i) => label(i ? "  " : "", f)),
    "request:",
    requestText(view),
  ].join("\n"));
}

async function _decide(io: ReviewIo, id: string, status: Verdict, o: Options): Promise<void> {
  try {
    const record = await decide(io.kv, {
      request_id: id,
      status,
      note: o.note,
      by: o.by,
      now: io.now(),
      actor: CLI_ACTOR,
    });
    io.out(
      `${id} ${status} at ${record.decision!.decided_at}. ` +
        "Nothing was ordered, invoiced or dispatched.",
    );
  } catch (err) {
    if (!(err instanceof DecisionRefused)) throw err;
    if (err.reason === "invalid") throw new UsageError(`--${err.message}`);
    if (err.reason !== "changed") throw new ReviewError(err.message);
    throw new ReviewError(`${id} changed while you were deciding; run "show" and try again`);
  }
}

/** `disable-client <client_id>`: its tokens stop working at once, everywhere. */
async function _disable(io: ReviewIo, clientId: string): Promise<void> {
  const now = io.now();
  const result = await disableClient(io.kv, clientId, now, (op) =>
    auditEntry(op, {
      ...CLI_ACTOR,
      action: "disable_client",
      target: clientId,
      detail: null,
    }, now));
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
