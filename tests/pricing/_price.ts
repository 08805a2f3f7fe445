/**
 * @module
 * A job priced through every surface that prices: GET /api/v1/estimate, the estimate_quote
 * and request_quote tools, POST /api/v1/quotes and the home page's quote form (as its script
 * posts it). Each answer must carry the same budget estimate (or the same refusal), which is
 * returned.
 */

import assert from "node:assert/strict";
import type { BudgetEstimate } from "../../src/pricing/budget.ts";
import { catalog, mcpToolCall, post, type TestApp } from "../_helpers.ts";

const CONTACT = {
  company: "Example BV",
  contact_name: "Sam Example",
  email: "sam@example.com",
};

let _sent = 0;

/** The estimate of `job` on every surface, checked to be the same everywhere. */
export async function priceEverywhere(
  app: TestApp,
  job: Record<string, unknown>,
): Promise<BudgetEstimate> {
  const rest = await app.request(`/api/v1/estimate?${_query(job)}`);
  const body = await rest.json();
  assert.equal(rest.status, 200, JSON.stringify(body));
  const estimate = body.budget_estimate as BudgetEstimate;
  const tool = await mcpToolCall(app, "estimate_quote", job);
  assert.deepEqual(tool.structuredContent.budget_estimate, estimate, "estimate_quote");
  // A description of its own: the same request sent again would be answered by its replay.
  const quote = { ...CONTACT, ...job, description: `Job ${++_sent}` };
  const stored = await mcpToolCall(app, "request_quote", quote);
  assert.deepEqual(stored.structuredContent.budget_estimate, estimate, "request_quote");
  const res = await post(app, "/api/v1/quotes", quote);
  assert.equal(res.status, 202);
  assert.deepEqual((await res.json()).budget_estimate, estimate, "POST /api/v1/quotes");
  const form = await post(app, "/forms/quote", { ...quote, description: `Job ${++_sent}` });
  assert.equal(form.status, 202);
  assert.deepEqual((await form.json()).budget_estimate, estimate, "POST /forms/quote");
  return estimate;
}

/** The issues `job` is refused with, checked to be the same on every surface. */
export async function refusedEverywhere(
  app: TestApp,
  job: Record<string, unknown>,
): Promise<{ path: string; message: string }[]> {
  const rest = await app.request(`/api/v1/estimate?${_query(job)}`);
  assert.equal(rest.status, 400);
  const { issues } = await rest.json();
  for (
    const [name, args] of [["estimate_quote", job], ["request_quote", {
      ...CONTACT,
      ...job,
      description: "Job",
    }]] as const
  ) {
    const r = await mcpToolCall(app, name, args);
    assert.equal(r.isError, true, name);
    assert.deepEqual(r.structuredContent.issues, issues, name);
  }
  for (const path of ["/api/v1/quotes", "/forms/quote"]) {
    const res = await post(app, path, { ...CONTACT, ...job, description: "Job" });
    assert.equal(res.status, 400);
    assert.deepEqual((await res.json()).issues, issues, `POST ${path}`);
  }
  return issues;
}

/** The assumption made for `field`, if any. */
export function assumed(e: BudgetEstimate, field: string) {
  return e.assumptions.find((a) => a.field === field);
}

function _query(job: Record<string, unknown>): URLSearchParams {
  return new URLSearchParams(Object.entries(job).map(([k, v]) => [k, String(v)]));
}

/**
 * [low, high] of a rack and stack estimate without a date surcharge: `engineers` × (`inside`
 * business hours + `outside` out-of-hours hours at the multiplier), the call-out fee, and up
 * to 25 % contingency on the labour.
 */
export function rackAndStackRange(engineers: number, inside: number, outside: number): number[] {
  const p = catalog().serviceById.get("rack-and-stack")!.pricing;
  const labour = p.hourly_rate * engineers * (inside + outside * p.out_of_hours_multiplier);
  return [labour + p.call_out_fee, labour * 1.25 + p.call_out_fee];
}
