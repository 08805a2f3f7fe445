/**
 * Lost answers (tests/_remote_store.ts `lostAnswer`): a commit is applied, its answer lost,
 * and Deno's KV Connect client sends it again; the caller sees the second send's result,
 * `ok: false`, its checks failing against its own writes. Every flow finds out that its
 * write landed: never a 500, never a second record. A request counted alone, with no write to
 * prove it, may be counted twice, never admitted past its limit.
 */

import assert from "node:assert/strict";
import { type RemoteStore, remoteStore } from "../_remote_store.ts";
import { createApp, outboxEntries, type TestApp } from "../_helpers.ts";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { lead, mcpCall, protectedRead, register, revoke, token } from "../_flows.ts";
import { rateCounterKey } from "../../src/store/keys.ts";
import { WINDOW_MS } from "../../src/http/rate_limit.ts";

async function farAway(): Promise<RemoteStore & AsyncDisposable> {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: 2 });
  return Object.assign(kv, { [Symbol.asyncDispose]: () => Promise.resolve(local.close()) });
}

/** What a counter holds now in the current window: requests (or places) counted. */
async function counted(app: TestApp, kv: RemoteStore, bucket: string, address: string) {
  const window = Math.floor(app.clock.now() / WINDOW_MS);
  return (await kv.local.get<number>(rateCounterKey(bucket, address, window))).value ?? 0;
}

/**
 * An app on `kv` whose store made its once-only writes (the email index's key, made by
 * the first submission), so that the next commit is the step's own.
 */
async function warmed(kv: RemoteStore, env: Record<string, string> = {}): Promise<TestApp> {
  const app = await createApp({ kv, env });
  await lead(app, "192.0.2.250", 0);
  return app;
}

/** Runs `step` with the next commit's answer lost; asserts that the fault fired. */
async function withLostAnswer<T>(kv: RemoteStore, step: () => Promise<T>): Promise<T> {
  const before = kv.stats.commit;
  kv.faults.lostAnswer(1);
  const out = await step();
  kv.faults.heal();
  assert.ok(kv.stats.commit > before, "the step committed");
  return out;
}

Deno.test("a registration whose answer was lost is a 201, its client usable, counted once", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv });
  const client = await withLostAnswer(kv, () => register(app, "198.51.100.1"));
  await protectedRead(app, await token(app, client, "198.51.100.2"));
  assert.equal(await counted(app, kv, "register", "198.51.100.1"), 1);
  assert.equal(await counted(app, kv, "register_all", "*"), 1);
  assert.equal(app.logs.filter((l) => l.level === "error").length, 0);
});

Deno.test("a token whose answer was lost is a 200, the token valid, counted once", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv });
  const client = await register(app, "198.51.100.1");
  const accessToken = await withLostAnswer(kv, () => token(app, client, "198.51.100.3"));
  await protectedRead(app, accessToken);
  // A second instance, which caches nothing, finds it too.
  await using other = await createApp({ kv });
  await protectedRead(other, accessToken);
  assert.equal(await counted(app, kv, "token", "198.51.100.3"), 1);
  // The client record this commit extended is known as it is now: the next token commits.
  await protectedRead(app, await token(app, client, "198.51.100.3"));
  assert.equal(await counted(app, kv, "token", "198.51.100.3"), 2);
});

Deno.test("a lead whose answer was lost is a 202, stored once, not a replay, counted once", async () => {
  await using kv = await farAway();
  await using app = await warmed(kv);
  const before = await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }));
  const res = await withLostAnswer(kv, () =>
    app.request("/api/v1/intake", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "lost-1" },
      body: JSON.stringify({ email: "ops@example.com", description: "lost answer" }),
      address: "198.51.100.4",
    }));
  assert.equal(res.status, 202);
  assert.equal(res.headers.get("idempotent-replayed"), null);
  const body = await res.json();
  assert.equal(body.replayed, false);
  const stored = await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }));
  assert.deepEqual(
    stored.map((e) => e.key[1]).sort(),
    [...before.map((e) => e.key[1]), body.request_id].sort(),
  );
  assert.equal((await outboxEntries(kv.local)).length, stored.length);
  assert.equal(await counted(app, kv, "submit", "198.51.100.4"), 1);
  assert.equal(await counted(app, kv, "submit_all", "*"), stored.length);
});

