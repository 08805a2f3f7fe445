import assert from "node:assert/strict";
import servicesFile from "../../data/services.v1.json" with { type: "json" };
import locationsFile from "../../data/locations.v1.json" with { type: "json" };
import holidaysFile from "../../data/holidays.v1.json" with { type: "json" };
import { buildCatalog, PLACES_FILE } from "../../src/catalog/catalog.ts";
import { getSubmission, getSubmissionPayload } from "../../src/store/submissions.ts";
import { catalog, createApp, post } from "../_helpers.ts";
import { LEAD } from "../_fixtures.ts";

const placesFile = Deno.readFileSync(PLACES_FILE);

const QUOTE = {
  company: "Example GmbH",
  contact_name: "Alex Example",
  email: "alex@example.com",
  city: "Frankfurt",
  service_type: "rack-and-stack",
  description: "Rack and cable 12 servers",
};

Deno.test("POST /api/v1/quotes accepts a quote with 202 and a non-binding budget estimate", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", {
    ...QUOTE,
    phone: "+49 69 1234-5678",
    country: "de",
    site_address: "Hanauer Landstraße 1, Frankfurt",
    requested_date: "2026-12-01",
    requested_time: "08:30",
    engineer_count: 2,
    estimated_hours: 3,
    out_of_hours: true,
    attachments_optional: ["ticket://INC-42", "https://files.example.com/rack.pdf"],
    agent_context_optional: { run: "abc" },
  });
  assert.equal(res.status, 202);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await res.json();
  assert.match(body.request_id, /^quote_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(body.status, "pending");
  assert.equal(body.requires_human_approval, true);
  assert.equal(body.billable_order_created, false);
  assert.equal(typeof body.next_step, "string");
  // rack-and-stack: 110 EUR/h, minimum 2 h, ×1.5 out of hours, 75 call-out.
  assert.deepEqual(body.budget_estimate, {
    currency: "EUR",
    tax_included: false,
    tax: "Excludes tax: the quotation adds VAT where it applies in the site's country (Germany).",
    low: 110 * 2 * 3 * 1.5 + 75,
    high: 110 * 2 * 3 * 1.5 * 1.25 + 75,
    non_binding: true,
    basis: {
      service_id: "rack-and-stack",
      hourly_rate: 110,
      engineers: 2,
      hours: 3,
      hours_assumed: false,
      minimum_hours: 2,
      work_days: 1,
      hours_per_day: 3,
      out_of_hours: true,
      hours_out_of_hours: 3,
      out_of_hours_multiplier: 1.5,
      call_out_fee: 75,
      contingency: 0.25,
      time_zone: "Europe/Berlin",
      notice_hours: 48,
      short_notice: false,
    },
    // Every input was given: only how the hours are laid out is stated.
    assumptions: [{
      field: "work_days",
      value: 1,
      why: "hours per engineer, in days of at most 10 h: one shift of 3 h, 08:30 to 11:30 " +
        "local time on 2026-12-01",
    }],
    note: null,
  });
  const record = (await getSubmission(app.kv, body.request_id)).value!;
  assert.equal(record.kind, "quote");
  assert.equal(record.service_id, "rack-and-stack");
  assert.equal(record.covered, true);
  assert.deepEqual(record.budget_estimate, body.budget_estimate);
  const stored = JSON.parse(await getSubmissionPayload(app.kv, record));
  assert.equal(stored.country, "DE");
  assert.deepEqual(stored.attachments_optional, [
    "ticket://INC-42",
    "https://files.example.com/rack.pdf",
  ]);
});

Deno.test("the budget estimate applies the minimum hours, defaults and the call-out fee", async (t) => {
  await using app = await createApp();
  const service = catalog().serviceById.get("remote-hands")!;
  const p = service.pricing;
  await t.step("no hours given: the minimum is assumed and said so", async () => {
    const { budget_estimate: e } = await (await post(app, "/api/v1/quotes", {
      ...QUOTE,
      service_type: "remote-hands",
    })).json();
    assert.equal(e.basis.hours, p.minimum_hours);
    assert.equal(e.basis.hours_assumed, true);
    assert.equal(e.basis.engineers, 1);
    assert.equal(e.low, p.hourly_rate * p.minimum_hours + p.call_out_fee);
    assert.match(e.note, /minimum was assumed/);
  });
  await t.step("fewer hours than the minimum are billed at the minimum", async () => {
    const { budget_estimate: e } = await (await post(app, "/api/v1/quotes", {
      ...QUOTE,
      service_type: "remote-hands",
      estimated_hours: 0.25,
    })).json();
    assert.equal(e.basis.hours, Math.max(0.25, p.minimum_hours));
    assert.equal(e.low, p.hourly_rate * Math.max(0.25, p.minimum_hours) + p.call_out_fee);
    assert.ok(e.high > e.low);
  });
  await t.step("a city outside published coverage adds a note", async () => {
    const { budget_estimate: e } = await (await post(app, "/api/v1/quotes", {
      ...QUOTE,
      city: "Reykjavik",
      estimated_hours: 2,
    })).json();
    assert.match(e.note, /outside published coverage/);
    assert.equal(e.non_binding, true);
  });
});

