/**
 * The shape of the work is stated, and priced as stated: estimated_hours is per engineer;
 * up to 10 h is one shift from the start, more is spread over the fewest days of at most
 * 10 h, shared equally, each from the start's local time, the days after the first on
 * working days. basis.work_days and hours_per_day, the work_days assumption and the note
 * say so; the same on every surface.
 */
import assert from "node:assert/strict";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp } from "../_helpers.ts";
import { assumed, priceEverywhere, rackAndStackRange as range } from "./_price.ts";

/** The example: 3 engineers for 16 h of rack and stack in Amsterdam. */
const LONG_JOB = {
  city: "Amsterdam",
  service_type: "rack-and-stack",
  engineer_count: 3,
  estimated_hours: 16,
};
Deno.test("a long job is laid out over working days of at most 10 h, and says so", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step(
    "3 engineers × 16 h from Tuesday 09:00: two days of 8 h, business rates",
    async () => {
      const e = await priceEverywhere(app, {
        ...LONG_JOB,
        requested_date: "2026-12-01",
        requested_time: "09:00",
      });
      assert.deepEqual([e.low, e.high], range(3, 16, 0));
      assert.equal(e.basis.work_days, 2);
      assert.equal(e.basis.hours_per_day, 8);
      assert.equal(e.basis.hours_out_of_hours, 0);
      assert.deepEqual(assumed(e, "work_days"), {
        field: "work_days",
        value: 2,
        why: "hours per engineer, in days of at most 10 h: 2 days of 8 h, 09:00 to 17:00 local " +
          "time: 2026-12-01 and 2026-12-02",
      });
      assert.equal(
        e.note,
        "Priced as 2 days of 8 h, 09:00 to 17:00 local time: 2026-12-01 and 2026-12-02 (at " +
          "most 10 h a day).",
      );
    },
  );
  await t.step("10 h is one shift; 10.5 h is two days of 5.25 h", async () => {
    const job = { ...LONG_JOB, requested_date: "2026-12-01", requested_time: "08:00" };
    const ten = await priceEverywhere(app, { ...job, estimated_hours: 10 });
    assert.equal(ten.basis.work_days, 1);
    assert.match(
      assumed(ten, "work_days")!.why,
      /: one shift of 10 h, 08:00 to 18:00 local time on 2026-12-01$/,
    );
    const more = await priceEverywhere(app, { ...job, estimated_hours: 10.5 });
    assert.equal(more.basis.work_days, 2);
    assert.equal(more.basis.hours_per_day, 5.25);
    assert.equal(more.basis.hours_out_of_hours, 0);
  });
  await t.step("25 h is three days of 8 h 20 min", async () => {
    const e = await priceEverywhere(app, {
      ...LONG_JOB,
      estimated_hours: 25,
      requested_date: "2026-12-01",
      requested_time: "09:00",
    });
    assert.equal(e.basis.hours_per_day, 8.3333);
    assert.match(
      assumed(e, "work_days")!.why,
      /: 3 days of 8\.33 h, 09:00 to 17:20 local time: working days from 2026-12-01 to 2026-12-03$/,
    );
    assert.deepEqual([e.low, e.high], range(3, 25, 0));
  });
  await t.step("the days after the first skip Christmas and the weekend", async () => {
    // Thursday 2026-12-24; the 25th and 26th are public holidays in the Netherlands, the
    // 26th and 27th a weekend: the work goes on on Monday and Tuesday.
    const e = await priceEverywhere(app, {
      ...LONG_JOB,
      estimated_hours: 24,
      requested_date: "2026-12-24",
      requested_time: "09:00",
    });
    assert.equal(e.basis.hours_out_of_hours, 0);
    assert.match(assumed(e, "work_days")!.why, /: working days from 2026-12-24 to 2026-12-29$/);
  });
  await t.step("a night start keeps its hours: each day 20:00 to 04:00", async () => {
    const e = await priceEverywhere(app, {
      ...LONG_JOB,
      requested_date: "2026-12-01",
      requested_time: "20:00",
    });
    assert.equal(e.basis.hours_out_of_hours, 16);
    assert.deepEqual([e.low, e.high], range(3, 0, 16));
    assert.match(assumed(e, "work_days")!.why, /2 days of 8 h, 20:00 to 04:00 local time/);
  });
  await t.step("no date or time: days on working days, in business hours", async () => {
    const e = await priceEverywhere(app, LONG_JOB);
    assert.deepEqual([e.low, e.high], range(3, 16, 0));
    assert.match(
      assumed(e, "work_days")!.why,
      /: 2 days of 8 h on working days$/,
    );
  });
  await t.step("a short job is one shift, stated with its times", async () => {
    const e = await priceEverywhere(app, {
      ...LONG_JOB,
      estimated_hours: 3,
      requested_date: "2026-12-01",
      requested_time: "17:00",
    });
    assert.equal(e.basis.work_days, 1);
    assert.equal(e.basis.hours_out_of_hours, 2);
    assert.match(
      assumed(e, "work_days")!.why,
      /: one shift of 3 h, 17:00 to 20:00 local time on 2026-12-01$/,
    );
    assert.doesNotMatch(String(e.note), /Priced as/);
  });
  await t.step("1,000 h is 100 days of 10 h, named by the first and the last", async () => {
    const e = await priceEverywhere(app, {
      ...LONG_JOB,
      estimated_hours: 1000,
      requested_date: "2026-12-01",
      requested_time: "08:00",
    });
    assert.equal(e.basis.work_days, 100);
    assert.equal(e.basis.hours_out_of_hours, 0);
    assert.match(
      assumed(e, "work_days")!.why,
      /100 days of 10 h, 08:00 to 18:00 local time: working days from 2026-12-01 to 2027-04-/,
    );
  });
});
