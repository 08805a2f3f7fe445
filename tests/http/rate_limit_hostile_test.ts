/**
 * The rate limiter attacked (docs/architecture.md, "Rate limits"): bursts through instances
 * that race each other over a far-away store, with lost answers, a stale replica and a commit
 * that hangs. First what broke (each fixed in the commit that added its test), then what
 * held. Counts, not times.
 */

import assert from "node:assert/strict";
import { type RemoteStore, remoteStore } from "../_remote_store.ts";
import {
  createApp,
  FakeClock,
  mcpPost,
  mcpResult,
  mcpToolRequest,
  revokeRequest,
  type TestApp,
} from "../_helpers.ts";
import { LEAD } from "../_fixtures.ts";
import { register, token } from "../_flows.ts";
import { rateCounterKey } from "../../src/store/keys.ts";
import { Store } from "../../src/store/store.ts";
import { WINDOW_MS } from "../../src/http/rate_limit.ts";

async function farAway(): Promise<RemoteStore & AsyncDisposable> {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: 2 });
  return Object.assign(kv, { [Symbol.asyncDispose]: () => Promise.resolve(local.close()) });
}

const tally = (outcomes: (number | string)[]) =>
  outcomes.reduce<Record<string, number>>((t, s) => (t[s] = (t[s] ?? 0) + 1, t), {});

function registration(app: TestApp, address: string): Promise<Response> {
  return app.request("/agent/identity", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"type":"anonymous"}',
    address,
  });
}

/** A counter as the store holds it (behind the far-away store's latency and faults). */
async function counted(app: TestApp, kv: Deno.Kv, bucket: string, address: string) {
  const window = Math.floor(app.clock.now() / WINDOW_MS);
  const store = (kv as Partial<RemoteStore>).local ?? kv;
  return (await store.get<number>(rateCounterKey(bucket, address, window))).value ?? 0;
}

Deno.test("two instances revoking one token at once from one address admit at most the limit", async () => {
  await using kv = await farAway();
  const env = { RATE_LIMIT_REVOKE: "3" };
  await using a = await createApp({ kv, env });
  await using b = await createApp({ kv, env, clock: a.clock });
  const client = await register(a, "192.0.2.1");
  const accessToken = await token(a, client, "192.0.2.1");
  const statuses = await Promise.all(
    Array.from(
      { length: 30 },
      (_, i) =>
        revokeRequest(i % 2 ? a : b, client, accessToken, "198.51.100.40").then(async (r) => (
          await r.body?.cancel(), r.status
        )),
    ),
  );
  assert.deepEqual(tally(statuses), { 200: 3, 429: 27 });
  assert.equal(await counted(a, kv, "revoke", "198.51.100.40"), 3);
});

Deno.test("a global cap refusing from memory answers the same 429 as its first refusal", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_REGISTER_GLOBAL: "1" } });
  const answers = [];
  for (const address of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) {
    const res = await registration(app, address);
    const { status, headers } = res;
    answers.push([
      status,
      headers.get("ratelimit-policy"),
      headers.get("ratelimit"),
      await res.text(),
    ]);
  }
  assert.equal(answers[0]![0], 201);
  assert.deepEqual(answers[1]!.slice(0, 3), [
    429,
    `"register_all";q=1;w=60`,
    `"register_all";r=0;t=60`,
  ]);
  assert.deepEqual(answers[2], answers[1], "the refusal from memory");
});

