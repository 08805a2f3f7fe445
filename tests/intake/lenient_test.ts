/**
 * Forgiving input (src/intake/lenient.ts): what agents naturally send is read as they meant it,
 * over REST and MCP alike, while the advertised schemas stay strict.
 */
import assert from "node:assert/strict";
import { lenientArguments } from "../../src/intake/lenient.ts";
import { countryCode } from "../../src/catalog/regions.ts";
import { QUOTE } from "../_fixtures.ts";
import { createApp, mcpToolCall, post } from "../_helpers.ts";

Deno.test("countryCode reads English country names, common aliases and UK", () => {
  const cases: [string, string | undefined][] = [
    ["Germany", "DE"],
    ["united states", "US"],
    ["USA", "US"],
    ["U.S.A.", "US"],
    ["UK", "GB"],
    ["United Kingdom", "GB"],
    ["Switzerland", "CH"],
    ["Deutschland", "DE"],
    ["Österreich", "AT"],
    ["DE", undefined], // a code is the schema's to check
    ["Narnia", undefined],
  ];
  for (const [text, code] of cases) assert.equal(countryCode(text), code, text);
});

Deno.test("lenientArguments: null is left out, numeric and boolean strings are their values", () => {
  const fields = {
    optional: ["phone", "engineer_count"],
    numbers: ["engineer_count", "estimated_hours"],
    booleans: ["out_of_hours"],
    countries: ["country"],
  };
  assert.deepEqual(
    lenientArguments({
      phone: null,
      engineer_count: "2",
      estimated_hours: " 3.5 ",
      out_of_hours: "TRUE",
      country: "germany",
      email: null,
    }, fields),
    { engineer_count: 2, estimated_hours: 3.5, out_of_hours: true, country: "DE", email: null },
    "email is required, so its null stays for the schema to refuse",
  );
  // Every way JSON or a query string writes a number is read as one (the schema judges it).
  const numbers: [string, number][] = [
    ["1e-7", 1e-7],
    ["1E1", 10],
    [".5", 0.5],
    ["5.", 5],
    ["-1", -1],
    ["+2", 2],
    ["2.5e+2", 250],
  ];
  for (const [text, value] of numbers) {
    const read = lenientArguments({ estimated_hours: text }, fields) as Record<string, unknown>;
    assert.equal(read.estimated_hours, value, text);
  }
  for (const odd of ["two", "2 engineers", "", ".", "1e", "0x10", "Infinity", "1_000", "--1"]) {
    assert.equal(
      (lenientArguments({ engineer_count: odd }, fields) as { engineer_count: unknown })
        .engineer_count,
      odd,
    );
  }
});

Deno.test("a quote written as agents write it is understood: nulls, strings for numbers, a country name", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", {
    ...QUOTE,
    city: "San Jose",
    country: "United States",
    engineer_count: "2",
    estimated_hours: "3",
    out_of_hours: "true",
    phone: null,
    site_address: null,
    requested_date: null,
    attachments_optional: null,
    agent_context_optional: null,
  });
  assert.equal(res.status, 202, await res.clone().text());
  const { budget_estimate: e } = await res.json();
  assert.deepEqual(
    [e.basis.engineers, e.basis.hours, e.basis.out_of_hours],
    [2, 3, true],
  );
});

Deno.test("a type error says what was sent and what is wanted", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/quotes", {
    ...QUOTE,
    engineer_count: "two",
    out_of_hours: "maybe",
    city: 12,
  });
  const { issues } = await res.json();
  const byPath = Object.fromEntries(
    issues.map((i: { path: string; message: string }) => [i.path, i.message]),
  );
  assert.equal(
    byPath.engineer_count,
    'engineer_count must be a whole number such as 2; got the string "two"',
  );
  assert.equal(byPath.out_of_hours, 'out_of_hours must be true or false; got the string "maybe"');
  assert.equal(byPath.city, "city must be a string; got the number 12");
});

Deno.test("check_coverage names each key it does not take, and takes null or a name for country", async () => {
  await using app = await createApp();
  const call = async (args: unknown) =>
    (await mcpToolCall(app, "check_coverage", args)).structuredContent;
  const covered = async (args: unknown) =>
    ((await call(args)).coverage as { covered: boolean }).covered;
  const extra = await call({ city: "Frankfurt", service_type: "remote-hands", radius: 5 });
  assert.deepEqual(extra.issues, [
    {
      path: "service_type",
      message: "service_type is not an argument here; remove it",
      did_you_mean: null,
    },
    { path: "radius", message: "radius is not an argument here; remove it", did_you_mean: null },
  ]);
  assert.equal(await covered({ city: "Zurich", country: null }), true);
  assert.equal(await covered({ city: "Frankfurt", country: "Germany" }), true);
});