Deno.test("a submission over MCP whose answer was lost is stored once; the MCP limit counted once", async () => {
  await using kv = await farAway();
  await using app = await warmed(kv);
  const result = await withLostAnswer(
    kv,
    () => mcpCall(app, "198.51.100.5", "submit_lead", { email: "m@example.com", description: "x" }),
  );
  assert.equal(result.ok, true);
  assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }))).length, 2);
  assert.equal(await counted(app, kv, "mcp", "198.51.100.5"), 1);
  assert.equal(await counted(app, kv, "submit", "198.51.100.5"), 1);
});

Deno.test("SPEC §3: a revocation whose answer was lost is a 200 and the token is refused at once", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv });
  const client = await register(app, "198.51.100.1");
  const accessToken = await token(app, client, "198.51.100.1");
  await withLostAnswer(kv, () => revoke(app, client, accessToken, "198.51.100.6"));
  const res = await app.request("/api/v1/agent/services", {
    headers: { Authorization: `Bearer ${accessToken}` },
  });
  assert.equal(res.status, 401);
  await res.body?.cancel();
  // The token gone does not prove that this revocation removed it (another request's may
  // have: tests/http/rate_limit_hostile_test.ts), so the lost answer is counted again.
  assert.equal(await counted(app, kv, "revoke", "198.51.100.6"), 2);
});

Deno.test("a request counted alone (a 400) whose answer was lost is still a 400; it may be counted twice, never admitted past the limit", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv, env: { RATE_LIMIT_REGISTER: "2" } });
  const send = () =>
    app.request("/agent/identity", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"type":"robot"}',
      address: "198.51.100.7",
    });
  const res = await withLostAnswer(kv, send);
  assert.equal(res.status, 400);
  await res.body?.cancel();
  // Nothing but the counter tells whether a count alone landed: it is counted again, so the
  // lost answer costs its sender one place (docs/architecture.md, "Rate limits").
  assert.equal(await counted(app, kv, "register", "198.51.100.7"), 2);
  const next = await send();
  assert.equal(next.status, 429);
  await next.body?.cancel();
  assert.equal(await counted(app, kv, "register", "198.51.100.7"), 2);
});

Deno.test("a registration whose answer was lost takes one place of the global cap: the cap holds exactly", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv, env: { RATE_LIMIT_REGISTER_GLOBAL: "3" } });
  await withLostAnswer(kv, () => register(app, "198.51.100.10"));
  await register(app, "198.51.100.11");
  await register(app, "198.51.100.12");
  const res = await app.request("/agent/identity", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"type":"anonymous"}',
    address: "198.51.100.13",
  });
  assert.equal(res.status, 429);
  await res.body?.cancel();
  assert.equal(await counted(app, kv, "register_all", "*"), 3);
  assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["clients"] }))).length, 3);
});

Deno.test("with every rate limit off, the writes' own proofs find them: registration, token, lead", async () => {
  await using kv = await farAway();
  await using app = await warmed(kv, RATE_LIMITS_OFF);
  const client = await withLostAnswer(kv, () => register(app, "198.51.100.20"));
  const accessToken = await withLostAnswer(kv, () => token(app, client, "198.51.100.20"));
  await protectedRead(app, accessToken);
  await withLostAnswer(kv, () => lead(app, "198.51.100.20", 1));
  assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }))).length, 2);
  await withLostAnswer(kv, () => revoke(app, client, accessToken, "198.51.100.20"));
  assert.equal(app.logs.filter((l) => l.level === "error").length, 0);
});