Deno.test("POST /api/v1/quotes understands service_type written any way: id, name or alias", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const cases: [string, string][] = [
    ["rack-and-stack", "rack-and-stack"],
    ["RACK-AND-STACK", "rack-and-stack"],
    ["Rack and stack", "rack-and-stack"],
    ["rack & stack", "rack-and-stack"],
    ["Rack & Stack", "rack-and-stack"],
    ["remote_hands", "remote-hands"],
    ["Remote Hands", "remote-hands"],
    ["REMOTE-HANDS", "remote-hands"],
    ["smart hands", "smart-hands"],
    ["cabling", "structured-cabling"],
    ["fibre", "fiber-testing"],
    ["fiber", "fiber-testing"],
    ["decom", "decommissioning"],
    ["RMA", "hardware-swap"],
    ["Décommissioning.", "decommissioning"],
    ["rackandstack", "rack-and-stack"],
    ["RackAndStack", "rack-and-stack"],
    ["Remote-Hands service", "remote-hands"],
    ["rack and stack services", "rack-and-stack"],
  ];
  for (const [written, id] of cases) {
    await t.step(`${written} → ${id}`, async () => {
      const res = await post(app, "/api/v1/quotes", { ...QUOTE, service_type: written });
      assert.equal(res.status, 202);
      const body = await res.json();
      assert.equal(body.service_id, id);
      assert.equal(body.budget_estimate.basis.service_id, id);
    });
  }
});

Deno.test("three missing fields and an unknown service_type are four problems in one 400", async () => {
  await using app = await createApp();
  const { company: _c, contact_name: _n, email: _e, ...rest } = QUOTE;
  const res = await post(app, "/api/v1/quotes", { ...rest, service_type: "teleportation" });
  assert.equal(res.status, 400);
  const { issues } = await res.json();
  assert.deepEqual(issues.map((i: { path: string }) => i.path).sort(), [
    "company",
    "contact_name",
    "email",
    "service_type",
  ]);
});

Deno.test("catalog aliases may not name two services", () => {
  const services = structuredClone(servicesFile);
  services.services[1]!.aliases.push("Remote Hand");
  assert.throws(
    () =>
      buildCatalog({
        services,
        locations: locationsFile,
        places: placesFile,
        holidays: holidaysFile,
      }),
    /"remotehand" names both remote-hands and smart-hands/,
  );
});

Deno.test("POST /api/v1/quotes rejects an unknown service_type with 400 listing the valid ids", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", { ...QUOTE, service_type: "teleportation" });
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.error, "validation_failed");
  assert.equal(body.issues.length, 1);
  assert.equal(body.issues[0].path, "service_type");
  for (const s of catalog().services) assert.ok(body.issues[0].message.includes(s.id), s.id);
  const near = await (await post(app, "/api/v1/quotes", { ...QUOTE, service_type: "rak and stak" }))
    .json();
  assert.match(near.issues[0].message, /did you mean rack-and-stack\?/);
  // Two neighbours swapped are one slip (edit_distance.ts): "remtoe hnads" is two from
  // remote-hands, within the three its eleven letters allow (it was four slips, none close).
  const swapped = [["rakc-and-stack", "rack-and-stack"], ["remtoe hnads", "remote-hands"]];
  for (const [written, meant] of swapped) {
    const body = await (await post(app, "/api/v1/quotes", { ...QUOTE, service_type: written }))
      .json();
    assert.match(body.issues[0].message, new RegExp(`did you mean ${meant}\\?`), written);
  }
});

