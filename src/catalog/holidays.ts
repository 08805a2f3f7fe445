/**
 * @module
 * The public holidays of each location, from `data/holidays.v1.json` (generated from the
 * `date-holidays` package by `deno task data:holidays`): indexed at load, checked against
 * the locations, and looked up by date. A holiday is a whole local day out of business hours.
 */

import type { HolidaysFile, Location } from "./records.ts";

export interface HolidayIndex {
  /** The first and last year the data covers. */
  readonly from: number;
  readonly to: number;
  /** Location id → date (`YYYY-MM-DD`) → the holiday's English name. */
  readonly byLocation: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/**
 * What the data says of a date at a site: the holiday's name, `null` on a day that is no
 * holiday, `undefined` where the data does not reach (a year outside it, a site outside
 * coverage).
 */
export type HolidayCalendar = (date: string) => string | null | undefined;

/**
 * Indexes the holidays file; throws when a location has no entry, or one made for another
 * region than its country and subdivision (the file was not regenerated after a change).
 */
export function indexHolidays(
  file: HolidaysFile,
  locations: readonly Location[],
): HolidayIndex {
  const byLocation = new Map<string, ReadonlyMap<string, string>>();
  for (const loc of locations) {
    const entry = file.locations[loc.id];
    const region = loc.subdivision ?? loc.country;
    if (!entry) throw new Error(`holidays.v1.json: no holidays for ${loc.id}`);
    if (entry.region !== region && !entry.region.startsWith(`${region}-`)) {
      throw new Error(
        `holidays.v1.json: ${loc.id} has the holidays of ${entry.region}, not ${region}: ` +
          "run deno task data:holidays",
      );
    }
    const outside = Object.keys(entry.holidays).find((d) => !_inYears(file.years, d));
    if (outside) throw new Error(`holidays.v1.json: ${loc.id} ${outside} is outside its years`);
    byLocation.set(loc.id, new Map(Object.entries(entry.holidays)));
  }
  return { from: file.years.from, to: file.years.to, byLocation };
}

/** The holiday calendar of a location; one that knows nothing for a site outside coverage. */
export function holidayCalendar(index: HolidayIndex, locationId?: string): HolidayCalendar {
  const days = locationId === undefined ? undefined : index.byLocation.get(locationId);
  if (!days) return () => undefined;
  return (date) => _inYears(index, date) ? days.get(date) ?? null : undefined;
}

function _inYears(years: { from: number; to: number }, date: string): boolean {
  const year = Number(date.slice(0, 4));
  return year >= years.from && year <= years.to;
}
