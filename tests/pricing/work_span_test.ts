/**
 * The whole span of a job: its billed hours, worked from the start, are priced at the
 * business rate inside 08:00–18:00 local time on working days and at the out-of-hours rate
 * outside; out_of_hours, when sent, applies to every hour; jobs without a date or time are
 * priced as before.
 */
import assert from "node:assert/strict";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp } from "../_helpers.ts";
import { assumed, priceEverywhere, rackAndStackRange as range } from "./_price.ts";

/** The example: rack and stack in Amsterdam, 2 engineers × 6 h. */
const RACK_AMS = {
  city: "Amsterdam",
  service_type: "rack-and-stack",
  engineer_count: 2,
  estimated_hours: 6,
};
Deno.test("the whole span decides: each hour at the rate of when it is worked", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step("Amsterdam 2026-12-01 19:00, 2 × 6 h: every hour after 18:00", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_date: "2026-12-01",
      requested_time: "19:00",
    });
    assert.deepEqual([e.low, e.high], [2055, 2550]);
    assert.equal(e.basis.out_of_hours, true);
    assert.equal(e.basis.hours_out_of_hours, 6);
    assert.equal(e.basis.time_zone, "Europe/Amsterdam");
  });
  await t.step("the same job at 17:30: 0.5 h inside, 5.5 h outside", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_date: "2026-12-01",
      requested_time: "17:30",
    });
    assert.deepEqual([e.low, e.high], range(2, 0.5, 5.5));
    assert.equal(e.basis.hours_out_of_hours, 5.5);
    assert.equal(e.basis.out_of_hours, true, "true when any hour is out of hours");
    assert.match(
      assumed(e, "out_of_hours")!.why,
      /^inferred: 5\.5 of 6 h are outside business hours \(08:00 to 18:00 local time in Europe\/Amsterdam, Monday to Friday, public holidays excepted\): after 18:00 local time$/,
    );
    assert.match(String(e.note), /^5\.5 of 6 h per engineer are outside business hours/);
  });
  await t.step("at 06:00: two hours before 08:00", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_date: "2026-12-01",
      requested_time: "06:00",
    });
    assert.equal(e.basis.hours_out_of_hours, 2);
    assert.match(
      assumed(e, "out_of_hours")!.why,
      /: before 08:00 local time$/,
    );
  });
  await t.step("09:00 to 15:00 on a Tuesday: business rates, as before", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_date: "2026-12-01",
      requested_time: "09:00",
    });
    assert.deepEqual([e.low, e.high], range(2, 6, 0));
    assert.equal(e.basis.out_of_hours, false);
    assert.equal(e.note, null);
  });
  await t.step("Friday 16:00 for 20 h: 10 h into Saturday night, then Monday's", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_date: "2026-12-04",
      requested_time: "16:00",
      estimated_hours: 20,
    });
    // Each day 16:00–02:00: 2 h inside, 6 h after 18:00, 2 h past midnight (on Saturday,
    // then on Tuesday before 08:00).
    assert.equal(e.basis.work_days, 2);
    assert.equal(e.basis.hours_out_of_hours, 16);
    assert.match(
      assumed(e, "out_of_hours")!.why,
      /: before 08:00 and after 18:00 local time; 2026-12-05 is a Saturday$/,
    );
    assert.match(
      assumed(e, "work_days")!.why,
      /: 2 days of 10 h, 16:00 to 02:00 local time: 2026-12-04 and 2026-12-07$/,
    );
  });
});

Deno.test("what the caller leaves out of the date and time is assumed, and said", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step("a date without a time starts at 08:00", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      estimated_hours: 12,
      requested_date: "2026-12-01",
    });
    assert.deepEqual(assumed(e, "requested_time"), {
      field: "requested_time",
      value: "08:00",
      why: "not given: the job is taken to start at 08:00 local time, when business hours begin",
    });
    assert.equal(e.basis.hours_out_of_hours, 0, "two days of 6 h, 08:00 to 14:00");
  });
  await t.step("today, with no time, after 08:00 at the site: the job starts now", async () => {
    // 2026-11-22 is a Sunday: the clock is moved to Tuesday 2026-11-24 19:53 in Amsterdam.
    app.clock.t = Date.UTC(2026, 10, 24, 18, 53);
    const e = await priceEverywhere(app, { ...RACK_AMS, requested_date: "2026-11-24" });
    assert.deepEqual(assumed(e, "requested_time"), {
      field: "requested_time",
      value: "19:53",
      why: "not given, and 2026-11-24 is today at the site: the job is taken to start now, " +
        "19:53 local time",
    });
    assert.equal(e.basis.hours_out_of_hours, 6, "every hour from 19:53 is after 18:00");
    assert.deepEqual([e.low, e.high], range(2, 0, 6));
  });
  await t.step(
    "today, with no time, before 08:00 at the site: the job starts at 08:00",
    async () => {
      app.clock.t = Date.UTC(2026, 10, 24, 5, 0); // 06:00 in Amsterdam
      const e = await priceEverywhere(app, { ...RACK_AMS, requested_date: "2026-11-24" });
      assert.equal(assumed(e, "requested_time")!.value, "08:00");
      assert.equal(e.basis.hours_out_of_hours, 0);
    },
  );
  await t.step("a time without a date is taken on working days", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_time: "17:00",
      estimated_hours: 3,
    });
    assert.equal(assumed(e, "requested_date")!.value, null);
    assert.match(
      assumed(e, "requested_date")!.why,
      /every day of the job is taken as a working day/,
    );
    assert.equal(e.basis.hours_out_of_hours, 2);
  });
  await t.step("neither: business hours, and the same figures as before this rule", async () => {
    const e = await priceEverywhere(app, RACK_AMS);
    assert.deepEqual([e.low, e.high], [1395, 1725], "110 × 2 × 6 + 75, and × 1.25 + 75");
    assert.equal(e.basis.hours_out_of_hours, 0);
    assert.match(
      assumed(e, "out_of_hours")!.why,
      /^not given, and no requested_date or requested_time/,
    );
  });
});

Deno.test("out_of_hours, when sent, applies to every hour", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step("true at 10:00 on a Tuesday: all 6 h out of hours, no note", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_date: "2026-12-01",
      requested_time: "10:00",
      out_of_hours: true,
    });
    assert.deepEqual([e.low, e.high], [2055, 2550]);
    assert.equal(e.basis.hours_out_of_hours, 6);
    assert.equal(assumed(e, "out_of_hours"), undefined);
    assert.equal(e.note, null);
  });
  await t.step("false at 17:30: business rates, and the note says what the time says", async () => {
    const e = await priceEverywhere(app, {
      ...RACK_AMS,
      requested_date: "2026-12-01",
      requested_time: "17:30",
      out_of_hours: false,
    });
    assert.deepEqual([e.low, e.high], [1395, 1725]);
    assert.equal(e.basis.out_of_hours, false);
    assert.equal(e.basis.hours_out_of_hours, 0);
    assert.equal(
      e.note,
      "5.5 of 6 h per engineer are outside business hours (after 18:00 local time in " +
        "Europe/Amsterdam): this estimate uses business-hours rates, as out_of_hours: false asks.",
    );
  });
});