Deno.test("POST /api/v1/quotes lists every field problem at once and stores nothing", async (t) => {
  await using app = await createApp();
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["every required field missing", {}, [
      "company",
      "contact_name",
      "email",
      "city",
      "service_type",
      "description",
    ]],
    ["a bad phone", { ...QUOTE, phone: "call me" }, ["phone"]],
    ["a country that is neither a code nor a name", { ...QUOTE, country: "Narnia" }, ["country"]],
    ["a date that is not ISO 8601", { ...QUOTE, requested_date: "01/12/2026" }, ["requested_date"]],
    ["an impossible date", { ...QUOTE, requested_date: "2026-02-30" }, ["requested_date"]],
    ["a time that is not HH:MM", { ...QUOTE, requested_time: "8:30" }, ["requested_time"]],
    ["a time past 23:59", { ...QUOTE, requested_time: "24:00" }, ["requested_time"]],
    ["zero engineers", { ...QUOTE, engineer_count: 0 }, ["engineer_count"]],
    ["51 engineers", { ...QUOTE, engineer_count: 51 }, ["engineer_count"]],
    ["a fractional engineer", { ...QUOTE, engineer_count: 1.5 }, ["engineer_count"]],
    ["engineers as words", { ...QUOTE, engineer_count: "two" }, ["engineer_count"]],
    ["zero hours", { ...QUOTE, estimated_hours: 0 }, ["estimated_hours"]],
    ["1001 hours", { ...QUOTE, estimated_hours: 1001 }, ["estimated_hours"]],
    ["out_of_hours as an unclear string", { ...QUOTE, out_of_hours: "maybe" }, ["out_of_hours"]],
    ["11 attachments", { ...QUOTE, attachments_optional: Array(11).fill("ref") }, [
      "attachments_optional",
    ]],
    ["an attachment that is not a string", { ...QUOTE, attachments_optional: [{ url: "x" }] }, [
      "attachments_optional.0",
    ]],
    ["an over-long attachment reference", { ...QUOTE, attachments_optional: ["r".repeat(2049)] }, [
      "attachments_optional.0",
    ]],
    ["a site address over 500 characters", { ...QUOTE, site_address: "s".repeat(501) }, [
      "site_address",
    ]],
    ["agent context over 4 KiB", { ...QUOTE, agent_context_optional: { x: "y".repeat(4096) } }, [
      "agent_context_optional",
    ]],
    ["several problems and an unknown service", {
      ...QUOTE,
      email: "nope",
      engineer_count: 99,
      service_type: "nope",
    }, ["email", "engineer_count", "service_type"]],
  ];
  for (const [name, body, paths] of cases) {
    await t.step(name, async () => {
      const res = await post(app, "/api/v1/quotes", body);
      assert.equal(res.status, 400);
      const json = await res.json();
      assert.equal(json.error, "validation_failed");
      assert.deepEqual(json.issues.map((i: { path: string }) => i.path), paths);
    });
  }
  assert.equal((await Array.fromAsync(app.kv.list({ prefix: ["submissions"] }))).length, 0);
  assert.equal((await Array.fromAsync(app.kv.list({ prefix: ["submission_payloads"] }))).length, 0);
});

Deno.test("POST /api/v1/quotes accepts the boundary values", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", {
    ...QUOTE,
    engineer_count: 50,
    estimated_hours: 1000,
    requested_time: "23:59",
    attachments_optional: Array(10).fill("r".repeat(2048)),
    description: "d".repeat(5000),
  });
  assert.equal(res.status, 202);
  await res.body?.cancel();
});

Deno.test("POST /api/v1/quotes: 415 for non-JSON, 413 over 64 KiB, idempotent replay and conflict", async (t) => {
  await using app = await createApp();
  await t.step("415", async () => {
    const res = await post(app, "/api/v1/quotes", "company=x", { "Content-Type": "text/plain" });
    assert.equal(res.status, 415);
    await res.body?.cancel();
  });
  await t.step("413", async () => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, description: "d".repeat(70_000) });
    assert.equal(res.status, 413);
    await res.body?.cancel();
  });
  await t.step("replay and conflict", async () => {
    const first = await (await post(app, "/api/v1/quotes", QUOTE, { "Idempotency-Key": "q-1" }))
      .json();
    const again = await post(app, "/api/v1/quotes", QUOTE, { "Idempotency-Key": "q-1" });
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(await again.json(), { ...first, replayed: true });
    const other = await post(app, "/api/v1/quotes", { ...QUOTE, engineer_count: 3 }, {
      "Idempotency-Key": "q-1",
    });
    assert.equal(other.status, 409);
    await other.body?.cancel();
  });
});

