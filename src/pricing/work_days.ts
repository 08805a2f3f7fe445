/**
 * @module
 * How a job's hours are laid out at its site. `estimated_hours` is per engineer, and every
 * engineer works the same hours. Up to {@linkcode MAX_DAY_HOURS} (10 h, as long as business
 * hours) is one shift from the start; more is spread over the fewest days of at most 10 h,
 * shared equally (16 h is 2 days of 8 h, 25 h 3 days of 8 h 20 min), each day starting at
 * the start's local time: the first on the start's day, the others on the working days
 * after it (Monday to Friday, not a public holiday at the site). A crew plans a long job
 * so; it does not work 16 h in a row. The estimate prices these days and states them.
 */

import type { HolidayCalendar } from "../catalog/holidays.ts";
import { HOUR_MS } from "../time.ts";
import { formatClock, instantToLocal, localToInstant, nextDate, weekday } from "./site_time.ts";

/** The longest day an engineer works on a job, in hours. */
export const MAX_DAY_HOURS = 10;

/** One day's work: the local date it starts on, and its instants. */
export interface Shift {
  date: string;
  from: number;
  to: number;
}

/** The days a job's hours are laid out on, in `zone`. */
export interface WorkDays {
  shifts: Shift[];
  /** Hours per engineer each day (the last may differ by a rounding millisecond). */
  hoursPerDay: number;
}

/**
 * Lays `hours` out from `date` at `minutes` (local time in `zone`). Days after the first
 * skip weekends and the public holidays `holidays` names.
 */
export function layOutDays(
  zone: string,
  start: { date: string; minutes: number },
  hours: number,
  holidays: HolidayCalendar,
): WorkDays {
  const total = Math.round(hours * HOUR_MS);
  const count = Math.max(1, Math.ceil(hours / MAX_DAY_HOURS));
  const each = Math.floor(total / count);
  const shifts: Shift[] = [];
  let date = start.date;
  for (let i = 0; i < count; i++) {
    if (i > 0) date = _nextWorkingDay(date, holidays);
    const from = localToInstant(zone, { date, minutes: start.minutes }).instant;
    shifts.push({ date, from, to: from + (i === count - 1 ? total - each * i : each) });
  }
  return { shifts, hoursPerDay: Math.round(each / HOUR_MS * 10_000) / 10_000 };
}

/**
 * The days in words, for `assumptions` and `note`: "one shift of 6 h, 17:30 to 23:30 local
 * time", "2 days of 8 h, 09:00 to 17:00 local time: 2026-12-01 and 2026-12-02". Without a
 * date (`dated` false) the days are any working days; without a time (`timed` false) they
 * are within business hours.
 */
export function describeDays(
  zone: string,
  days: WorkDays,
  given: { dated: boolean; timed: boolean },
): string {
  const first = days.shifts[0]!;
  const last = days.shifts[days.shifts.length - 1]!;
  const n = days.shifts.length;
  const clock = (t: number) => formatClock(instantToLocal(zone, t).minutes);
  const what = n === 1 ? "one shift" : `${n} days`;
  const times = given.timed ? `, ${clock(first.from)} to ${clock(first.to)} local time` : "";
  const dates = !given.dated
    ? n === 1 ? "" : " on working days"
    : n === 1
    ? ` on ${first.date}`
    : n === 2
    ? `: ${first.date} and ${last.date}`
    : `: working days from ${first.date} to ${last.date}`;
  return `${what} of ${_number(days.hoursPerDay)} h${times}${dates}`;
}

/** The first working day after `date`: not a Saturday, a Sunday or a public holiday. */
function _nextWorkingDay(date: string, holidays: HolidayCalendar): string {
  let day = nextDate(date);
  while (weekday(day) === 0 || weekday(day) === 6 || holidays(day)) day = nextDate(day);
  return day;
}

function _number(n: number): string {
  return String(Math.round(n * 100) / 100);
}
