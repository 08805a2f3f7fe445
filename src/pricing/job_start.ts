/**
 * @module
 * When a job starts, at its site: `requested_date` and `requested_time` read as the site's
 * local time (08:00 when only a date is given; as given when the site's zone is unknown;
 * now at the site for an emergency given neither), refused once that start has passed
 * there, and flagged when it is sooner than the service's minimum notice. With no zone
 * known, "passed" means passed in every time zone.
 */

import type { FieldIssue } from "../http/errors.ts";
import { HOUR_MS } from "../time.ts";
import {
  formatClock,
  instantToLocal,
  LATEST_ZONE,
  localToInstant,
  parseClock,
} from "./site_time.ts";
import { BUSINESS_HOURS } from "./work_span.ts";

/**
 * One input of the estimate the caller did not give as such, and why it has its value;
 * `work_days` is how the hours were laid out (work_days.ts).
 */
export interface Assumption {
  field:
    | "engineer_count"
    | "estimated_hours"
    | "work_days"
    | "out_of_hours"
    | "requested_date"
    | "requested_time"
    | "time_zone"
    | "currency";
  value: number | boolean | string | null;
  why: string;
}

/** The start of a job as read at its site. */
export interface JobStart {
  /** The site's IANA time zone; null when the city resolves to none. */
  zone: string | null;
  /** The local start date; null when no requested_date was given. */
  date: string | null;
  /** The local start time in minutes since midnight; null when neither date nor time was given. */
  minutes: number | null;
  /** True when no requested_time was given and the start of business hours was taken. */
  timeAssumed: boolean;
  /** The instant of the start when a date is known (with no zone, the latest it can be). */
  instant: number | null;
  /** What was assumed in reading it: no zone, a time or a day, a clock change. */
  assumptions: Assumption[];
}

/**
 * Reads a job's start in `zone` (null: unknown). A date without a time starts when business
 * hours begin, or, today at the site once they have begun, now: a start already gone is
 * never priced. An emergency with neither date nor time starts now at the site.
 */
export function readStart(
  zone: string | null,
  request: {
    requested_date?: string | undefined;
    requested_time?: string | undefined;
    urgency?: string | undefined;
  },
  now: number,
): JobStart {
  const { requested_date: date, requested_time: time } = request;
  const start: JobStart = {
    zone,
    date: date ?? null,
    minutes: null,
    timeAssumed: !time,
    instant: null,
    assumptions: [],
  };
  if (!date && !time) {
    return request.urgency === "emergency" ? _startsNow(start, zone, now) : start;
  }
  const assume = (field: Assumption["field"], value: Assumption["value"], why: string) =>
    start.assumptions.push({ field, value, why });
  if (zone === null) {
    assume(
      "time_zone",
      null,
      "not known: the date and time are read as given, and refused only once past in " +
        "every zone",
    );
  }
  start.minutes = time ? parseClock(time) : parseClock(BUSINESS_HOURS.from);
  const local = instantToLocal(zone ?? LATEST_ZONE, now);
  if (!time && date === local.date && local.minutes > start.minutes) {
    // Today at the site, after 08:00: the work cannot start before now.
    start.minutes = local.minutes;
    assume(
      "requested_time",
      formatClock(start.minutes),
      `not given, and ${date} is today at the site: the job is taken to start now, ` +
        `${formatClock(start.minutes)} local time`,
    );
  } else if (!time) {
    assume(
      "requested_time",
      BUSINESS_HOURS.from,
      `not given: the job is taken to start at ${BUSINESS_HOURS.from} local time, when ` +
        "business hours begin",
    );
  }
  if (!date) {
    assume(
      "requested_date",
      null,
      "not given: every day of the job is taken as a working day (Monday to Friday, not a " +
        "public holiday)",
    );
    return start;
  }
  const read = localToInstant(zone ?? LATEST_ZONE, { date, minutes: start.minutes });
  start.instant = read.instant;
  if (read.fold && zone) {
    const asked = formatClock(start.minutes);
    start.minutes = instantToLocal(zone, read.instant).minutes;
    const shown = formatClock(start.minutes);
    assume(
      "requested_time",
      shown,
      read.fold === "skipped"
        ? `${asked} does not exist on ${date} in ${zone} (the clocks go forward): read as ${shown}`
        : `${asked} happens twice on ${date} in ${zone} (the clocks go back): the first is read`,
    );
  }
  return start;
}

/**
 * An emergency given no date or time: it starts now, the site's local date and time; where
 * the zone is unknown, the time of day there is too, and business hours are assumed.
 */
function _startsNow(start: JobStart, zone: string | null, now: number): JobStart {
  if (zone === null) {
    const why = "not known: an emergency is priced from now at the site, but the site's " +
      "time of day cannot be told: business hours assumed";
    return { ...start, assumptions: [{ field: "time_zone", value: null, why }] };
  }
  const local = instantToLocal(zone, now);
  const at = formatClock(local.minutes);
  const why = "not given, and urgency is emergency: the job is taken to start now, " +
    `${local.date} ${at} local time in ${zone}`;
  return {
    ...start,
    date: local.date,
    minutes: local.minutes,
    instant: localToInstant(zone, local).instant,
    assumptions: [
      { field: "requested_date", value: local.date, why },
      { field: "requested_time", value: at, why },
    ],
  };
}

/**
 * The issue of a start that has passed at the site: a date before the site's today, or a
 * date and time already gone there. A date alone, today, is accepted.
 */
export function pastStart(start: JobStart, now: number): FieldIssue | undefined {
  if (start.date === null || start.instant === null || start.minutes === null) return undefined;
  const zone = start.zone ?? LATEST_ZONE;
  const today = instantToLocal(zone, now);
  const where = start.zone
    ? `at the site: it is now ${today.date} ${formatClock(today.minutes)} in ${zone}`
    : "in every time zone (the city's time zone is not known; it is now " +
      `${today.date} ${formatClock(today.minutes)} at UTC−12)`;
  if (start.date < today.date) {
    return {
      path: "requested_date",
      message: `requested_date ${start.date} is in the past ${where}`,
    };
  }
  if (!start.timeAssumed && start.instant <= now) {
    return {
      path: "requested_time",
      message: `${start.date} ${formatClock(start.minutes)} has passed ${where}`,
    };
  }
  return undefined;
}

/**
 * The note on a start sooner than the service needs: "Rack and stack needs 48 h notice;
 * 2026-11-26 09:00 in Europe/Berlin is 20 h away: a person will confirm whether that start
 * is possible." Undefined when there is time enough, or no date to tell.
 */
export function shortNotice(
  start: JobStart,
  needs: { service: string; hours: number; travel: string | null },
  now: number,
): string | undefined {
  if (start.instant === null || start.minutes === null || needs.hours <= 0) return undefined;
  const away = (start.instant - now) / HOUR_MS;
  if (away >= needs.hours) return undefined;
  const at = `${start.date} ${formatClock(start.minutes)}${start.timeAssumed ? " (assumed)" : ""}` +
    (start.zone ? ` in ${start.zone}` : " local time");
  // Only an assumed start can be now or gone: a given one that has passed is refused.
  const when = away <= 0 ? "is now" : `is ${away < 1 ? "less than 1" : Math.floor(away)} h away`;
  return `${needs.service} needs ${needs.hours} h notice${
    needs.travel ? ` ${needs.travel}` : ""
  }; ` +
    `${at} ${when}: a person will confirm whether that start is possible.`;
}