/** A replica that has seen nothing: every eventual read finds every key absent. */
function staleReplica(kv: Deno.Kv): Deno.Kv {
  const absent = (key: Deno.KvKey) => ({ key, value: null, versionstamp: null });
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return (key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) =>
          o?.consistency === "eventual" ? Promise.resolve(absent(key)) : target.get(key, o);
      }
      if (prop === "getMany") {
        return (keys: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) =>
          o?.consistency === "eventual"
            ? Promise.resolve(keys.map(absent))
            : target.getMany(keys, o);
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("a submission sent again once the global cap is full is replayed, not refused, on an instance whose replica is stale", async () => {
  await using kv = await farAway();
  const env = { RATE_LIMIT_SUBMIT_GLOBAL: "1" };
  await using first = await createApp({ kv, env });
  await using stale = await createApp({ kv: staleReplica(kv), env, clock: first.clock });
  const send = (app: TestApp, key?: string, body: object = LEAD) =>
    app.request("/api/v1/intake", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...key ? { "Idempotency-Key": key } : {} },
      body: JSON.stringify(body),
      address: "198.51.100.70",
    });
  const stored = await send(first, "full-1");
  assert.equal(stored.status, 202);
  const id = (await stored.json()).request_id;
  for (const attempt of [1, 2]) {
    const again = await send(stale, "full-1");
    assert.equal(again.status, 202, `attempt ${attempt}: ${await again.clone().text()}`);
    assert.deepEqual([(await again.json()).request_id, again.headers.get("idempotent-replayed")], [
      id,
      "true",
    ]);
    // Answered as a replay found at once is: with the caller's own budget, not the cap's.
    assert.match(again.headers.get("ratelimit-policy")!, /^"submit";/);
  }
  // A new submission (another body: the same one would be replayed, whatever its key).
  const other = await send(stale, "full-2", { ...LEAD, description: "Other work" });
  assert.equal(other.status, 429);
  await other.body?.cancel();
  assert.equal(await counted(first, kv, "submit_all", "*"), 1);
});

// What held.

/** A response's status, its body dropped. */
const statusOf = (res: Promise<Response>) =>
  res.then(async (r) => (await r.body?.cancel(), r.status));

Deno.test("a commit that hangs while holding a counter's chain: the queue behind it gets 503, and the address is served once the store answers", async () => {
  await using kv = await farAway();
  const store = new Store(kv, { deadlineMs: 300, probeAfterMs: 200 });
  await using app = await createApp({ kv: store, env: { RATE_LIMIT_REGISTER: "20" } });
  const address = "198.51.100.41";
  assert.equal(await statusOf(registration(app, address)), 201); // the counter known: the next commit is all
  kv.faults.hang(1);
  const statuses = await Promise.all(
    Array.from({ length: 8 }, () => statusOf(registration(app, address))),
  );
  assert.deepEqual(tally(statuses), { 503: 8 });
  kv.faults.heal(); // the hung commit lands now, unanswered
  for (let i = 0; i < 100 && !store.breakerClosed; i++) {
    await statusOf(registration(app, "192.0.2.99")); // drives the probe
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(store.breakerClosed);
  assert.equal(await statusOf(registration(app, address)), 201);
  assert.equal(await counted(app, kv, "register", address), 3);
});

/** What an MCP submit_lead call came to: admitted, refused by which limit, or else. */
async function mcpLead(app: TestApp, address: string, n: number): Promise<string> {
  const res = await mcpToolRequest(
    app,
    "submit_lead",
    { ...LEAD, description: `lead ${n}` },
    address,
  );
  const text = await res.text();
  if (res.status !== 200) return `${res.status} ${JSON.parse(text).error}`;
  const result = mcpResult(text);
  if (!result.isError) return "stored";
  const { error, message } = result.structuredContent as { error: string; message: string };
  return error === "rate_limited"
    ? `${error} ${/all callers/.test(message) ? "*" : "address"}`
    : error;
}

Deno.test("MCP submissions from three addresses through three instances, answers lost: every counter holds, every stored lead counted", async () => {
  await using kv = await farAway();
  const env = { RATE_LIMIT_MCP: "6", RATE_LIMIT_SUBMIT: "4", RATE_LIMIT_SUBMIT_GLOBAL: "7" };
  const clock = new FakeClock();
  await using a = await createApp({ kv, env, clock });
  await using b = await createApp({ kv, env, clock });
  await using c = await createApp({ kv, env, clock });
  const apps = [a, b, c];
  const addresses = ["198.51.100.50", "198.51.100.51", "198.51.100.52"];
  kv.faults.lostAnswer(4);
  const outcomes = await Promise.all(
    Array.from({ length: 36 }, (_, i) => mcpLead(apps[i % 3]!, addresses[(i >> 2) % 3]!, i)),
  );
  kv.faults.heal();
  const stored = outcomes.filter((o) => o === "stored").length;
  assert.equal(stored, 7, JSON.stringify(tally(outcomes)));
  assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }))).length, 7);
  assert.ok(await counted(a, kv, "submit_all", "*") >= 7);
  assert.ok(await counted(a, kv, "submit_all", "*") <= 7 + 4);
  for (const address of addresses) {
    const mcp = await counted(a, kv, "mcp", address);
    const submit = await counted(a, kv, "submit", address);
    assert.ok(mcp <= 6 + 4 && submit <= 4 + 4, `${address}: mcp ${mcp}, submit ${submit}`);
  }
  // Per address: at most 6 MCP calls admitted, of which at most 4 reached the submit limit.
  const byAddress = addresses.map((_, k) => outcomes.filter((_, i) => (i >> 2) % 3 === k));
  for (const mine of byAddress) {
    assert.ok(mine.filter((o) => !o.startsWith("429")).length <= 6, JSON.stringify(mine));
    assert.ok(mine.filter((o) => o === "stored" || o === "rate_limited *").length <= 4);
  }
});

