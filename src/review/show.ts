/**
 * @module
 * One submission as a reviewer reads it, for `deno task review show` and the console's
 * submission page alike: the record, the request as submitted, its notice's state, and the
 * facts both print (how it came in, the notification with its attempts and last error, the
 * decision, the estimate with its basis and timing), each a label and a line of text. Text
 * from the store passes through `oneLine`, so a control or format character (a bidi
 * override, a line separator) shows as its `\uXXXX` escape on either surface.
 */

import type { Kv } from "../store/store.ts";
import type { BudgetEstimate } from "../pricing/budget.ts";
import { getOutboxEntry, type OutboxEntry } from "../store/outbox.ts";
import {
  getSubmission,
  getSubmissionPayload,
  type SubmissionRecord,
} from "../store/submissions.ts";
import { notificationState } from "./list.ts";
import { oneLine, terminalSafe } from "./terminal.ts";

/** A submission read for review. */
export interface SubmissionView {
  record: SubmissionRecord;
  /** The record's versionstamp as read: what a decision is checked against. */
  versionstamp: string;
  /** The request as it was submitted and stored. */
  request: unknown;
  outbox: OutboxEntry | undefined;
  notification: string;
}

/** A label and its line, as `show` prints it (`label: text`) and the console lists it. */
export type Fact = readonly [label: string, text: string];

/** Reads a submission, its request and its notice; null when there is none. */
export async function readSubmission(kv: Kv, id: string): Promise<SubmissionView | null> {
  const entry = await getSubmission(kv, id);
  if (!entry.value) return null;
  const record = entry.value;
  const [payload, outboxEntry] = await Promise.all([
    getSubmissionPayload(kv, record),
    getOutboxEntry(kv, id),
  ]);
  const outbox = outboxEntry.value ?? undefined;
  return {
    record,
    versionstamp: entry.versionstamp,
    request: JSON.parse(payload),
    outbox,
    notification: notificationState(record, outbox),
  };
}

/** What `show --json` prints: the record, the notice's state, and the request. */
export function viewJson(v: SubmissionView): Record<string, unknown> {
  return {
    ...v.record,
    notification: v.notification,
    ...(v.outbox
      ? { notification_attempts: v.outbox.attempts, last_error: v.outbox.last_error }
      : {}),
    request: v.request,
  };
}

/** The record's facts: when it came, how, its notice, and its decision with the note. */
export function recordFacts(v: SubmissionView): Fact[] {
  const { record, outbox, notification } = v;
  const channel = record.channel;
  const facts: Fact[] = [
    ["created", record.created_at],
    ["via", _CHANNELS[channel] ?? channel],
    [
      "notification",
      `${notification}${
        record.notified_at ? ` (${record.notified_at}${_NOTIFIED_NOTE[notification] ?? ""})` : ""
      }${
        outbox?.last_error
          ? ` after ${outbox.attempts} attempts: ${oneLine(outbox.last_error)}`
          : ""
      }`,
    ],
  ];
  facts.push(...siteFacts(v));
  const d = record.decision;
  if (d) {
    facts.push(["decision", `${d.status} at ${d.decided_at}${d.by ? ` by ${oneLine(d.by)}` : ""}`]);
    if (d.note) facts.push(["note", oneLine(d.note)]);
  }
  return facts;
}

/**
 * The site as sent beside the site as read, a line each: the city → how it was read (a place,
 * a datacenter, covered or not); site_address → how it was read, and whether the two agree.
 */
function siteFacts(v: SubmissionView): Fact[] {
  const sent = (v.request ?? {}) as Record<string, unknown>;
  const site = v.record.site;
  const facts: Fact[] = [];
  if (typeof sent.city === "string") {
    const read = !site
      ? ""
      : site.read_as
      ? ` → ${site.read_as}, ${site.covered ? "covered" : "not covered"}`
      : ` → no one place (${site.match})`;
    facts.push(["city", `${oneLine(sent.city)}${read}`]);
  }
  if (typeof sent.site_address === "string") {
    const address = site?.site_address;
    const agrees = !address || address.agrees === null
      ? ""
      : address.agrees
      ? ", agrees with the city"
      : ", DISAGREES with the city: ask which is meant";
    const read = address ? ` → ${address.read_as ?? "no one place"}${agrees}` : "";
    facts.push(["address", `${oneLine(sent.site_address)}${read}`]);
  }
  return facts;
}

/** What `show` adds to a notification state that alone could mislead. */
const _NOTIFIED_NOTE: Readonly<Record<string, string>> = {
  logged: "; no webhook was configured",
};

const _CHANNELS: Readonly<Record<string, string>> = {
  web: "the home page's form",
  api: "the REST API",
  mcp: "an MCP tool",
};

/** The estimate as a reviewer reads it: the range, then how it was computed. */
export function estimateFacts(e: BudgetEstimate): Fact[] {
  const b = e.basis;
  const money = (n: number) => `${n.toLocaleString("en-US")} ${e.currency}`;
  const facts: Fact[] = [
    ["estimate", `${money(e.low)} – ${money(e.high)} (non-binding)`],
    [
      "basis",
      `${b.engineers} × ${b.hours} h${b.hours_assumed ? " (assumed)" : ""} at ` +
      `${money(b.hourly_rate)}/h, minimum ${b.minimum_hours} h` +
      `${b.out_of_hours ? ", out of hours" : ""}`,
    ],
  ];
  // Estimates stored before the site's time was read lack these fields.
  if (b.hours_out_of_hours !== undefined) {
    facts.push([
      "timing",
      `${b.hours_out_of_hours} of ${b.hours} h out of hours, read in ` +
      `${b.time_zone ?? "no known time zone"}` +
      `${b.short_notice ? `; short notice (${b.notice_hours} h needed)` : ""}`,
    ]);
  }
  if (e.note) facts.push(["note", oneLine(e.note)]);
  return facts;
}

/**
 * The request as submitted, pretty-printed JSON (what `show` prints after `request:`), its
 * control and format characters escaped but for the printer's own line feeds.
 */
export function requestText(v: SubmissionView): string {
  return terminalSafe(JSON.stringify(v.request, null, 2));
}