Deno.test("a quote for an ambiguous city records coverage as unknown, and a person confirms the city", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", { ...QUOTE, city: "San Jose" });
  const body = await res.json();
  assert.match(
    body.budget_estimate.note,
    /San Jose, US \(covered\).*a person will confirm the city/,
  );
  assert.doesNotMatch(body.budget_estimate.note, /outside published coverage/);
  assert.equal((await getSubmission(app.kv, body.request_id)).value?.covered, null);
  const us =
    await (await post(app, "/api/v1/quotes", { ...QUOTE, city: "San Jose", country: "US" })).json();
  assert.equal((await getSubmission(app.kv, us.request_id)).value?.covered, true);
});

Deno.test("POST /api/v1/quotes accepts 200-character short fields and refuses 201", async () => {
  await using app = await createApp();
  const ok = await post(app, "/api/v1/quotes", {
    ...QUOTE,
    company: "c".repeat(200),
    contact_name: "n".repeat(200),
  });
  assert.equal(ok.status, 202);
  await ok.body?.cancel();
  const bad = await post(app, "/api/v1/quotes", {
    ...QUOTE,
    company: "c".repeat(201),
    city: "y".repeat(201),
  });
  assert.equal(bad.status, 400);
  assert.deepEqual((await bad.json()).issues.map((i: { path: string }) => i.path), [
    "company",
    "city",
  ]);
});

Deno.test("the estimate's note warns of everything that makes the price less certain", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const note = async (body: Record<string, unknown>) => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, estimated_hours: 3, ...body });
    assert.equal(res.status, 202, await res.clone().text());
    return String((await res.json()).budget_estimate.note);
  };
  await t.step("hours below the service's minimum", async () => {
    assert.match(
      await note({ estimated_hours: 1 }),
      /estimated_hours 1 is below the 2 h minimum of Rack and stack: 2 h per engineer is billed/,
    );
  });
  await t.step("a time or a weekend outside business hours without out_of_hours", async () => {
    assert.match(
      await note({ requested_time: "22:00" }),
      /3 of 3 h per engineer are outside business hours \(before 08:00 and after 18:00 local time in Europe\/Berlin\): out-of-hours rates apply to them/,
    );
    assert.match(
      await note({ requested_date: "2026-11-28" }),
      /3 of 3 h per engineer are outside business hours \(2026-11-28 is a Saturday\)/,
    );
    assert.equal(await note({ requested_time: "22:00", out_of_hours: true }), "null");
    assert.match(
      await note({ requested_time: "22:00", out_of_hours: false }),
      /uses business-hours rates, as out_of_hours: false asks/,
    );
    assert.equal(await note({ requested_time: "09:30", requested_date: "2026-11-26" }), "null");
  });
  await t.step("an ambiguous city: stored, a person confirms, no need to resend", async () => {
    const text = await note({ city: "San Jose" });
    assert.match(
      text,
      /San Jose, US \(covered\); San José, CR-SJ \(not covered\); .*\. The request is stored/,
    );
    assert.match(text, /there is no need to send it again\.$/);
    assert.doesNotMatch(text, /Ask again/);
  });
  await t.step("a covered city that does not list the service", async () => {
    assert.match(
      await note({ city: "San Jose", country: "US", service_type: "data destruction" }),
      /Data destruction is not listed at San Jose, US: a person will confirm/,
    );
  });
});

Deno.test("a requested_date in the past is refused", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", { ...QUOTE, requested_date: "2020-01-01" });
  assert.equal(res.status, 400);
  assert.deepEqual((await res.json()).issues, [{
    path: "requested_date",
    message: "requested_date 2020-01-01 is in the past at the site: it is now 2026-11-22 " +
      "01:00 in Europe/Berlin",
  }]);
});

