/**
 * Dates and times are the site's: requested_date and requested_time are read in the
 * location's time zone, "in the past" is judged there (leniently when the zone is unknown),
 * clock changes neither crash nor shift a price silently, and the answer names the zone.
 */
import assert from "node:assert/strict";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp, FakeClock } from "../_helpers.ts";
import { assumed, priceEverywhere, refusedEverywhere } from "./_price.ts";

/** A clock at an instant given in UTC. */
function clockAt(iso: string): FakeClock {
  const clock = new FakeClock();
  clock.t = Date.parse(iso);
  return clock;
}

const REMOTE_HANDS = { service_type: "remote-hands", estimated_hours: 1 };

Deno.test("a start that has passed at the site is refused, naming the zone and its time now", async (t) => {
  // 18:53 UTC on 24 November is 03:53 on the 25th in Tokyo.
  await using app = await createApp({
    env: RATE_LIMITS_OFF,
    clock: clockAt("2026-11-24T18:53:00Z"),
  });
  await t.step("Tokyo 2026-11-24 10:00: that day is over in Tokyo", async () => {
    const issues = await refusedEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Tokyo",
      requested_date: "2026-11-24",
      requested_time: "10:00",
    });
    assert.deepEqual(issues, [{
      path: "requested_date",
      message: "requested_date 2026-11-24 is in the past at the site: it is now 2026-11-25 " +
        "03:53 in Asia/Tokyo",
    }]);
  });
  await t.step("Tokyo 2026-11-25 02:00: today there, but that hour has passed", async () => {
    const issues = await refusedEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Tokyo",
      requested_date: "2026-11-25",
      requested_time: "02:00",
    });
    assert.deepEqual(issues, [{
      path: "requested_time",
      message: "2026-11-25 02:00 has passed at the site: it is now 2026-11-25 03:53 in " +
        "Asia/Tokyo",
    }]);
  });
  await t.step("Tokyo 2026-11-25 with no time: today at the site is accepted", async () => {
    const e = await priceEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Tokyo",
      requested_date: "2026-11-25",
    });
    assert.equal(e.basis.time_zone, "Asia/Tokyo");
  });
  await t.step(
    "San Jose 2026-11-24 20:00: still ahead there, though the 24th is over in Tokyo",
    async () => {
      const e = await priceEverywhere(app, {
        ...REMOTE_HANDS,
        city: "San Jose",
        country: "US",
        requested_date: "2026-11-24",
        requested_time: "20:00",
      });
      assert.equal(e.basis.time_zone, "America/Los_Angeles");
      assert.equal(e.basis.hours_out_of_hours, 1, "20:00 local, not 04:00 UTC");
    },
  );
  await t.step("San Jose 2026-11-24 10:00 has passed there (10:53 local)", async () => {
    const issues = await refusedEverywhere(app, {
      ...REMOTE_HANDS,
      city: "San Jose",
      country: "US",
      requested_date: "2026-11-24",
      requested_time: "10:00",
    });
    assert.match(issues[0]!.message, /it is now 2026-11-24 10:53 in America\/Los_Angeles$/);
  });
});

Deno.test("with no zone known the time is read as given, and only what has passed everywhere is refused", async (t) => {
  await using app = await createApp({
    env: RATE_LIMITS_OFF,
    clock: clockAt("2026-11-24T18:53:00Z"),
  });
  await t.step("Utopia 2026-11-24 10:00 is still ahead at UTC−12 (06:53): accepted", async () => {
    const e = await priceEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Utopia",
      requested_date: "2026-11-24",
      requested_time: "10:00",
    });
    assert.equal(e.basis.time_zone, null);
    assert.match(
      assumed(e, "time_zone")!.why,
      /^not known: the date and time are read as given, and refused only once past in every zone$/,
    );
    assert.equal(e.basis.out_of_hours, false, "10:00 on a Tuesday, as given");
  });
  await t.step("Utopia 2026-11-23 is over in every zone: refused", async () => {
    const issues = await refusedEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Utopia",
      requested_date: "2026-11-23",
    });
    assert.equal(issues[0]!.path, "requested_date");
    assert.match(issues[0]!.message, /is in the past in every time zone \(the city's time zone/);
  });
  await t.step("Utopia 2026-11-24 06:00 has passed even at UTC−12: refused", async () => {
    const issues = await refusedEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Utopia",
      requested_date: "2026-11-24",
      requested_time: "06:00",
    });
    assert.equal(issues[0]!.path, "requested_time");
  });
});

Deno.test("a known city outside coverage is read in its own time zone", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  // Denver is nearest Dallas (Central time) but keeps Mountain time: 17:30 there is 2 h
  // of work, half of it after 18:00.
  const e = await priceEverywhere(app, {
    ...REMOTE_HANDS,
    estimated_hours: 1,
    city: "Denver",
    requested_date: "2026-12-01",
    requested_time: "17:30",
  });
  assert.equal(e.basis.time_zone, "America/Denver");
  assert.equal(e.basis.hours_out_of_hours, 0.5);
  assert.match(
    assumed(e, "out_of_hours")!.why,
    /public holidays are known only at covered sites: none assumed$/,
  );
});

