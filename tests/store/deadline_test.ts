/**
 * Every store call under a deadline, and the breaker behind it (src/store/deadline.ts, as
 * `Store` applies them): on the far-away test store with its faults, alone, under group
 * commit, and through the handler (REST, OAuth, MCP, a real port). Timings are only generous bounds: a deadline
 * never fires early, and "at once" is checked by what the store saw, not by the clock.
 */

import assert from "node:assert/strict";
import { HttpError } from "../../src/http/errors.ts";
import {
  type DeadlineOptions,
  isStoreUnavailable,
  PROBE_AFTER_MS,
  STORE_DEADLINE_MS,
  STORE_UNAVAILABLE,
} from "../../src/store/deadline.ts";
import { PIPELINE } from "../../src/store/group_commit.ts";
import { openStore } from "../../src/store/open.ts";
import { Store } from "../../src/store/store.ts";
import { type RemoteStore, remoteStore } from "../_remote_store.ts";
import {
  createApp,
  issueToken,
  listen,
  mcpPost,
  mcpToolCall,
  post,
  registerClient,
  tokenRequest,
} from "../_helpers.ts";
import { LEAD, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { filesUnder, memberCalls } from "../_source.ts";

/** Short timings, so a test waits a fraction of a second per missed deadline. */
const SHORT: DeadlineOptions = { deadlineMs: 300, probeAfterMs: 200 };

async function remote(): Promise<RemoteStore & Disposable> {
  const local = await Deno.openKv(":memory:");
  return Object.assign(remoteStore(local, { latencyMs: 2 }), {
    [Symbol.dispose]: () => local.close(),
  }) as RemoteStore & Disposable;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function unavailable(call: Promise<unknown>): Promise<HttpError> {
  try {
    await call;
  } catch (err) {
    assert.ok(isStoreUnavailable(err), String(err));
    return err as HttpError;
  }
  assert.fail("the call answered");
}

Deno.test("deadline: a call that answers in time is untouched; one that hangs fails with 503 after it", async () => {
  using store = await remote();
  const kv = new Store(store, SHORT);
  await kv.set(["a"], 1);
  assert.equal((await kv.get(["a"])).value, 1);
  store.faults.hang(1);
  const started = performance.now();
  const err = await unavailable(kv.get(["a"]));
  const ms = performance.now() - started;
  assert.ok(ms >= 290 && ms < 10_000, `failed after ${ms} ms`);
  assert.equal(err.status, 503);
  assert.equal(err.code, STORE_UNAVAILABLE);
  assert.equal(err.headers.get("retry-after"), "2");
  assert.equal(kv.breakerClosed, false, "the miss opened the breaker");
  store.faults.heal();
});

Deno.test("deadline: while the breaker is open calls fail at once, without reaching the store", async () => {
  using store = await remote();
  const kv = new Store(store, { deadlineMs: 200, probeAfterMs: 60_000 });
  store.faults.hang(1);
  await unavailable(kv.get(["a"]));
  store.faults.heal();
  const sent = { ...store.stats };
  for (const call of [kv.get(["a"]), kv.set(["b"], 1), kv.atomic().set(["c"], 1).commit()]) {
    await unavailable(call);
  }
  await unavailable(Array.fromAsync(kv.list({ prefix: [] })));
  assert.equal(store.stats.get + store.stats.commit + store.stats.list, sent.get + sent.commit);
  assert.equal((await store.local.get(["b"])).value, null, "nothing was sent");
});

Deno.test("deadline: one probe at a time closes the breaker once the store answers again", async () => {
  using store = await remote();
  const kv = new Store(store, SHORT);
  store.faults.hang(1);
  await unavailable(kv.get(["a"]));
  // Still down: the probe misses too, and the breaker stays open.
  store.faults.hang();
  await sleep(SHORT.probeAfterMs!);
  const before = store.stats.get;
  await Promise.all(Array.from({ length: 20 }, () => unavailable(kv.get(["a"]))));
  assert.equal(store.stats.get - before, 1, "twenty calls, one probe");
  await sleep(SHORT.deadlineMs! + 50);
  assert.equal(kv.breakerClosed, false);
  // Back: the next probe closes it, and calls reach the store again.
  store.faults.heal();
  await sleep(SHORT.probeAfterMs!);
  await unavailable(kv.get(["a"])); // fails at once, and sends the probe
  for (let i = 0; i < 100 && !kv.breakerClosed; i++) await sleep(10);
  assert.equal(kv.breakerClosed, true);
  assert.ok((await kv.set(["a"], 1)).ok);
});

Deno.test("deadline: each page of a list has its own deadline", async () => {
  using store = await remote();
  const op = store.local.atomic();
  for (let i = 0; i < 150; i++) op.set(["p", i], i);
  await op.commit();
  const kv = new Store(store, SHORT);
  const iter = kv.list({ prefix: ["p"] }); // pages of 100
  const seen: unknown[] = [];
  const err = await (async () => {
    try {
      for await (const e of iter) {
        seen.push(e.value);
        if (seen.length === 100) store.faults.hang(1);
      }
    } catch (err) {
      return err;
    }
  })();
  assert.ok(isStoreUnavailable(err));
  assert.equal(seen.length, 100);
  store.faults.heal();
});

Deno.test("deadline: the handler keeps the Store it is given, so its notifier and requests share one breaker", async () => {
  using store = await remote();
  const kv = new Store(store, { deadlineMs: 200, probeAfterMs: 60_000 });
  await using app = await createApp({ kv, env: RATE_LIMITS_OFF });
  store.faults.hang(1);
  await unavailable(kv.get(["a"])); // a call outside the handler opens the breaker...
  store.faults.heal();
  const sent = store.stats.get + store.stats.commit;
  const res = await post(app, "/api/v1/intake", LEAD); // ...and the handler's call fails at once
  assert.equal(res.status, 503);
  await res.body?.cancel();
  assert.equal(store.stats.get + store.stats.commit, sent, "nothing reached the store");
  const opened = await openStore(":memory:");
  try {
    assert.ok(opened instanceof Store, "openStore opens a Store");
    assert.equal(opened.local, true);
  } finally {
    opened.close();
  }
  assert.equal(STORE_DEADLINE_MS, 2_500);
  assert.ok(PROBE_AFTER_MS < STORE_DEADLINE_MS);
});

Deno.test("group commit: a hung commit frees its place in the pipeline; its group is not retried member by member", async () => {
  using store = await remote();
  const kv = new Store(store, { ...SHORT, local: true }); // PIPELINE groups in flight
  store.faults.hang(PIPELINE);
  const writes = Array.from(
    { length: PIPELINE + 5 },
    (_, i) => kv.atomic().set(["w", i], i).commit(),
  );
  for (const w of writes) await unavailable(w);
  assert.equal(store.stats.commit, PIPELINE, "the groups queued behind were refused, not sent");
  store.faults.heal();
  await sleep(SHORT.probeAfterMs!);
  await unavailable(kv.atomic().set(["x"], 1).commit()); // sends the probe
  for (let i = 0; i < 100 && !kv.breakerClosed; i++) await sleep(10);
  // Later writes go through: nothing holds the pipeline.
  const later = await Promise.all(
    Array.from({ length: 10 }, (_, i) => kv.atomic().set(["later", i], i).commit()),
  );
  assert.ok(later.every((r) => r.ok));
});

Deno.test("through the handler: a store that does not answer is a 503 with Retry-After in each route's style, never a 500", async () => {
  using store = await remote();
  await using app = await createApp({ kv: new Store(store, SHORT) });
  const client = await registerClient(app, "services:read");
  const token = await issueToken(app, client, "services:read");
  store.faults.hang();
  const checks: [string, () => Promise<Response>][] = [
    ["token", () => tokenRequest(app, client, { grant_type: "client_credentials" })],
    [
      "protected read",
      () =>
        app.request("/api/v1/agent/services", { headers: { Authorization: `Bearer ${token}` } }),
    ],
    ["intake", () => post(app, "/api/v1/intake", LEAD)],
    ["status", () => app.request("/api/v1/requests/lead_01JBX9F3R6T6Z3D9A8B7C6D5E4")],
    ["readyz", () => app.request("/readyz")],
  ];
  for (const [name, call] of checks) {
    const res = await call();
    assert.equal(res.status, 503, name);
    assert.ok(Number(res.headers.get("retry-after")) >= 1, `${name}: Retry-After`);
    const body = await res.json();
    if (name === "token") assert.equal(body.error, STORE_UNAVAILABLE);
    else if (name === "readyz") assert.deepEqual(body, { ready: false });
    else assert.deepEqual([body.ok, body.error], [false, STORE_UNAVAILABLE], name);
  }
  // MCP: its rate limit counts in the store, so the request itself is the 503.
  const mcp = await mcpPost(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, {
    "MCP-Protocol-Version": "2025-11-25",
  });
  assert.equal(mcp.status, 503);
  assert.equal((await mcp.json()).error, STORE_UNAVAILABLE);
  assert.deepEqual(app.logs.filter((l) => l.level === "error"), [], "nothing logged as a 500");
  store.faults.heal();
});

Deno.test("through MCP: a tool that needs the store returns the 503 as a tool error with retry_after_s", async () => {
  using store = await remote();
  await using app = await createApp({ kv: new Store(store, SHORT), env: RATE_LIMITS_OFF });
  store.faults.hang();
  const tool = await mcpToolCall(app, "get_request_status", {
    request_id: "lead_01JBX9F3R6T6Z3D9A8B7C6D5E4",
  });
  assert.equal(tool.isError, true);
  assert.equal(tool.structuredContent.error, STORE_UNAVAILABLE);
  assert.equal(tool.structuredContent.retry_after_s, 2);
  assert.deepEqual(app.logs.filter((l) => l.level === "error"), []);
  store.faults.heal();
});

Deno.test("through a real port, with the shipped deadline: a hung store answers 503 after 2.5 s, not never", async () => {
  using store = await remote();
  await using app = await listen({ kv: store });
  store.faults.hang();
  const started = performance.now();
  const res = await fetch(`${app.baseUrl}/api/v1/intake`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(LEAD),
  });
  const ms = performance.now() - started;
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), "2");
  assert.equal((await res.json()).error, STORE_UNAVAILABLE);
  assert.ok(ms >= STORE_DEADLINE_MS - 50 && ms < 30_000, `answered after ${ms} ms`);
  store.faults.heal();
});

