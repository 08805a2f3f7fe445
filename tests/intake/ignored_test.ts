/**
 * Nothing dropped or renamed silently (issue 39, point 1), over REST and MCP alike: a
 * submission names every property it kept unread (`ignored`, each with `did_you_mean`, and in
 * `next_step`), refuses one that probably means urgency or a price field, naming
 * `did_you_mean` as the estimate's refusal does; every synonym read as a field is listed in
 * the estimate's `assumptions`.
 */

import assert from "node:assert/strict";
import { EstimateInput } from "../../src/pricing/estimate.ts";
import { getSubmission, getSubmissionPayload } from "../../src/store/submissions.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { countSubmissions, createApp, mcpToolCall, post, type TestApp } from "../_helpers.ts";

type Body = Record<string, unknown>;
type Issue = { path: string; message: string; did_you_mean?: string | null };

/** The submission endpoints, as REST path and MCP tool, with a valid body each. */
const SUBMISSIONS = [
  { kind: "lead", path: "/api/v1/intake", tool: "submit_lead", body: LEAD as Body },
  { kind: "quote", path: "/api/v1/quotes", tool: "request_quote", body: QUOTE as Body },
] as const;

/** The answer of a submission over REST and over MCP, each sent with `body`. */
async function bothWays(app: TestApp, path: string, tool: string, body: Body) {
  // Another description each way: the same request again would be a replay of the first.
  const res = await post(app, path, { ...body, description: `${body.description} (REST)` });
  const rest = { status: res.status, ...await res.json() };
  const mcp = (await mcpToolCall(app, tool, { ...body, description: `${body.description} (MCP)` }))
    .structuredContent;
  return { rest, mcp };
}

/** The arguments stored for the submission `id`, as its payload keeps them. */
async function stored(app: TestApp, id: string): Promise<Body> {
  const record = (await getSubmission(app.kv, id)).value!;
  return JSON.parse(await getSubmissionPayload(app.kv, record));
}

/** Names that probably mean urgency: refused when urgency is not given. */
const URGENCY_NAMES: [string, unknown][] = [
  ["priority", "emergency"],
  ["Priority", "high"],
  ["urgent", true],
  ["is_urgent", "yes"],
  ["severity", "sev1"],
  ["priority_level", "P1"],
  ["emergency", true],
  ["isEmergency", true],
];

Deno.test("priority: 'emergency' is refused on a lead and a quote, over REST and MCP, naming urgency; nothing stored", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  for (const { kind, path, tool, body } of SUBMISSIONS) {
    for (const [name, value] of URGENCY_NAMES) {
      await t.step(`${kind}: ${name}`, async () => {
        const issue: Issue = {
          path: name,
          message: `${name} is not an argument here; did you mean urgency?`,
          did_you_mean: "urgency",
        };
        const { rest, mcp } = await bothWays(app, path, tool, { ...body, [name]: value });
        assert.equal(rest.status, 400);
        assert.equal(rest.error, "validation_failed");
        assert.deepEqual(rest.issues, [issue]);
        assert.equal(mcp.ok, false);
        assert.deepEqual(mcp.issues, [issue]);
      });
    }
  }
  assert.equal(await countSubmissions(app), 0, "no request stored as a normal one");
});

Deno.test("a property kept unread is named in ignored with the field it probably means, and in next_step, on both transports", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const extras = { phone_number: "+41 44 000 00 00", po_number: "PO-7", start: "Monday 9am" };
  await t.step(
    "a lead: phone_number means phone; a lead has no date, so start means nothing",
    async () => {
      const { rest, mcp } = await bothWays(app, "/api/v1/intake", "submit_lead", {
        ...LEAD,
        ...extras,
      });
      for (const answer of [rest, mcp]) {
        assert.equal(answer.ok, true, JSON.stringify(answer));
        assert.deepEqual(answer.ignored, [
          { property: "phone_number", did_you_mean: "phone" },
          { property: "po_number", did_you_mean: null },
          { property: "start", did_you_mean: null },
        ]);
        assert.match(
          answer.next_step,
          /\. Not read as fields, kept as sent for the reviewer: phone_number \(probably phone\), po_number, start\.$/,
        );
        const kept = await stored(app, answer.request_id);
        for (const [name, value] of Object.entries(extras)) assert.equal(kept[name], value);
      }
    },
  );
  await t.step(
    "a quote: beside the field it means, a name is kept and listed with it",
    async () => {
      const { rest, mcp } = await bothWays(app, "/api/v1/quotes", "request_quote", {
        ...QUOTE,
        urgency: "asap",
        priority: "P2",
        site_location: "Equinix ZH4, hall 2",
        po_number: "PO-7",
        start: "2026-12-01T09:00",
        requested_date: "2026-12-01",
        requested_time: "09:00",
        notes: "badge at the gate",
      });
      for (const answer of [rest, mcp]) {
        assert.equal(answer.ok, true, JSON.stringify(answer));
        assert.deepEqual(answer.ignored, [
          { property: "priority", did_you_mean: "urgency" },
          { property: "site_location", did_you_mean: "city" },
          { property: "po_number", did_you_mean: null },
          { property: "start", did_you_mean: "requested_date and requested_time" },
          { property: "notes", did_you_mean: null },
        ]);
        assert.match(
          answer.next_step,
          / Not read as fields, kept as sent for the reviewer: priority \(probably urgency\), site_location \(probably city\), po_number and 2 more, listed in ignored\.$/,
        );
        assert.equal((await stored(app, answer.request_id)).priority, "P2");
      }
    },
  );
  await t.step("one property: a field, in the singular", async () => {
    const { rest } = await bothWays(app, "/api/v1/intake", "submit_lead", { ...LEAD, ref: "x" });
    assert.match(rest.next_step, / Not read as a field, kept as sent for the reviewer: ref\.$/);
  });
  await t.step("none: ignored is empty and next_step says nothing of it", async () => {
    const { rest, mcp } = await bothWays(app, "/api/v1/quotes", "request_quote", QUOTE);
    for (const answer of [rest, mcp]) {
      assert.deepEqual(answer.ignored, []);
      assert.doesNotMatch(answer.next_step, /Not read/);
    }
  });
});

