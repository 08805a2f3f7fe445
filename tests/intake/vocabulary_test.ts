/**
 * One vocabulary (issue 39, point 7): a submission's answer, the status read, the staff
 * console, the review CLI, the tool schemas and the docs say a state in the same words:
 * `status: "pending"` until a person decides, and `next_step` for what happens next. Over
 * REST and MCP, and for an answer stored in the older words and replayed.
 */

import assert from "node:assert/strict";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp, mcpToolCall, post, reviewCli, type TestApp } from "../_helpers.ts";
import { signedIn } from "../staff/_staff.ts";
import { pageText } from "../staff/_review.ts";

/** A submission through each transport: its answer. */
const SUBMISSIONS: [string, (app: TestApp) => Promise<Record<string, unknown>>][] = [
  ["POST /api/v1/intake", async (app) => await (await post(app, "/api/v1/intake", LEAD)).json()],
  ["POST /api/v1/quotes", async (app) => await (await post(app, "/api/v1/quotes", QUOTE)).json()],
  ["submit_lead", async (app) => (await mcpToolCall(app, "submit_lead", LEAD)).structuredContent],
  [
    "request_quote",
    async (app) => (await mcpToolCall(app, "request_quote", QUOTE)).structuredContent,
  ],
];

Deno.test("a submission's answer says its state in the status read's words, over REST and MCP", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  for (const [how, submit] of SUBMISSIONS) {
    await t.step(how, async () => {
      app.clock.advance(1_000);
      const answer = await submit(app);
      const id = String(answer.request_id);
      const read = await (await app.request(`/api/v1/requests/${id}`)).json();
      const tool = (await mcpToolCall(app, "get_request_status", { request_id: id }))
        .structuredContent;
      assert.equal(answer.status, "pending");
      assert.equal(read.status, answer.status);
      assert.equal(tool.status, answer.status);
      assert.equal(typeof answer.next_step, "string");
      assert.equal(typeof read.next_step, "string");
      assert.ok(!("next_steps" in answer), "no second word for the same field");

      const queue = await pageText(app, sam, STAFF_PATHS.queue);
      const row = queue.slice(queue.indexOf(`data-request-id="${id}"`)).split("</tr>")[0]!;
      assert.match(row, /<span class="badge status-pending">pending<\/span>/);
      const listed = JSON.parse((await reviewCli(app, "list", "--json")).out) as {
        request_id: string;
        status: string;
      }[];
      assert.equal(listed.find((r) => r.request_id === id)?.status, answer.status);
    });
  }
});

Deno.test("the tool schemas and the docs use one word per state and field", async (t) => {
  await using app = await createApp();
  const d = await (await app.request("/.well-known/mcp.json")).json();
  const output = (name: string) =>
    d.tools.find((tool: { name: string }) => tool.name === name).output_schema.properties;
  const states = output("get_request_status").status.enum as string[];
  await t.step("every status a submission answers is one the status read knows", () => {
    for (const name of ["submit_lead", "request_quote"]) {
      assert.ok(states.includes(output(name).status.const), name);
      assert.ok("next_step" in output(name) && !("next_steps" in output(name)), name);
    }
    assert.deepEqual(states, ["pending", "approved", "rejected"]);
    assert.ok("next_step" in output("get_request_status"));
  });
  await t.step("docs/api.md, docs/mcp.md and /llms.txt say them, and no other", async () => {
    const llms = await (await app.request("/llms.txt")).text();
    assert.match(llms, /`status` is `pending` until a person decides.*`next_step`/);
    for (const file of ["docs/api.md", "docs/mcp.md", "README.md"]) {
      const text = await Deno.readTextFile(new URL(`../../${file}`, import.meta.url));
      assert.doesNotMatch(text, /pending_review|next_steps/, file);
    }
    assert.doesNotMatch(llms, /pending_review|next_steps/);
    const api = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
    assert.match(api, /"status": "pending",/);
    assert.match(api, /"next_step": "A member of our team/);
  });
});