Deno.test("one Idempotency-Key sent 12 times at once through two instances: one lead stored, one place of the global cap, every request counted", async () => {
  await using kv = await farAway();
  const env = { RATE_LIMIT_SUBMIT: "12", RATE_LIMIT_SUBMIT_GLOBAL: "3" };
  await using a = await createApp({ kv, env });
  await using b = await createApp({ kv, env, clock: a.clock });
  const address = "198.51.100.60";
  const send = (app: TestApp) =>
    app.request("/api/v1/intake", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "race-1" },
      body: JSON.stringify(LEAD),
      address,
    }).then(async (r) => [r.status, (await r.json()).request_id]);
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => send(i % 2 ? a : b)));
  assert.deepEqual(
    new Set(answers.map(([status]) => status)),
    new Set([202]),
    JSON.stringify(answers),
  );
  assert.equal(new Set(answers.map(([, id]) => id)).size, 1);
  assert.equal((await Array.fromAsync(kv.local.list({ prefix: ["submissions"] }))).length, 1);
  assert.equal(await counted(a, kv, "submit_all", "*"), 1);
  assert.equal(await counted(a, kv, "submit", address), 12);
});

const MODERN_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "hostile", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

Deno.test("MCP calls of both protocol eras at once, from 20 addresses, each run with their own context: every one admitted at a limit of one", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_MCP: "1", RATE_LIMIT_SUBMIT: "1" } });
  const call = async (i: number) => {
    const modern = i % 2 === 0;
    const params = {
      name: "submit_lead",
      arguments: { ...LEAD, description: `from ${i}` },
      ...modern ? { _meta: MODERN_ENVELOPE } : {},
    };
    const headers: Record<string, string> = modern
      ? {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "submit_lead",
      }
      : { "MCP-Protocol-Version": "2025-11-25" };
    const res = await mcpPost(
      app,
      { jsonrpc: "2.0", id: i, method: "tools/call", params },
      headers,
      `198.51.100.${100 + i}`,
    );
    return [res.status, mcpResult(await res.text()).structuredContent.ok];
  };
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i)));
  assert.deepEqual(answers, Array.from({ length: 20 }, () => [200, true]));
  for (let i = 0; i < 20; i++) {
    assert.equal(await counted(app, app.kv, "submit", `198.51.100.${100 + i}`), 1);
  }
});

Deno.test("one commit of a counter in flight per instance: 30 registrations at once from one address, 30 commits and no read-back", async () => {
  await using kv = await farAway();
  await using app = await createApp({ kv, env: { RATE_LIMIT_REGISTER: "30" } });
  kv.mark();
  const statuses = await Promise.all(
    Array.from({ length: 30 }, () => statusOf(registration(app, "198.51.100.80"))),
  );
  assert.deepEqual(tally(statuses), { 201: 30 });
  const { commit, getMany, eventual } = kv.sinceMark();
  assert.deepEqual({ commit, strongReads: getMany - eventual }, { commit: 30, strongReads: 0 });
});
