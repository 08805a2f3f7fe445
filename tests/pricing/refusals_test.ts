/**
 * Refusals list every problem in one answer and say what to send: a past date beside a
 * malformed time, every job field wrong at once, a date-time split into the site's local
 * date and time with its UTC offset, an impossible date with its month's last day. The same
 * on every surface that prices, and a lead lists its city beside its other problems.
 */
import assert from "node:assert/strict";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp, post } from "../_helpers.ts";
import { refusedEverywhere } from "./_price.ts";

const JOB = { city: "Singapore", service_type: "remote-hands" };

/** 2026-11-22 08:00 in Singapore (00:00 UTC): the default fake clock. */
const NOW_THERE = "it is now 2026-11-22 08:00 in Asia/Singapore";

Deno.test("every problem in one answer: a malformed time does not hide a past date", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step("a bad time and a past date: both listed", async () => {
    const issues = await refusedEverywhere(app, {
      ...JOB,
      requested_date: "2026-01-15",
      requested_time: "25:00",
    });
    assert.deepEqual(issues, [
      { path: "requested_time", message: "requested_time must be HH:MM, 00:00 to 23:59" },
      {
        path: "requested_date",
        message: `requested_date 2026-01-15 is in the past at the site: ${NOW_THERE}`,
      },
    ]);
  });
  await t.step("every job field wrong at once: each one listed", async () => {
    const issues = await refusedEverywhere(app, {
      city: "Londom",
      service_type: "rack-and-stakc",
      engineer_count: 0,
      estimated_hours: 0,
      out_of_hours: "maybe",
      requested_date: "2026-01-15",
      requested_time: "9.30",
      urgency: "now",
      currency: "dollars",
    });
    assert.deepEqual(issues.map((i) => i.path).sort(), [
      "city",
      "currency",
      "engineer_count",
      "estimated_hours",
      "out_of_hours",
      "requested_date",
      "requested_time",
      "service_type",
      "urgency",
    ]);
  });
  await t.step("a lead: a bad email does not hide a likely typo of a city", async () => {
    const res = await post(app, "/api/v1/intake", {
      email: "nobody",
      description: "Rack work",
      city: "Londom",
    });
    assert.equal(res.status, 400);
    const { issues } = await res.json();
    assert.deepEqual(issues.map((i: { path: string }) => i.path), ["email", "city"]);
  });
});

Deno.test("a date-time sent as a date is answered with the date and time to send, at the site", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const refusal = async (job: Record<string, unknown>) => {
    const issues = await refusedEverywhere(app, { ...JOB, ...job });
    assert.equal(issues.length, 1, JSON.stringify(issues));
    return issues[0]!;
  };
  await t.step("with an offset: converted to Singapore's time (UTC+8)", async () => {
    assert.deepEqual(await refusal({ requested_date: "2027-01-15T09:00:00+09:00" }), {
      path: "requested_date",
      message: "requested_date is a date alone (YYYY-MM-DD): for 2027-01-15T09:00:00+09:00 " +
        "send requested_date 2027-01-15 and requested_time 08:00, local to Singapore (UTC+8)",
    });
  });
  await t.step("in UTC, late in the day: the date moves to the site's", async () => {
    const { message } = await refusal({ requested_date: "2027-01-15T20:30Z" });
    assert.match(
      message,
      /send requested_date 2027-01-16 and requested_time 04:30, local to Singapore \(UTC\+8\)$/,
    );
  });
  await t.step("with no offset: read as the site's local time", async () => {
    const { message } = await refusal({ requested_date: "2027-01-15 09:00" });
    assert.match(
      message,
      /send requested_date 2027-01-15 and requested_time 09:00, local to Singapore \(UTC\+8\)$/,
    );
  });
  await t.step("a query's + decoded as a space is read as the offset it was", async () => {
    const res = await app.request(
      "/api/v1/estimate?city=Singapore&service_type=remote-hands" +
        "&requested_date=2027-01-15T09:00:00+09:00",
    );
    assert.equal(res.status, 400);
    const { issues } = await res.json();
    assert.match(issues[0].message, /requested_time 08:00, local to Singapore \(UTC\+8\)$/);
  });
  await t.step("in requested_time too", async () => {
    const { path, message } = await refusal({ requested_time: "2027-01-15T09:00:00+08:00" });
    assert.equal(path, "requested_time");
    assert.match(
      message,
      /^requested_time is a time alone \(HH:MM\): for .* send requested_date 2027-01-15 and requested_time 09:00/,
    );
  });
  await t.step("a half-hour zone's offset is written with its minutes", async () => {
    const { message } = await refusal({
      city: "Mumbai",
      requested_date: "2027-01-15T09:00:00Z",
    });
    assert.match(message, /requested_time 14:30, local to Mumbai \(UTC\+5:30\)$/);
  });
  await t.step("a date-time already past at the site says so too", async () => {
    const { message } = await refusal({ requested_date: "2026-01-15T09:00:00+08:00" });
    assert.match(
      message,
      /requested_time 09:00, local to Singapore \(UTC\+8\); but requested_date 2026-01-15 is in the past at the site/,
    );
  });
  await t.step("where the site's zone is unknown: split as written, and said", async () => {
    const { message } = await refusal({
      city: "Springfield",
      requested_date: "2027-01-15T09:00:00+09:00",
    });
    assert.match(
      message,
      /send requested_date 2027-01-15 and requested_time 09:00, the site's local time \(the city's time zone is not known: convert from \+09:00 if the site is elsewhere\)$/,
    );
  });
});

Deno.test("an impossible date names its month's last day; a sloppy time, the time to send", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const message = async (job: Record<string, unknown>) =>
    (await refusedEverywhere(app, { ...JOB, ...job }))[0]!.message;
  await t.step("2027-02-30: February 2027 ends on the 28th", async () => {
    assert.equal(
      await message({ requested_date: "2027-02-30" }),
      "requested_date 2027-02-30 is not a date: February 2027 has 28 days, the last 2027-02-28",
    );
  });
  await t.step("2028-02-30: a leap year ends on the 29th", async () => {
    assert.match(await message({ requested_date: "2028-02-30" }), /29 days, the last 2028-02-29$/);
  });
  await t.step("2027-04-31 and 2027-13-01", async () => {
    assert.match(await message({ requested_date: "2027-04-31" }), /April 2027 has 30 days/);
    assert.match(await message({ requested_date: "2027-13-01" }), /the month is 01 to 12/);
  });
  await t.step("9:30 and 09:30:00 are answered with 09:30", async () => {
    for (const time of ["9:30", "09:30:00"]) {
      assert.equal(
        await message({ requested_time: time }),
        "requested_time must be HH:MM, 00:00 to 23:59: send 09:30",
      );
    }
  });
});
