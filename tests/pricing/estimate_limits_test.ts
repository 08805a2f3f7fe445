/**
 * An estimate costs what it is worth: a query or a tool call bigger than the largest useful
 * estimate is refused before any other work, with a 400 (or tool error) that states the
 * limit and is not counted; every estimate, REST and MCP together, counts against the
 * address's own RATE_LIMIT_ESTIMATE.
 */
import assert from "node:assert/strict";
import { QUERY_LIMITS } from "../../src/http/query.ts";
import { createApp, listen, mcpToolCall, type Requester } from "../_helpers.ts";

const JOB = { city: "Frankfurt", service_type: "remote-hands", engineer_count: "2" };

/** A query of `job` followed by `extra` parameters `x0=1&x1=1…`. */
function query(job: Record<string, string>, extra = 0): string {
  const q = new URLSearchParams(job);
  for (let i = 0; i < extra; i++) q.append(`x${i}`, "1");
  return `/api/v1/estimate?${q}`;
}

/** estimate_quote from `address`: the tool's result. */
function toolCall(app: Requester, args: unknown, address?: string) {
  return mcpToolCall(app, "estimate_quote", args, address);
}

/**
 * The largest estimate the fields allow, every character percent-encoded at its longest:
 * `city` 200 Hangul letters (9 bytes each), `service_type` a name padded to 200 characters
 * with ideographic spaces (trimmed), `country` padded so to 60, and the rest at their
 * longest. `unknown` adds that many 64-character names the estimate does not take.
 */
function largest(unknown = 0): Record<string, string> {
  const pad = (s: string, n: number) => s + "\u3000".repeat(n - s.length);
  const job: Record<string, string> = {
    city: "\uac00".repeat(200),
    country: pad("DE", 60),
    service_type: pad("remote hands", 200),
    engineer_count: "50",
    estimated_hours: "999.5",
    out_of_hours: "false",
    requested_date: "2026-12-05",
    requested_time: "22:00",
  };
  for (let i = 0; i < unknown; i++) job[`${i}`.padStart(64, "n")] = "1";
  return job;
}

Deno.test("GET /api/v1/estimate refuses a query over 32 parameters or 8 KiB before any work, uncounted", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_ESTIMATE: "1" } });
  await t.step(
    "the largest estimate the fields allow is within the limits and priced",
    async () => {
      const path = query(largest());
      assert.ok(path.length - path.indexOf("?") - 1 > 4_000, "it is big: non-ASCII, encoded");
      const res = await app.request(path, { address: "192.0.2.10" });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal((await res.json()).coverage.match, "unknown");
    },
  );
  await t.step("with 16 unknown 64-character names beside it, the 400 lists them", async () => {
    const path = query(largest(16));
    assert.ok(path.length - path.indexOf("?") - 1 <= QUERY_LIMITS.bytes);
    const res = await app.request(path, { address: "192.0.2.11" });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error, "validation_failed");
    assert.equal(body.issues.filter((i: { path: string }) => i.path.startsWith("n")).length, 16);
  });
  await t.step("33 parameters: 400 invalid_query stating the limit and the fields", async () => {
    const res = await app.request(query(JOB, 30), { address: "192.0.2.12" });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("ratelimit"), null, "not counted");
    const body = await res.json();
    assert.equal(body.error, "invalid_query");
    assert.match(body.message, /more than 32 parameters/);
    assert.match(body.message, /reads city, service_type, country, requested_date/);
    assert.deepEqual(body.issues.map((i: { path: string }) => i.path), ["(query)"]);
  });
  await t.step("32 parameters pass the bound (and are refused as unknown names)", async () => {
    const res = await app.request(query(JOB, 29), { address: "192.0.2.13" });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "validation_failed");
  });
  await t.step(
    "empty pieces between & are no parameters, as URLSearchParams reads them",
    async () => {
      const res = await app.request(`${query(JOB)}${"&".repeat(100)}`, { address: "192.0.2.14" });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    },
  );
  await t.step("8 KiB and one byte: 400 invalid_query stating the size", async () => {
    const base = query(JOB);
    const q = base.slice(base.indexOf("?") + 1);
    const padded = `${base}&note=${
      "z".repeat(QUERY_LIMITS.bytes - q.length - "&note=".length + 1)
    }`;
    const res = await app.request(padded, { address: "192.0.2.15" });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error, "invalid_query");
    assert.match(body.message, /is 8193 bytes; at most 8192 are read/);
  });
  await t.step("a flood of refusals from one address spends none of its estimates", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await app.request(query(JOB, 5_500), { address: "192.0.2.16" });
      assert.equal(res.status, 400);
      await res.body?.cancel();
    }
    const res = await app.request(query(JOB), { address: "192.0.2.16" });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

