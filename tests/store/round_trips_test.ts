/**
 * Sequential store round trips per flow, counted by the far-away test store
 * (tests/_remote_store.ts): operations made in parallel count once. Counts, not times. Each
 * request comes from an address of its own unless said otherwise, so every flow pays for
 * reading its rate counter; the client record and the token are cached only where a step
 * says so. Which reads may be eventual is asserted too: rate counters and idempotency
 * records, never the revocation marker, a token or a client record.
 */

import assert from "node:assert/strict";
import { type RemoteOp, type RemoteStore, remoteStore } from "../_remote_store.ts";
import { createApp, type TestApp, uncoveredPlaces } from "../_helpers.ts";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import {
  catalogRead,
  coverageRead,
  ESTIMATE,
  estimateRead,
  lead,
  mcpCall,
  protectedRead,
  quote,
  register,
  revoke,
  token,
} from "../_flows.ts";

/** Latency of a strong operation: small, the counts do not depend on it. */
const LATENCY_MS = 3;

async function farAway(): Promise<RemoteStore & AsyncDisposable> {
  const local = await Deno.openKv(":memory:");
  const kv = remoteStore(local, { latencyMs: LATENCY_MS });
  return Object.assign(kv, { [Symbol.asyncDispose]: () => Promise.resolve(local.close()) });
}

/** The round trips `step` waits for, and the operations it made. */
async function measured(kv: RemoteStore, step: () => Promise<unknown>) {
  kv.mark();
  await step();
  return { trips: kv.trips(), ops: [...kv.log] };
}

/** Operations as `kind~wave` (`~` for an eventual read), for a readable failure. */
const shown = (ops: readonly RemoteOp[]) => ops.map((o) => `${o.kind}${o.eventual ? "~" : ""}`);

let n = 0;
const address = () => `198.51.100.${++n % 250}`;

/** Fills the per-store start-up reads (the email index's key) so flows are measured alone. */
async function warmed(kv: RemoteStore, env: Record<string, string> = {}): Promise<TestApp> {
  const app = await createApp({ kv, env });
  await lead(app, "192.0.2.250", 0);
  return app;
}

Deno.test("round trips per flow with rate limits on: two at most, one for a warm protected read", async (t) => {
  await using kv = await farAway();
  await using app = await warmed(kv);
  let client = await register(app, address());
  let accessToken = "";

  const flows: [string, () => Promise<unknown>, number, string[]][] = [
    // The counters (per address and the global budget) read together, then the commit.
    ["registration", async () => client = await register(app, address()), 2, [
      "getMany~",
      "commit",
    ]],
    // The client record was cached by its registration on this instance.
    ["token", async () => accessToken = await token(app, client, address()), 2, [
      "getMany~",
      "commit",
    ]],
    // The first read of a token on an instance that has not read the marker yet: the marker,
    // then the token, then its client (strong, each needs the one before).
    ["protected read, cold", () => protectedRead(app, accessToken), 3, ["get", "get", "get"]],
    ["protected read, warm", () => protectedRead(app, accessToken), 1, ["get"]],
    ["revocation", () => revoke(app, client, accessToken, address()), 2, ["getMany~", "commit"]],
    // The same request's idempotency record beside the counters, then the commit.
    ["lead", () => lead(app, address(), 1), 2, ["getMany~", "getMany~", "commit"]],
    ["quote", () => quote(app, address(), 2), 2, ["getMany~", "getMany~", "commit"]],
    [
      "MCP submit_lead",
      () => mcpCall(app, address(), "submit_lead", { email: "m@example.com", description: "x" }),
      2,
      ["getMany~", "getMany~", "commit"],
    ],
    // With a key, its record and the same request's are one read.
    [
      "MCP submit_lead with an idempotency_key",
      () =>
        mcpCall(app, address(), "submit_lead", {
          email: "k@example.com",
          description: "x",
          idempotency_key: "trips-1",
        }),
      2,
      ["getMany~", "getMany~", "commit"],
    ],
    ["MCP estimate_quote", () => mcpCall(app, address(), "estimate_quote", ESTIMATE), 2, [
      "getMany~",
      "commit",
    ]],
    // The estimate's own counter, as an MCP call's: read, then counted alone.
    ["REST estimate", () => estimateRead(app, address()), 2, ["getMany~", "commit"]],
    ["public catalog", () => catalogRead(app), 0, []],
    // A place outside coverage is counted in memory: the read makes no store call.
    ["coverage read outside coverage", () => coverageRead(app, "Reykjavik"), 0, []],
    ["REST estimate outside coverage", () => estimateRead(app, address(), "Perth"), 2, [
      "getMany~",
      "commit",
    ]],
  ];
  for (const [name, step, expected, ops] of flows) {
    await t.step(`${name}: ${expected}`, async () => {
      const m = await measured(kv, step);
      assert.deepEqual({ trips: m.trips, ops: shown(m.ops) }, { trips: expected, ops });
    });
  }
});

