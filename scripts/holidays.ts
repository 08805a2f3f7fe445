/**
 * @module
 * `deno task data:holidays`: writes `data/holidays.v1.json`, each location's public holidays
 * for the years below, from the npm package `date-holidays` (imported at an exact version). The
 * service reads only the file: the package costs some 40 MB of memory and 0.24 ms a lookup,
 * so it is a tool of this script, never imported under `src/`. Run it when the years move on
 * (each January: raise both years), when date-holidays is upgraded (its version in the import
 * and in the source named), or when a location is added; tests/pricing/holidays_test.ts fails
 * while the two versions differ, or while the file differs from what it writes.
 */

import Holidays from "npm:date-holidays@3.37.0";
import locationsFile from "../data/locations.v1.json" with { type: "json" };
import type { HolidaysFile, Location } from "../src/catalog/records.ts";
import { DAY_MS } from "../src/time.ts";

/** The years the file covers: past the last, an estimate assumes no holidays and says so. */
export const HOLIDAY_YEARS = { from: 2026, to: 2030 } as const;

/** The file the service loads. */
export const HOLIDAYS_PATH = new URL("../data/holidays.v1.json", import.meta.url);

/**
 * Regions date-holidays knows below an ISO 3166-2 subdivision, for the locations in one:
 * Munich keeps the holidays of Bavaria's mainly Catholic communities (Assumption Day), São
 * Paulo those of the city (its anniversary, 25 January).
 */
const FINER_REGIONS: Readonly<Record<string, string>> = { muc: "KATH", sao: "SP" };

const SOURCE = "npm date-holidays@3.37.0: holidays of type public, English names";

/** The holidays file for `locations`, as `deno task data:holidays` writes it. */
export function generateHolidays(
  locations: readonly Pick<Location, "id" | "country" | "subdivision">[],
): HolidaysFile {
  const out: HolidaysFile["locations"] = {};
  for (const loc of locations) {
    const state = loc.subdivision?.slice(3);
    const region = FINER_REGIONS[loc.id];
    const calendar = new Holidays(loc.country, state ?? "", region ?? "", { languages: ["en"] });
    const holidays: Record<string, string> = {};
    for (let year = HOLIDAY_YEARS.from; year <= HOLIDAY_YEARS.to; year++) {
      for (const h of calendar.getHolidays(year, "en")) {
        if (h.type !== "public") continue;
        for (const date of _days(h)) holidays[date] ??= h.name;
      }
    }
    out[loc.id] = {
      region: [loc.country, state, region].filter(Boolean).join("-"),
      holidays: Object.fromEntries(Object.entries(holidays).sort(([a], [b]) => a.localeCompare(b))),
    };
  }
  return { version: 1, source: SOURCE, years: { ...HOLIDAY_YEARS }, locations: out };
}

/**
 * The local dates a holiday covers: from the date it is written with, one per day it lasts
 * (Eid al-Fitr three; Easter Sunday's 23 hours, a clock change, one).
 */
function _days(h: { date: string; start: Date; end: Date }): string[] {
  const days = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / DAY_MS));
  const first = Date.parse(h.date.slice(0, 10));
  return Array.from(
    { length: days },
    (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10),
  );
}

if (import.meta.main) {
  const file = generateHolidays(locationsFile.locations);
  await Deno.writeTextFile(HOLIDAYS_PATH, JSON.stringify(file, null, 2) + "\n");
  const count = Object.values(file.locations)
    .reduce((n, l) => n + Object.keys(l.holidays).length, 0);
  console.log(
    `${HOLIDAYS_PATH.pathname}: ${count} holidays of ${Object.keys(file.locations).length} ` +
      `locations, ${HOLIDAY_YEARS.from} to ${HOLIDAY_YEARS.to}`,
  );
}
