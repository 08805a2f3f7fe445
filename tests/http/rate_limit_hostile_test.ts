/**
 * The rate limiter attacked (docs/architecture.md, "Rate limits"): bursts across instances
 * that race each other over a far-away store. Counts, not times.
 */

import assert from "node:assert/strict";
import { type RemoteStore, remoteStore } from "../_remote_store.ts";
import { createApp, revokeRequest, type TestApp } from "../_helpers.ts";
import { LEAD } from "../_fixtures.ts";
import { register, token } from "../_flows.ts";
import { rateCounterKey } from "../../src/store/keys.ts";
import { WINDOW_MS } from "../../src/http/rate_limit.ts";

async function farAway(): Promise<RemoteStore & AsyncDisposable> {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: 2 });
  return Object.assign(kv, { [Symbol.asyncDispose]: () => Promise.resolve(local.close()) });
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => (t[s] = (t[s] ?? 0) + 1, t), {});

function registration(app: TestApp, address: string): Promise<Response> {
  return app.request("/agent/identity", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"type":"anonymous"}',
    address,
  });
}

async function counted(app: TestApp, kv: RemoteStore, bucket: string, address: string) {
  const window = Math.floor(app.clock.now() / WINDOW_MS);
  return (await kv.local.get<number>(rateCounterKey(bucket, address, window))).value ?? 0;
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
  const send = (app: TestApp, key?: string) =>
    app.request("/api/v1/intake", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...key ? { "Idempotency-Key": key } : {} },
      body: JSON.stringify(LEAD),
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
  const other = await send(stale, "full-2"); // a new submission: the cap is full
  assert.equal(other.status, 429);
  await other.body?.cancel();
  assert.equal(await counted(first, kv, "submit_all", "*"), 1);
});
