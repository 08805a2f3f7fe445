/**
 * @module
 * The whole span of a job against the site's business hours: the hours billed per engineer,
 * laid out in days from its start (work_days.ts), how many of them fall inside business
 * hours (08:00 to 18:00 local time, Monday to Friday, not on a public holiday) and how many
 * outside, and why.
 */

import type { HolidayCalendar } from "../catalog/holidays.ts";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../time.ts";
import { localToInstant, nextDate, parseClock, weekday } from "./site_time.ts";
import { layOutDays, type Shift, type WorkDays } from "./work_days.ts";

/**
 * Business hours at the site: 08:00 to 18:00 local time, Monday to Friday, public holidays
 * excepted. When a quote leaves out `out_of_hours`, each hour of the job is priced by
 * whether it falls inside them; when it is sent, the estimate follows it for every hour.
 */
export const BUSINESS_HOURS = { from: "08:00", to: "18:00" } as const;

/** At most this many days off are named in a description; the rest are counted. */
const DAYS_NAMED = 2;
/** Business hours in minutes since midnight, and as milliseconds into a plain day. */
const _OPEN_MIN = parseClock(BUSINESS_HOURS.from);
const _CLOSE_MIN = parseClock(BUSINESS_HOURS.to);
const _OPEN = _OPEN_MIN * MINUTE_MS;
const _CLOSE = _CLOSE_MIN * MINUTE_MS;
const _DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A job's hours per engineer inside and outside business hours, and the days they are on. */
export interface SpanSplit {
  inside: number;
  outside: number;
  /** Hours outside by reason, in the order met: "before 08:00", "after 18:00", a day off. */
  reasons: { why: string; clock: boolean }[];
  /** The first working day of the span whose holidays the data does not know, if any. */
  holidaysUnknownFrom: string | null;
  /** The days the hours are laid out on (work_days.ts), in the zone read. */
  days: WorkDays;
}

/**
 * Lays `hours` out from `start` (in `zone`) in days (work_days.ts), and splits them into
 * hours inside and outside business hours. With no date (`start.date` null) every day is
 * taken as a working day.
 */
export function splitSpan(
  zone: string,
  start: { date: string | null; minutes: number },
  hours: number,
  holidays: HolidayCalendar,
): SpanSplit {
  const anyDay = start.date === null;
  // With no date the calendar is not read, nor are clock changes: any Monday in UTC serves.
  const tz = anyDay ? "UTC" : zone;
  const calendar = anyDay ? null : holidays;
  const from = { date: start.date ?? ANY_MONDAY, minutes: start.minutes };
  const days = layOutDays(tz, from, hours, calendar ?? (() => null));
  const found: _Found = { insideMs: 0, reasons: new Map(), holidaysUnknownFrom: null };
  for (const shift of days.shifts) _splitShift(tz, shift, calendar, found);
  const totalMs = days.shifts.reduce((sum, s) => sum + s.to - s.from, 0);
  return {
    inside: _hours(found.insideMs),
    outside: _hours(totalMs - found.insideMs),
    reasons: [...found.reasons].map(([why, clock]) => ({ why, clock })),
    holidaysUnknownFrom: found.holidaysUnknownFrom,
    days,
  };
}

/** The Monday that stands for any working day when no date was given. */
const ANY_MONDAY = "2026-01-05";

/** What the shifts of a span add up to. */
interface _Found {
  insideMs: number;
  reasons: Map<string, boolean>;
  holidaysUnknownFrom: string | null;
}

/** Adds one shift's hours inside business hours, and why the rest are outside. */
function _splitShift(
  tz: string,
  shift: Shift,
  holidays: HolidayCalendar | null,
  found: _Found,
): void {
  let day = shift.date;
  let dayStart = _at(tz, day, 0);
  while (dayStart < shift.to) {
    const dayEnd = _at(tz, nextDate(day), 0);
    const a = Math.max(shift.from, dayStart);
    const b = Math.min(shift.to, dayEnd);
    const off = holidays && _dayOff(day, holidays);
    if (b > a && off) found.reasons.set(off, false);
    else if (b > a) {
      if (holidays && holidays(day) === undefined) found.holidaysUnknownFrom ??= day;
      // Without a clock change that day, its hours are where they always are.
      const plain = dayEnd - dayStart === DAY_MS;
      const open = plain ? dayStart + _OPEN : _at(tz, day, _OPEN_MIN);
      const close = plain ? dayStart + _CLOSE : _at(tz, day, _CLOSE_MIN);
      found.insideMs += _overlap(a, b, open, close);
      if (_overlap(a, b, dayStart, open)) found.reasons.set(`before ${BUSINESS_HOURS.from}`, true);
      if (_overlap(a, b, close, dayEnd)) found.reasons.set(`after ${BUSINESS_HOURS.to}`, true);
    }
    day = nextDate(day);
    dayStart = dayEnd;
  }
}

/**
 * Why the hours outside are outside, for `assumptions` and `note`: "after 18:00 local time
 * in Europe/Amsterdam", "2026-12-25 is Christmas Day, a public holiday at the site",
 * "2026-11-28 is a Saturday". `zone` null: the times were read as given.
 */
export function describeOutside(split: SpanSplit, zone: string | null): string {
  const clock = [`before ${BUSINESS_HOURS.from}`, `after ${BUSINESS_HOURS.to}`]
    .filter((why) => split.reasons.some((r) => r.why === why));
  const days = split.reasons.filter((r) => !r.clock).map((r) => r.why);
  const named = days.length > DAYS_NAMED + 1 ? days.slice(0, DAYS_NAMED) : days;
  return [
    ...(clock.length ? [`${clock.join(" and ")} local time${zone ? ` in ${zone}` : ""}`] : []),
    ...named,
    ...(named.length < days.length ? [`${days.length - named.length} more days off`] : []),
  ].join("; ");
}

/** "2026-11-28 is a Saturday", "2026-12-25 is Christmas Day, a public holiday at the site", or null. */
function _dayOff(day: string, holidays: HolidayCalendar): string | null {
  const holiday = holidays(day);
  if (holiday) return `${day} is ${holiday}, a public holiday at the site`;
  const d = weekday(day);
  return d === 0 || d === 6 ? `${day} is a ${_DAY_NAMES[d]}` : null;
}

function _at(zone: string, date: string, minutes: number): number {
  return localToInstant(zone, { date, minutes }).instant;
}

function _overlap(a: number, b: number, c: number, d: number): number {
  return Math.max(0, Math.min(b, d) - Math.max(a, c));
}

/** Milliseconds → hours, to four decimals (a minute is 0.0167 h). */
function _hours(ms: number): number {
  return Math.round(ms / HOUR_MS * 10_000) / 10_000;
}