Deno.test("no silent defaults: engineers: 2 is read as engineer_count, never priced as 1", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const quote = async (body: Record<string, unknown>) => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, ...body });
    return { status: res.status, body: await res.json() };
  };
  await t.step("misnamed job fields are read as the fields they mean, and listed", async () => {
    const { status, body } = await quote({
      service_type: "remote-hands",
      engineers: 2,
      hours: 3,
      after_hours: true,
      date: "2026-12-05",
      time: "22:00",
    });
    assert.equal(status, 202, JSON.stringify(body));
    const e = body.budget_estimate;
    assert.equal(e.basis.engineers, 2);
    assert.equal(e.basis.hours, 3);
    assert.equal(e.basis.out_of_hours, true);
    assert.deepEqual(e.assumptions, [
      { field: "engineer_count", value: 2, why: "read from engineers" },
      { field: "estimated_hours", value: 3, why: "read from hours" },
      { field: "requested_date", value: "2026-12-05", why: "read from date" },
      { field: "requested_time", value: "22:00", why: "read from time" },
      {
        field: "work_days",
        value: 1,
        why: "hours per engineer, in days of at most 10 h: one shift of 3 h, 22:00 to 01:00 " +
          "local time on 2026-12-05",
      },
      { field: "out_of_hours", value: true, why: "read from after_hours" },
    ]);
    assert.deepEqual(body.ignored, [], "every synonym was read as its field");
    const record = (await getSubmission(app.kv, body.request_id)).value!;
    const stored = JSON.parse(await getSubmissionPayload(app.kv, record));
    assert.equal(stored.engineer_count, 2);
    assert.equal(stored.requested_date, "2026-12-05");
    assert.equal(stored.requested_time, "22:00");
    assert.equal(stored.engineers, undefined, "stored under the field's own name");
  });
  await t.step("a synonym that contradicts its field is refused, naming both", async () => {
    const { status, body } = await quote({ engineer_count: 1, engineers: 2 });
    assert.equal(status, 400);
    assert.deepEqual(body.issues, [{
      path: "engineers",
      message: "engineers is read as engineer_count, which is also given with another value; " +
        "send engineer_count only",
    }]);
  });
  await t.step("defaults the caller did not choose are listed as assumptions", async () => {
    const { body } = await quote({ service_type: "remote-hands" });
    assert.deepEqual(body.budget_estimate.assumptions.map((a: { field: string }) => a.field), [
      "engineer_count",
      "estimated_hours",
      "work_days",
      "out_of_hours",
    ]);
    assert.match(body.budget_estimate.assumptions[3].why, /^not given, and no requested_date/);
  });
});

Deno.test("a 22:00 Saturday job is priced out of hours, with the assumption listed", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", {
    ...QUOTE,
    city: "London",
    service_type: "remote-hands",
    requested_date: "2026-11-28",
    requested_time: "22:00",
  });
  assert.equal(res.status, 202);
  const e = (await res.json()).budget_estimate;
  assert.equal(e.basis.out_of_hours, true);
  const p = catalog().serviceById.get("remote-hands")!.pricing;
  assert.equal(e.low, p.hourly_rate * p.minimum_hours * p.out_of_hours_multiplier + p.call_out_fee);
  const inferred = e.assumptions.find((a: { field: string }) => a.field === "out_of_hours");
  assert.equal(inferred.value, true);
  assert.match(
    inferred.why,
    /^inferred: 1 of 1 h are outside business hours \(.*\): 2026-11-28 is a Saturday$/,
  );
  assert.match(inferred.why, /Europe\/London/);
});

Deno.test("a city that is a likely typo of a covered one is refused with the suggestion, nothing stored", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  for (const [path, body] of [["/api/v1/quotes", QUOTE], ["/api/v1/intake", LEAD]] as const) {
    await t.step(path, async () => {
      const res = await post(app, path, { ...body, city: "Londom" });
      assert.equal(res.status, 400);
      const { issues } = await res.json();
      assert.equal(issues[0].path, "city");
      assert.match(issues[0].message, /did you mean London \(country GB, covered\)\?/);
    });
  }
  await t.step("two neighbours swapped are one slip: Lodnon is London too", async () => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, city: "Lodnon" });
    assert.equal(res.status, 400);
    const { issues } = await res.json();
    assert.match(issues[0].message, /did you mean London \(country GB, covered\)\?/);
  });
  await t.step("nothing was stored", async () => {
    assert.deepEqual(await Array.fromAsync(app.kv.list({ prefix: ["submissions"] })), []);
  });
  await t.step("with another country, the name is taken as meant", async () => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, city: "Londom", country: "CA" });
    assert.equal(res.status, 202);
    assert.match((await res.json()).budget_estimate.note, /not one we know/);
  });
  await t.step("a covered city written naturally is never stored as outside coverage", async () => {
    for (const city of ["Ashburn VA", "San Jose, CA", "Frankfurt Germany"]) {
      const res = await post(app, "/api/v1/quotes", { ...QUOTE, city, country: undefined });
      assert.equal(res.status, 202, city);
      const body = await res.json();
      assert.doesNotMatch(String(body.budget_estimate.note), /outside published coverage/, city);
      assert.equal((await getSubmission(app.kv, body.request_id)).value!.covered, true, city);
    }
  });
});