Deno.test("every store the service uses is a Store: only openStore opens one, and only src/store/ calls it", () => {
  const kvCall = /(^|\.)kv\.(get|getMany|list|atomic|set|delete|enqueue|watch|listenQueue)$/;
  const calls = filesUnder("src").filter((f) => f.endsWith(".ts")).flatMap((f) => memberCalls(f));
  assert.deepEqual(
    calls.filter((c) => c.callee === "Deno.openKv").map((c) => c.file),
    ["src/store/open.ts"],
  );
  assert.match(
    Deno.readTextFileSync("src/store/open.ts"),
    /const kv = await retryLocked\(\(\) => Deno\.openKv\(path\)\);\n\s+return new Store\(kv, /,
  );
  // Outside the store layer nothing calls a store: every call is a store module's, on the
  // store handed in: a Store (store.ts), openStore's or the one createHandler wraps.
  assert.deepEqual(
    calls.filter((c) => kvCall.test(c.callee) && !c.file.startsWith("src/store/"))
      .map((c) => `${c.file}:${c.line} ${c.callee}`),
    [],
  );
  assert.match(
    Deno.readTextFileSync("src/app.ts"),
    /const kv = deps\.kv instanceof Store\s+\? deps\.kv\s+: new Store\(deps\.kv, /,
  );
});