Deno.test("estimate_quote refuses more than 32 argument names before the tool runs, uncounted", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_ESTIMATE: "1" } });
  const args: Record<string, unknown> = { ...JOB };
  for (let i = 0; i < 5_000; i++) args[`x${i}`] = 1;
  const refused = await toolCall(app, args);
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent.error, "validation_failed");
  assert.match(String(refused.structuredContent.message), /^estimate_quote takes at most 32/);
  const priced = await toolCall(app, JOB);
  assert.equal(priced.isError, undefined, JSON.stringify(priced.structuredContent));
  assert.equal(priced.structuredContent.ok, true);
});

Deno.test("RATE_LIMIT_ESTIMATE counts REST and MCP estimates of one address together, failures too", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_ESTIMATE: "3" } });
  const from = "192.0.2.20";
  await t.step("two estimates and a refused one spend the three", async () => {
    const rest = await app.request(query(JOB), { address: from });
    assert.equal(rest.status, 200);
    assert.match(rest.headers.get("ratelimit") ?? "", /^"estimate";r=2;t=\d+$/);
    await rest.body?.cancel();
    assert.equal((await toolCall(app, JOB, from)).structuredContent.ok, true);
    const invalid = await app.request(query({ city: "Frankfurt" }), { address: from });
    assert.equal(invalid.status, 400);
    await invalid.body?.cancel();
  });
  await t.step("the fourth is 429 with Retry-After and the RateLimit fields", async () => {
    const res = await app.request(query(JOB), { address: from });
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
    assert.match(res.headers.get("ratelimit-policy") ?? "", /^"estimate";q=3;w=60$/);
    assert.match(res.headers.get("ratelimit") ?? "", /^"estimate";r=0;t=\d+$/);
    const body = await res.json();
    assert.equal(body.error, "rate_limited");
    assert.match(body.message, /at most 3 per minute from one address/);
  });
  await t.step("estimate_quote from that address is refused too, with retry_after_s", async () => {
    const r = await toolCall(app, JOB, from);
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.error, "rate_limited");
    assert.ok(Number(r.structuredContent.retry_after_s) >= 1);
  });
  await t.step("another address has its own, and the next minute a new one", async () => {
    const other = await app.request(query(JOB), { address: "192.0.2.21" });
    assert.equal(other.status, 200);
    await other.body?.cancel();
    app.clock.advance(60_000);
    const again = await app.request(query(JOB), { address: from });
    assert.equal(again.status, 200);
    await again.body?.cancel();
  });
});

Deno.test("over a real port: a 5,500-parameter estimate is 400 invalid_query, the limit a 429", async () => {
  await using service = await listen({ env: { RATE_LIMIT_ESTIMATE: "1" } });
  const flood = await fetch(`${service.baseUrl}${query(JOB, 5_500)}`);
  assert.equal(flood.status, 400);
  assert.equal((await flood.json()).error, "invalid_query");
  const first = await fetch(`${service.baseUrl}${query(JOB)}`);
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const second = await fetch(`${service.baseUrl}${query(JOB)}`);
  assert.equal(second.status, 429);
  assert.ok(second.headers.get("retry-after"));
  await second.body?.cancel();
});
