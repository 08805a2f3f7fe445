/**
 * @module
 * The start as sent, field by field. `requested_date` and `requested_time` are each kept
 * when valid alone, so a date in the past is found beside a malformed time, in one answer.
 * The schema's refusal of either is reworded to say what to send: a date-time
 * (`2027-01-15T09:00:00+09:00`) as the date and time it is at the site, with the site's UTC
 * offset; an impossible date (`2027-02-30`) with its month's last day; a time with seconds
 * or one digit of hour (`9:30:00`) as HH:MM.
 */

import type { FieldIssue } from "../http/errors.ts";
import { type JobStart, pastStart, readStart } from "./job_start.ts";
import { formatClock, instantToLocal, localToInstant, utcOffset } from "./site_time.ts";
import { MINUTE_MS } from "../time.ts";

/** Where the job is: the site's IANA zone and the name of its place, when known. */
interface StartSite {
  zone: string | null;
  place: string | null;
}

const _FIELDS = ["requested_date", "requested_time"] as const;

/**
 * Reads the start from `raw` (the arguments as read, before validation) in the site's zone.
 * Rewords the issues of `issues` at either field and adds the issue of a start that has
 * passed there, in place.
 */
export function readSentStart(
  raw: unknown,
  issues: FieldIssue[],
  site: StartSite,
  now: number,
): JobStart {
  const args = (raw ?? {}) as Record<string, unknown>;
  const valid = (name: string) =>
    typeof args[name] === "string" && !issues.some((i) => i.path === name)
      ? args[name] as string
      : undefined;
  for (const issue of issues) {
    const value = args[issue.path];
    if (!_FIELDS.some((f) => f === issue.path) || typeof value !== "string") continue;
    issue.message = _whatToSend(issue.path, value, site, now) ?? issue.message;
  }
  const start = readStart(site.zone, {
    requested_date: valid("requested_date"),
    requested_time: valid("requested_time"),
    urgency: valid("urgency"),
  }, now);
  const past = pastStart(start, now);
  if (past) issues.push(past);
  return start;
}

/** A date-time; its offset may be Z, ±HH[:MM], or " HH:MM" (a `+` a query decoded as a space). */
const _DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?| \d{2}:?\d{2})?$/i;
const _DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const _TIME = /^(\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/;
const _MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** What to send instead of `value`, refused at `field`; undefined when nothing better is known. */
function _whatToSend(
  field: string,
  value: string,
  site: StartSite,
  now: number,
): string | undefined {
  const trimmed = value.trim();
  const dateTime = _DATE_TIME.exec(trimmed);
  if (dateTime && Number(dateTime[2]) <= 23 && Number(dateTime[3]) <= 59) {
    return _impossible(dateTime[1]!) ?? _split(field, trimmed, dateTime, site, now);
  }
  if (field === "requested_date") return _impossible(trimmed);
  const time = _TIME.exec(trimmed);
  if (!time || Number(time[1]) > 23 || Number(time[2]) > 59) return undefined;
  const clock = formatClock(Number(time[1]) * 60 + Number(time[2]));
  return `requested_time must be HH:MM, 00:00 to 23:59: send ${clock}`;
}

/**
 * The message for a date-time sent as a date or a time: the date and time it is at the
 * site, in the site's zone when known (converted from an offset or Z when one was given).
 */
function _split(
  field: string,
  value: string,
  [, date, h, m, offset]: RegExpExecArray,
  site: StartSite,
  now: number,
): string {
  let local = { date: date!, minutes: Number(h) * 60 + Number(m) };
  let where: string;
  if (site.zone === null) {
    where = "the site's local time (the city's time zone is not known" +
      (offset ? `: convert from ${offset.replace(" ", "+")} if the site is elsewhere)` : ")");
  } else {
    let instant = localToInstant(site.zone, local).instant;
    if (offset) {
      instant = Date.parse(`${date}T00:00:00Z`) + local.minutes * MINUTE_MS - _offsetMs(offset);
      local = instantToLocal(site.zone, instant);
    }
    where = `local to ${site.place ?? "the site"} (${utcOffset(site.zone, instant)})`;
  }
  const time = formatClock(local.minutes);
  const alone = field === "requested_date" ? "a date alone (YYYY-MM-DD)" : "a time alone (HH:MM)";
  const past = pastStart(
    readStart(site.zone, { requested_date: local.date, requested_time: time }, now),
    now,
  );
  return `${field} is ${alone}: for ${value.slice(0, 40)} send requested_date ${local.date} ` +
    `and requested_time ${time}, ${where}` + (past ? `; but ${past.message}` : "");
}

/** "+09:00", "-0530", "+09", " 09:00", "Z" → milliseconds ahead of UTC. */
function _offsetMs(offset: string): number {
  if (offset.toUpperCase() === "Z") return 0;
  const sign = offset.startsWith("-") ? -1 : 1;
  const digits = offset.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * MINUTE_MS;
}

/**
 * The message for a date of the right shape that is no day of the calendar
 * (`2027-02-30`), naming its month's last day; undefined for a real date or another shape.
 */
function _impossible(value: string): string | undefined {
  const parts = _DATE.exec(value);
  if (!parts) return undefined;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (month < 1 || month > 12) {
    return `requested_date ${value} is not a date: the month is 01 to 12 (YYYY-MM-DD)`;
  }
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day >= 1 && day <= last) return undefined;
  const lastDate = `${parts[1]}-${parts[2]}-${String(last).padStart(2, "0")}`;
  return `requested_date ${value} is not a date: ${_MONTHS[month - 1]} ${year} has ${last} ` +
    `days, the last ${lastDate}`;
}
