/**
 * Public holidays at each site come from the date-holidays package through the generated
 * data/holidays.v1.json: a holiday is out of hours, a regional one only in its region, a
 * year past the data assumes none and says so, and the file is what the script writes now.
 */
import assert from "node:assert/strict";
import holidaysFile from "../../data/holidays.v1.json" with { type: "json" };
import locationsFile from "../../data/locations.v1.json" with { type: "json" };
import { generateHolidays, HOLIDAY_YEARS } from "../../scripts/holidays.ts";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp } from "../_helpers.ts";
import { filesUnder } from "../_source.ts";
import { assumed, priceEverywhere } from "./_price.ts";

/** One hour of remote hands at 10:00 on `date` in `city`. */
const atTen = (city: string, date: string) => ({
  city,
  service_type: "remote-hands",
  estimated_hours: 1,
  requested_date: date,
  requested_time: "10:00",
});

Deno.test("data/holidays.v1.json is what deno task data:holidays writes now", () => {
  assert.deepEqual(
    holidaysFile,
    generateHolidays(locationsFile.locations),
    "the file differs from date-holidays' data: run deno task data:holidays and commit it",
  );
  assert.deepEqual(holidaysFile.years, HOLIDAY_YEARS);
});

Deno.test("the file's source names date-holidays at the version scripts/holidays.ts imports", () => {
  const script = Deno.readTextFileSync(new URL("../../scripts/holidays.ts", import.meta.url));
  const [, pkg] = script.match(/"npm:(date-holidays@\d[\w.-]*)"/)!;
  assert.match(holidaysFile.source, new RegExp(`^npm ${pkg!.replaceAll(".", "\\.")}:`));
});

Deno.test("no module under src/ imports date-holidays: the service reads the generated file", () => {
  for (const file of filesUnder("src").filter((f) => /\.(ts|js)$/.test(f))) {
    assert.doesNotMatch(Deno.readTextFileSync(file), /["'](npm:)?date-holidays/, file);
  }
});

Deno.test("a public holiday at the site is out of hours, named in the assumptions", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const cases: [string, string, string][] = [
    ["Amsterdam", "2026-12-25", "Christmas Day"],
    ["Frankfurt", "2027-01-01", "New Year's Day"],
    ["Amsterdam", "2027-04-27", "King's Day"],
    ["Ashburn VA", "2026-11-26", "Thanksgiving Day"],
  ];
  for (const [city, date, name] of cases) {
    await t.step(`${city} ${date}, ${name}`, async () => {
      const e = await priceEverywhere(app, atTen(city, date));
      assert.equal(e.basis.out_of_hours, true);
      assert.equal(e.basis.hours_out_of_hours, 1);
      assert.match(
        assumed(e, "out_of_hours")!.why,
        new RegExp(`: ${date} is ${name}, a public holiday at the site$`),
      );
    });
  }
  await t.step("the working day after is priced at business rates", async () => {
    const e = await priceEverywhere(app, atTen("Ashburn VA", "2026-11-30"));
    assert.equal(e.basis.out_of_hours, false);
  });
});

Deno.test("a regional holiday counts only in its region", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step("Epiphany, 2027-01-06, is a holiday in Bavaria: Munich", async () => {
    const e = await priceEverywhere(app, atTen("Munich", "2027-01-06"));
    assert.equal(e.basis.out_of_hours, true);
    assert.match(assumed(e, "out_of_hours")!.why, /2027-01-06 is Epiphany/);
  });
  await t.step("but not in Hesse: Frankfurt works that Wednesday", async () => {
    const e = await priceEverywhere(app, atTen("Frankfurt", "2027-01-06"));
    assert.equal(e.basis.out_of_hours, false);
  });
  await t.step("Assumption Day in Munich (its mainly Catholic communities' holidays)", async () => {
    const e = await priceEverywhere(app, atTen("Munich", "2029-08-15"));
    assert.match(assumed(e, "out_of_hours")!.why, /2029-08-15 is Assumption/);
  });
});

Deno.test("past the years of the holiday data no holiday is assumed, and the assumption says so", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const date = `${HOLIDAY_YEARS.to + 1}-12-25`;
  const e = await priceEverywhere(app, atTen("Amsterdam", date));
  assert.equal(e.basis.out_of_hours, false, `${date} is a weekday`);
  assert.match(
    assumed(e, "out_of_hours")!.why,
    new RegExp(
      `the holiday data ends with ${HOLIDAY_YEARS.to}: no public holiday assumed after it$`,
    ),
  );
});