Deno.test("round trips when this instance counted the address last, or has the records cached", async (t) => {
  await using kv = await farAway();
  await using app = await warmed(kv);
  const from = address();
  const client = await register(app, from);
  await t.step("a second registration from the address: the commit alone", async () => {
    const m = await measured(kv, () => register(app, from));
    assert.deepEqual(shown(m.ops), ["commit"]);
  });
  await t.step("tokens from one address: the commit alone", async () => {
    await token(app, client, from);
    const m = await measured(kv, () => token(app, client, from));
    assert.deepEqual(shown(m.ops), ["commit"]);
  });
  await t.step(
    "another instance on the same store: the client record and the counter",
    async () => {
      await using other = await createApp({ kv });
      const m = await measured(kv, () => token(other, client, address()));
      assert.equal(m.trips, 2);
      assert.deepEqual(shown(m.ops).sort(), ["commit", "get", "getMany~"]);
    },
  );
});

Deno.test("round trips with every rate limit off: a commit alone where nothing else is read", async (t) => {
  await using kv = await farAway();
  await using app = await warmed(kv, RATE_LIMITS_OFF);
  const client = await register(app, address());
  await t.step("registration: 1", async () => {
    assert.equal((await measured(kv, () => register(app, address()))).trips, 1);
  });
  await t.step("token, client cached: 1", async () => {
    assert.equal((await measured(kv, () => token(app, client, address()))).trips, 1);
  });
  await t.step("lead: the idempotency record, then the commit: 2", async () => {
    const m = await measured(kv, () => lead(app, address(), 3));
    assert.deepEqual({ trips: m.trips, ops: shown(m.ops) }, {
      trips: 2,
      ops: ["getMany~", "commit"],
    });
  });
  await t.step(
    "a replay of a keyed lead without its key: the records, then the key's (strong), which keeps the answer: 2",
    async () => {
      const args = { email: "r@example.com", description: "replayed", idempotency_key: "r-1" };
      const from = address();
      await mcpCall(app, from, "submit_lead", args);
      const { idempotency_key: _, ...keyless } = args;
      const m = await measured(kv, () => mcpCall(app, from, "submit_lead", keyless));
      assert.deepEqual({ trips: m.trips, ops: shown(m.ops) }, {
        trips: 2,
        ops: ["getMany~", "get"],
      });
    },
  );
});

Deno.test("MCP 2026-07-28 (a JSON answer, not a stream): the same round trips, counted in the tool's commit", async (t) => {
  await using kv = await farAway();
  await using app = await warmed(kv);
  const call = (name: string, args: unknown) =>
    app.request("/api/v1/mcp", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name,
          arguments: args,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "trips", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
      address: "198.51.100.200",
    }).then(async (res) => {
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal((await res.json()).result.isError, undefined);
    });
  await t.step("submit_lead: the reads, then one commit with both counts", async () => {
    const m = await measured(
      kv,
      () => call("submit_lead", { email: "j@example.com", description: "x" }),
    );
    assert.deepEqual({ trips: m.trips, ops: shown(m.ops) }, {
      trips: 2,
      ops: ["getMany~", "getMany~", "commit"],
    });
  });
  await t.step(
    "list_services from the same address: the count alone, its counter known",
    async () => {
      const m = await measured(kv, () => call("list_services", {}));
      assert.deepEqual(shown(m.ops), ["commit"]);
    },
  );
});

Deno.test("a demand flush: ten place-days a commit, each read eventually first, one after the other", async (t) => {
  await using kv = await farAway();
  await using app = await createApp({ kv });
  for (const [places, commits] of [[1, 1], [10, 1], [25, 3]] as const) {
    await t.step(`${places} place-days: ${commits} reads and ${commits} commits`, async () => {
      for (const q of uncoveredPlaces(places)) await coverageRead(app, q.city, q.country);
      app.clock.advance(24 * 60 * 60 * 1000); // a new day: new keys, as many as places
      const m = await measured(kv, () => app.handler.demand.flush());
      const ops = Array.from({ length: commits }, () => ["getMany~", "commit"]).flat();
      assert.deepEqual({ trips: m.trips, ops: shown(m.ops) }, { trips: 2 * commits, ops });
    });
  }
  await t.step("nothing pending: no store call", async () => {
    assert.deepEqual(shown((await measured(kv, () => app.handler.demand.flush())).ops), []);
  });
});