Deno.test("clock changes: a skipped time is read after the jump, a repeated one as its first, a span counts real hours", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  await t.step("02:30 on 2027-03-28 does not exist in Amsterdam: read as 03:30", async () => {
    const e = await priceEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Amsterdam",
      requested_date: "2027-03-28",
      requested_time: "02:30",
    });
    assert.deepEqual(assumed(e, "requested_time"), {
      field: "requested_time",
      value: "03:30",
      why: "02:30 does not exist on 2027-03-28 in Europe/Amsterdam (the clocks go forward): " +
        "read as 03:30",
    });
  });
  await t.step("02:30 on 2027-10-31 happens twice in Amsterdam: the first is read", async () => {
    const e = await priceEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Amsterdam",
      requested_date: "2027-10-31",
      requested_time: "02:30",
    });
    assert.match(assumed(e, "requested_time")!.why, /happens twice .* the first is read$/);
  });
  await t.step(
    "a 10 h night shift from 22:00 as New York falls back ends at 07:00, not 08:00",
    async () => {
      // Sunday 2027-11-07 has 25 hours in America/New_York: 10 real hours from Saturday
      // 22:00 end at 07:00 by the clock.
      const e = await priceEverywhere(app, {
        ...REMOTE_HANDS,
        estimated_hours: 10,
        city: "Ashburn VA",
        requested_date: "2027-11-06",
        requested_time: "22:00",
      });
      assert.equal(e.basis.hours_out_of_hours, 10);
      assert.match(assumed(e, "work_days")!.why, /one shift of 10 h, 22:00 to 07:00 local time/);
    },
  );
});

Deno.test("the minimum notice: a start sooner than the service needs is accepted and flagged", async (t) => {
  // 12:00 UTC on 25 November: 13:00 in Frankfurt and Zürich.
  await using app = await createApp({
    env: RATE_LIMITS_OFF,
    clock: clockAt("2026-11-25T12:00:00Z"),
  });
  await t.step("rack and stack in Frankfurt tomorrow 09:00: 20 h away, 48 h needed", async () => {
    const e = await priceEverywhere(app, {
      city: "Frankfurt",
      service_type: "rack-and-stack",
      engineer_count: 2,
      estimated_hours: 4,
      requested_date: "2026-11-26",
      requested_time: "09:00",
    });
    assert.equal(e.basis.notice_hours, 48);
    assert.equal(e.basis.short_notice, true);
    assert.equal(
      e.note,
      "Rack and stack needs 48 h notice; 2026-11-26 09:00 in Europe/Berlin is 20 h away: a " +
        "person will confirm whether that start is possible.",
    );
  });
  await t.step("the same job three days later: no note", async () => {
    const e = await priceEverywhere(app, {
      city: "Frankfurt",
      service_type: "rack-and-stack",
      estimated_hours: 4,
      requested_date: "2026-11-30",
      requested_time: "09:00",
    });
    assert.equal(e.basis.short_notice, false);
    assert.equal(e.note, null);
  });
  await t.step("remote hands needs the site's response time: 4 h in Zürich", async () => {
    const e = await priceEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Zurich",
      requested_date: "2026-11-25",
      requested_time: "15:00",
    });
    assert.equal(e.basis.notice_hours, 4);
    assert.match(
      String(e.note),
      /^Remote hands needs 4 h notice at Zürich \(an engineer's time to reach it\); 2026-11-25 15:00 in Europe\/Zurich is 2 h away/,
    );
  });
  await t.step("a date alone, today after 08:00: the assumed start is now", async () => {
    const e = await priceEverywhere(app, {
      ...REMOTE_HANDS,
      city: "Zurich",
      requested_date: "2026-11-25",
    });
    assert.equal(e.basis.short_notice, true);
    assert.match(String(e.note), /2026-11-25 \d\d:\d\d \(assumed\) in Europe\/Zurich is now/);
  });
  await t.step("no date: nothing to judge", async () => {
    const e = await priceEverywhere(app, { ...REMOTE_HANDS, city: "Zurich" });
    assert.equal(e.basis.short_notice, false);
    assert.equal(e.basis.notice_hours, 4);
  });
});

Deno.test("each service's minimum notice is in the catalog reads", async () => {
  await using app = await createApp();
  const { services } = await (await app.request("/api/v1/services")).json();
  const notice = Object.fromEntries(
    services.map((s: { id: string; minimum_notice_hours: number }) => [
      s.id,
      s.minimum_notice_hours,
    ]),
  );
  assert.equal(notice["remote-hands"], 0, "as fast as the site's response time");
  assert.equal(notice["rack-and-stack"], 48);
  assert.ok(Object.values(notice).every((h) => typeof h === "number" && h >= 0));
});
