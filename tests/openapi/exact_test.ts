/**
 * @module
 * The points where a Schemathesis run (4.25, every check) found the OpenAPI document and
 * the service apart, each through REST and, where the field is an MCP tool's too, MCP.
 */

import assert from "node:assert/strict";
import { createApp, mcpToolCall } from "../_helpers.ts";

Deno.test("a number in any form JSON writes is read as a number: 1e-7, .5, 1E1 (REST and MCP)", async (t) => {
  await using app = await createApp();
  const cases: [string, number][] = [["1e-7", 1], [".5", 1], ["1E1", 10], ["2.5e0", 2.5]];
  await t.step("GET /api/v1/estimate", async () => {
    for (const [sent, hours] of cases) {
      const res = await app.request(
        `/api/v1/estimate?city=Zurich&service_type=remote-hands&estimated_hours=${sent}`,
      );
      assert.equal(res.status, 200, sent);
      assert.equal((await res.json()).budget_estimate.basis.hours, hours, sent);
    }
  });
  await t.step("estimate_quote", async () => {
    for (const [sent, hours] of cases) {
      const { structuredContent } = await mcpToolCall(app, "estimate_quote", {
        city: "Zurich",
        service_type: "remote-hands",
        estimated_hours: sent,
      });
      const estimate = structuredContent.budget_estimate as { basis: { hours: number } };
      assert.equal(estimate.basis.hours, hours, sent);
    }
  });
});