Deno.test("a lead keeps a price field's name with did_you_mean null: a lead has no such field", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const { rest, mcp } = await bothWays(app, "/api/v1/intake", "submit_lead", {
    ...LEAD,
    num_engineers: 2,
    people: 3,
  });
  for (const answer of [rest, mcp]) {
    assert.deepEqual(answer.ignored, [
      { property: "num_engineers", did_you_mean: null },
      { property: "people", did_you_mean: null },
    ]);
  }
});

Deno.test("people, crew and workers as a count are refused by a quote without engineer_count, as the estimate refuses them", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const { engineer_count: _, ...quote } = QUOTE;
  for (const name of ["people", "crew", "workers", "num_people"]) {
    const issue: Issue = {
      path: name,
      message: `${name} is not an argument here; did you mean engineer_count?`,
      did_you_mean: "engineer_count",
    };
    const { rest, mcp } = await bothWays(app, "/api/v1/quotes", "request_quote", {
      ...quote,
      [name]: 3,
    });
    assert.deepEqual(rest.issues, [issue]);
    assert.deepEqual(mcp.issues, [issue]);
    const job = { city: "Zurich", service_type: "rack-and-stack", [name]: 3 };
    const estimate = (await mcpToolCall(app, "estimate_quote", job)).structuredContent;
    assert.deepEqual(estimate.issues, [issue]);
  }
  assert.equal(await countSubmissions(app), 0);
});

Deno.test("the estimate refuses an unknown argument naming did_you_mean the same way, over REST and MCP", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const job = { city: "Zurich", service_type: "rack-and-stack" };
  // urgency is the estimate's argument once the estimate prices an emergency from now.
  const urgency = Object.hasOwn(EstimateInput.shape, "urgency") ? "urgency" : null;
  const CASES: [string, unknown, string | null][] = [
    ["num_engineers", 2, "engineer_count"],
    ["start", "2026-12-01T09:00", "requested_date and requested_time"],
    ["po_number", "PO-7", null],
    ["priority", "emergency", urgency],
  ];
  for (const [name, value, meant] of CASES) {
    await t.step(`${name} → ${meant}`, async () => {
      const message = meant
        ? `${name} is not an argument here; did you mean ${meant}?`
        : `${name} is not an argument here; remove it`;
      const issue: Issue = { path: name, message, did_you_mean: meant };
      const res = await app.request(
        `/api/v1/estimate?${new URLSearchParams({ ...job, [name]: String(value) })}`,
      );
      assert.equal(res.status, 400);
      assert.deepEqual((await res.json()).issues, [issue]);
      const tool = (await mcpToolCall(app, "estimate_quote", { ...job, [name]: value }))
        .structuredContent;
      assert.deepEqual(tool.issues, [issue]);
    });
  }
});

Deno.test("every synonym read as a field is listed in assumptions: the estimate and a quote, REST and MCP", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const job = {
    city: "Zurich",
    service_type: "rack-and-stack",
    technicians: 2,
    engineer_count: 2,
    duration_hours: 3,
    start_date: "2026-12-01",
    time: "10:00",
  };
  const expected = [
    { field: "engineer_count", value: 2, why: "also given as technicians, with the same value" },
    { field: "estimated_hours", value: 3, why: "read from duration_hours" },
    { field: "requested_date", value: "2026-12-01", why: "read from start_date" },
    { field: "requested_time", value: "10:00", why: "read from time" },
  ];
  const listed = (assumptions: { field: string; why: string }[]) =>
    assumptions.filter((a) => /^(read from|also given as) /.test(a.why));
  await t.step("GET /api/v1/estimate and estimate_quote", async () => {
    const query = new URLSearchParams(Object.entries(job).map(([k, v]) => [k, String(v)]));
    const rest = await (await app.request(`/api/v1/estimate?${query}`)).json();
    const mcp = (await mcpToolCall(app, "estimate_quote", job)).structuredContent as {
      budget_estimate: { assumptions: { field: string; why: string }[] };
    };
    assert.deepEqual(listed(rest.budget_estimate.assumptions), expected);
    assert.deepEqual(listed(mcp.budget_estimate.assumptions), expected);
  });
  await t.step("POST /api/v1/quotes and request_quote", async () => {
    const { engineer_count: _, estimated_hours: __, ...quote } = QUOTE;
    const { city: ___, service_type: ____, ...fields } = job;
    const { rest, mcp } = await bothWays(app, "/api/v1/quotes", "request_quote", {
      ...quote,
      ...fields,
    });
    for (const answer of [rest, mcp]) {
      assert.deepEqual(listed(answer.budget_estimate.assumptions), expected);
      assert.deepEqual(answer.ignored, [], "a synonym is read, not ignored");
    }
  });
});
