/**
 * Emergencies start now: urgency emergency with no date or time is priced from the site's
 * local now, its out-of-hours share included, with assumptions saying so; the estimate says
 * when a person reviews it and that no one is dispatched before. The same on every surface.
 */
import assert from "node:assert/strict";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp, FakeClock, post } from "../_helpers.ts";
import { assumed, priceEverywhere } from "./_price.ts";

/** Saturday 2026-11-28, 15:00 in Tokyo (06:00 UTC). */
function saturdayInTokyo(): FakeClock {
  const clock = new FakeClock();
  clock.t = Date.parse("2026-11-28T06:00:00Z");
  return clock;
}

const TOKYO = { city: "Tokyo", service_type: "remote-hands", estimated_hours: 2 };

Deno.test("an emergency with no date or time is priced from now at the site", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF, clock: saturdayInTokyo() });
  await t.step("Tokyo, Saturday 15:00 there: every hour out of hours", async () => {
    const e = await priceEverywhere(app, { ...TOKYO, urgency: "emergency" });
    // remote hands: 95 EUR/h, ×1.5 out of hours, no call-out fee.
    assert.deepEqual([e.low, e.high], [95 * 2 * 1.5, 95 * 2 * 1.5 * 1.25]);
    assert.equal(e.basis.time_zone, "Asia/Tokyo");
    assert.equal(e.basis.hours_out_of_hours, 2);
    const now = "not given, and urgency is emergency: the job is taken to start now, " +
      "2026-11-28 15:00 local time in Asia/Tokyo";
    assert.deepEqual(assumed(e, "requested_date"), {
      field: "requested_date",
      value: "2026-11-28",
      why: now,
    });
    assert.deepEqual(assumed(e, "requested_time"), {
      field: "requested_time",
      value: "15:00",
      why: now,
    });
    assert.match(assumed(e, "out_of_hours")!.why, /: 2026-11-28 is a Saturday$/);
    assert.match(
      String(e.note),
      / A person reviews an emergency within 2 h \(by 2026-11-28 08:00 UTC, 17:00 at the site, if sent now\); no one is dispatched before that review\.$/,
    );
    // SPEC §1.5 and §2.5: the estimate stays non-binding, and an emergency dispatches no one.
    assert.equal(e.non_binding, true);
  });
  await t.step("the same job, asap: business hours, as before", async () => {
    const e = await priceEverywhere(app, { ...TOKYO, urgency: "asap" });
    assert.deepEqual([e.low, e.high], [95 * 2, 95 * 2 * 1.25]);
    assert.equal(assumed(e, "requested_date"), undefined);
    assert.doesNotMatch(String(e.note), /dispatched/);
  });
  await t.step("an emergency with a date is priced when the date says", async () => {
    const e = await priceEverywhere(app, {
      ...TOKYO,
      urgency: "emergency",
      requested_date: "2026-12-01",
      requested_time: "10:00",
    });
    assert.equal(e.basis.hours_out_of_hours, 0);
    assert.equal(assumed(e, "requested_date"), undefined);
    assert.match(String(e.note), /no one is dispatched before that review\.$/);
  });
  await t.step("the quote's answer says when a person reviews it", async () => {
    const res = await post(app, "/api/v1/quotes", {
      ...TOKYO,
      urgency: "emergency",
      company: "Example KK",
      contact_name: "Sam Example",
      email: "sam@example.com",
      description: "Server down",
    });
    assert.equal(res.status, 202);
    const body = await res.json();
    assert.deepEqual(body.expected_review, {
      within_hours: 2,
      by: "2026-11-28T08:00:00.000Z",
    });
    assert.match(body.next_step, /expected as an emergency within 2 hours, by 2026-11-28 08:00/);
  });
});

Deno.test("an emergency where the site's time zone is unknown is priced in business hours, and says why", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF, clock: saturdayInTokyo() });
  // "Springfield" names several cities: no one place, so no zone.
  const e = await priceEverywhere(app, {
    city: "Springfield",
    service_type: "remote-hands",
    estimated_hours: 2,
    urgency: "emergency",
  });
  assert.equal(e.basis.time_zone, null);
  assert.equal(e.basis.hours_out_of_hours, 0);
  assert.match(assumed(e, "time_zone")!.why, /^not known: an emergency is priced from now/);
  assert.match(String(e.note), /by 2026-11-28 08:00 UTC, if sent now\)/);
});
