/**
 * Nothing priced silently (issue 26, point 3): an argument that probably means a price field
 * is refused by request_quote exactly as estimate_quote refuses it, over REST and MCP, with
 * the same message naming the field meant; any other unknown argument stays an additional
 * property of a quote or a lead.
 */

import assert from "node:assert/strict";
import { getSubmission, getSubmissionPayload } from "../../src/store/submissions.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { countSubmissions, createApp, mcpToolCall, post, type TestApp } from "../_helpers.ts";

/** A misnamed argument, its value, and the field(s) the refusal names. */
const MISNAMED: [string, unknown, string][] = [
  ["num_engineers", 2, "engineer_count"],
  ["engineers_needed", 2, "engineer_count"],
  ["numEngineers", 2, "engineer_count"],
  ["NumberOfTechs", 2, "engineer_count"],
  ["duration", 3, "estimated_hours"],
  ["hours_needed", 3, "estimated_hours"],
  ["total_time", 3, "estimated_hours"],
  ["service", "rack-and-stack", "service_type"],
  ["servicetype", "rack-and-stack", "service_type"],
  ["start", "2026-12-01T19:00", "requested_date and requested_time"],
  ["location", "Zurich", "city"],
  ["site_city", "Zurich", "city"],
  ["country_code", "CH", "country"],
  ["ooh", true, "out_of_hours"],
  ["enginer_count", 2, "engineer_count"],
  // Two neighbours swapped are one slip (edit_distance.ts), not two as in Levenshtein.
  ["enigneer", 2, "engineer_count"],
  ["enigneer_count", 2, "engineer_count"],
  ["estimated_huors", 3, "estimated_hours"],
];

type Issue = { path: string; message: string };

/** The issue at `path` of a refused REST answer or tool result (`undefined` if accepted). */
function issueAt(body: { ok: boolean; issues?: Issue[] }, path: string): string | undefined {
  return body.ok ? undefined : body.issues?.find((i) => i.path === path)?.message;
}

async function viaRestQuote(app: TestApp, args: object) {
  const res = await post(app, "/api/v1/quotes", args);
  return { status: res.status, body: await res.json() };
}

async function viaTool(app: TestApp, tool: string, args: object) {
  return (await mcpToolCall(app, tool, args)).structuredContent as {
    ok: boolean;
    issues?: Issue[];
  };
}

/** The arguments stored for the submission `id`, as its payload keeps them. */
async function storedArguments(app: TestApp, id: string): Promise<Record<string, unknown>> {
  const record = (await getSubmission(app.kv, id)).value;
  assert.ok(record, `submission ${id} is stored`);
  return JSON.parse(await getSubmissionPayload(app.kv, record));
}

async function viaRestEstimate(app: TestApp, args: Record<string, unknown>) {
  const query = new URLSearchParams(
    Object.entries(args).map(([k, v]) => [k, String(v)]),
  );
  const res = await app.request(`/api/v1/estimate?${query}`);
  return { status: res.status, body: await res.json() };
}

Deno.test("request_quote refuses an argument that probably means a price field exactly as estimate_quote does, naming the field, over REST and MCP", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const { engineer_count: _, estimated_hours: __, ...withoutHours } = QUOTE;
  const job = { city: "Zurich", service_type: "Rack and stack" };
  for (const [name, value, meant] of MISNAMED) {
    await t.step(`${name} → ${meant}`, async () => {
      const message = `${name} is not an argument here; did you mean ${meant}?`;
      // Without the field meant: beside it, the name is kept (see the test below).
      const quote = Object.fromEntries(
        Object.entries(withoutHours).filter(([field]) => !meant.split(" and ").includes(field)),
      );
      const rest = await viaRestQuote(app, { ...quote, [name]: value });
      assert.equal(rest.status, 400);
      assert.equal(rest.body.error, "validation_failed");
      assert.equal(issueAt(rest.body, name), message);
      const tool = await viaTool(app, "request_quote", { ...quote, [name]: value });
      assert.equal(issueAt(tool, name), message);
      const estimate = await viaTool(app, "estimate_quote", { ...job, [name]: value });
      assert.equal(issueAt(estimate, name), message);
      const get = await viaRestEstimate(app, { ...job, [name]: value });
      assert.equal(get.status, 400);
      assert.equal(issueAt(get.body, name), message);
    });
  }
  assert.equal(await countSubmissions(app), 0, "nothing was stored or priced with a default");
});

Deno.test("other unknown arguments stay additional properties of a quote and a lead, and synonyms are still read", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const kept = {
    notes: "cage 12",
    duration_notes: "may overrun",
    engineer_type: "senior",
    location_details: "row C",
    day: "Tuesday",
    people: "Alex and Sam",
    county: "Loudoun",
  };
  const { engineer_count: _, ...rest } = QUOTE;
  const quote = await viaRestQuote(app, { ...rest, ...kept, engineers: 3 });
  assert.equal(quote.status, 202, JSON.stringify(quote.body));
  assert.equal(
    quote.body.budget_estimate.basis.engineers,
    3,
    "engineers is read as engineer_count",
  );
  const lead = await viaTool(app, "submit_lead", { ...LEAD, ...kept, num_engineers: 2 });
  assert.equal(lead.ok, true, "a lead has no price: num_engineers stays an additional property");
  for (
    const id of [quote.body.request_id, (lead as unknown as { request_id: string }).request_id]
  ) {
    const stored = await storedArguments(app, id);
    for (const [name, value] of Object.entries(kept)) assert.equal(stored[name], value);
  }
});

Deno.test("beside the field it means, a misnamed name is kept by a quote, unless it is another number or yes-or-no", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const kept = {
    preferred_engineer: "Jan de Vries",
    site_location: "Equinix ZH4, hall 2",
    work_hours: "09:00-17:00",
    num_engineers: 2,
    duration: "3 h",
  };
  const quote = await viaRestQuote(app, { ...QUOTE, ...kept });
  assert.equal(quote.status, 202, JSON.stringify(quote.body));
  assert.equal(quote.body.budget_estimate.basis.engineers, 2);
  const stored = await storedArguments(app, quote.body.request_id);
  for (const [name, value] of Object.entries(kept)) assert.equal(stored[name], value);
  const CLASHES: [string, string, string][] = [
    ["num_engineers", "3", "engineer_count"],
    ["ooh", "yes", "out_of_hours"],
  ];
  for (const [name, value, field] of CLASHES) {
    const args = { ...QUOTE, out_of_hours: false, [name]: value };
    const message = `${name} probably means ${field}, which is also given with another value; ` +
      `send ${field} only`;
    const rest = await viaRestQuote(app, args);
    assert.equal(rest.status, 400);
    assert.equal(issueAt(rest.body, name), message);
    assert.equal(issueAt(await viaTool(app, "request_quote", args), name), message);
  }
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("an unknown argument near no field is refused with 'remove it' on estimate_quote and check_coverage, a near one with its field", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const estimate = await viaTool(app, "estimate_quote", {
    city: "Zurich",
    service_type: "Rack and stack",
    company: "Example GmbH",
  });
  assert.equal(issueAt(estimate, "company"), "company is not an argument here; remove it");
  const coverage = await viaTool(app, "check_coverage", { location: "Zurich" });
  assert.equal(
    issueAt(coverage, "location"),
    "location is not an argument here; did you mean city?",
  );
});
