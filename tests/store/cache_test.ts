/**
 * Exact cached token and client checks (src/store/cache.ts), through the public
 * handler: two handlers on one store stand for two instances. A store that counts its
 * reads shows what was served from the cache and what was read again.
 */

import assert from "node:assert/strict";
import { createHandler } from "../../src/app.ts";
import { disableClient } from "../../src/store/credentials.ts";
import { revocationKey } from "../../src/store/keys.ts";
import { ClockCache, createStoreCache } from "../../src/store/cache.ts";
import {
  bearerGet,
  catalog,
  createApp,
  FakeClock,
  issueToken,
  registerClient,
  type Requester,
  revokeRequest,
  tokenRequest,
} from "../_helpers.ts";
import { loadConfig } from "../../src/config.ts";

/** A store that counts `get`s by the key's first part. */
function countingStore(kv: Deno.Kv) {
  const gets = new Map<string, number>();
  const store = new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return (key: Deno.KvKey, ...rest: unknown[]) => {
          gets.set(String(key[0]), (gets.get(String(key[0])) ?? 0) + 1);
          return (target.get as (...a: unknown[]) => unknown)(key, ...rest);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const count = (prefix: string) => gets.get(prefix) ?? 0;
  return { store, count, reset: () => gets.clear() };
}

/** A second instance on the same store and clock. */
function instance(kv: Deno.Kv, clock: FakeClock): Requester {
  const handler = createHandler({
    kv,
    config: loadConfig({ BASE_URL: "https://api.test" }),
    catalog: catalog(),
    now: clock.now,
    log: () => {},
  });
  return {
    request: async (path, init = {}) =>
      await handler(new Request(new URL(path, "https://api.test"), init), {
        remoteAddr: { transport: "tcp", hostname: "192.0.2.9", port: 40000 },
        completed: Promise.resolve(),
      }),
  };
}

const READ = "/api/v1/agent/services";

Deno.test("store cache: a Bearer check reads the marker, and the token only once", async () => {
  const raw = await Deno.openKv(":memory:");
  const counting = countingStore(raw);
  await using app = await createApp({ kv: counting.store });
  const client = await registerClient(app);
  const first = await issueToken(app, client);
  counting.reset();
  for (let i = 0; i < 3; i++) assert.equal((await bearerGet(app, READ, first)).status, 200);
  // Every read checks the marker; the token is read once, then served from the cache.
  assert.equal(counting.count("revocations"), 3);
  assert.equal(counting.count("tokens"), 1);

  // Once the marker has been read, issuance caches the record it wrote.
  const second = await issueToken(app, client);
  counting.reset();
  for (let i = 0; i < 3; i++) assert.equal((await bearerGet(app, READ, second)).status, 200);
  assert.equal(counting.count("tokens"), 0);
  raw.close();
});

Deno.test("store cache: concurrent checks share one marker read", async () => {
  const raw = await Deno.openKv(":memory:");
  const counting = countingStore(raw);
  await using app = await createApp({ kv: counting.store });
  const token = await issueToken(app, await registerClient(app));
  counting.reset();
  const statuses = await Promise.all(
    Array.from({ length: 20 }, async () => (await bearerGet(app, READ, token)).status),
  );
  assert.ok(statuses.every((s) => s === 200));
  // Requests that arrive together share a read; one that arrives while a read is in
  // flight waits for the next. Far fewer than one read each.
  assert.ok(counting.count("revocations") <= 2, `${counting.count("revocations")} marker reads`);
  raw.close();
});

Deno.test("store cache: a token revoked on one instance is refused on the other at once (SPEC §4.4)", async () => {
  await using a = await createApp();
  const b = instance(a.kv, a.clock);
  const client = await registerClient(a);
  const token = await issueToken(a, client);
  assert.equal((await bearerGet(a, READ, token)).status, 200);
  assert.equal((await bearerGet(b, READ, token)).status, 200); // cached on both
  assert.equal((await revokeRequest(b, client, token)).status, 200);
  assert.equal((await bearerGet(a, READ, token)).status, 401);
  assert.equal((await bearerGet(b, READ, token)).status, 401);
});

Deno.test("store cache: expiry is checked against the clock on every request (SPEC §3, 900 s)", async () => {
  await using app = await createApp();
  const token = await issueToken(app, await registerClient(app));
  assert.equal((await bearerGet(app, READ, token)).status, 200);
  app.clock.advance(899_000);
  assert.equal((await bearerGet(app, READ, token)).status, 200);
  app.clock.advance(1_000);
  assert.equal((await bearerGet(app, READ, token)).status, 401);
});

Deno.test("store cache: a client disabled on another instance gets invalid_client (SPEC §5.1, §7)", async (t) => {
  await using a = await createApp();
  const client = await registerClient(a);
  const token = await issueToken(a, client); // the client record is cached on A
  await disableClient(a.kv, client.client_id, a.clock.now()); // as `review disable-client`

  await t.step("its token is refused", async () => {
    assert.equal((await bearerGet(a, READ, token)).status, 401);
  });
  await t.step("a token request is invalid_client", async () => {
    const res = await tokenRequest(a, client, { grant_type: "client_credentials" });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).error, "invalid_client");
  });
  await t.step("a revocation is invalid_client, not a 200", async () => {
    const res = await revokeRequest(a, client, token);
    assert.equal(res.status, 401);
    assert.equal((await res.json()).error, "invalid_client");
  });
});

Deno.test("store cache: a marker read never serves a request that arrived after it began", async () => {
  // A store whose marker reads are answered by hand, in order.
  const pending: ((versionstamp: string | null) => void)[] = [];
  const kv = {
    get: (key: Deno.KvKey) => {
      assert.deepEqual(key, revocationKey());
      return new Promise((resolve) =>
        pending.push((versionstamp) => resolve({ key, value: null, versionstamp }))
      );
    },
  } as unknown as Deno.Kv;
  const cache = createStoreCache(kv);
  const first = cache.marker();
  const alsoFirst = cache.marker(); // arrived while the first read was in flight
  const third = cache.marker(); // so did this one: it shares the next read
  assert.equal(pending.length, 1, "no second read while one is in flight");
  pending.shift()!("v1"); // a revocation commits after this read was answered...
  assert.equal(await first, "v1");
  await Promise.resolve();
  assert.equal(pending.length, 1, "the waiting callers start one new read");
  pending.shift()!("v2");
  // ...so the callers that arrived during the first read see the second.
  assert.equal(await alsoFirst, "v2");
  assert.equal(await third, "v2");
  assert.equal(cache.stats.markerReads, 2);
});

Deno.test("store cache: the cache is bounded; the least recently used entry goes first", () => {
  const lru = new ClockCache<number>(2);
  lru.set("a", 1, "m");
  lru.set("b", 2, "m");
  assert.equal(lru.get("a", "m"), 1); // a is now the most recently used
  lru.set("c", 3, "m");
  assert.equal(lru.size, 2);
  assert.equal(lru.get("b", "m"), undefined);
  assert.equal(lru.get("a", "m"), 1);
  assert.equal(lru.get("a", "other marker"), undefined, "another marker drops the entry");
  assert.equal(lru.size, 1);
});

Deno.test("a token commit that meets a locked store is committed again, not a 500", async () => {
  // Several processes on one SQLite file: a commit may fail with "database is locked"
  // and is retried (src/store/retry_locked.ts). Through group commit, the retry commits the same
  // operation again.
  const raw = await Deno.openKv(":memory:");
  let failNext = false;
  const store = new Proxy(raw, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          const set = op.set.bind(op);
          let token = false; // only the token's commit meets the lock
          op.set = (key, value, options) => {
            token ||= key[0] === "tokens";
            return set(key, value, options);
          };
          op.commit = () => {
            if (!failNext || !token) return commit();
            failNext = false;
            return Promise.reject(new TypeError("database is locked"));
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await using app = await createApp({ kv: store });
  const client = await registerClient(app);
  failNext = true;
  const res = await tokenRequest(app, client, { grant_type: "client_credentials" });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(failNext, false, "the lock was met");
  assert.equal((await bearerGet(app, READ, (await res.json()).access_token)).status, 200);
  raw.close();
});

Deno.test("a disabled client's token request is invalid_client whatever else is wrong (SPEC §5.1, §7)", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  await issueToken(app, client); // the client record is now cached
  await disableClient(app.kv, client.client_id, app.clock.now());
  const forms: Record<string, string>[] = [
    { grant_type: "password" },
    { grant_type: "client_credentials", scope: "write:everything" },
    { grant_type: "client_credentials", resource: "https://elsewhere.example" },
  ];
  for (const form of forms) {
    const res = await tokenRequest(app, client, form);
    assert.equal(res.status, 401, JSON.stringify(form));
    assert.equal((await res.json()).error, "invalid_client");
  }
});

Deno.test("store cache: a hit marks its entry used instead of moving it; eviction gives it a second chance", () => {
  const lru = new ClockCache<number>(3);
  for (const [k, v] of [["a", 1], ["b", 2], ["c", 3]] as const) lru.set(k, v, "m");
  assert.equal(lru.get("a", "m"), 1);
  lru.set("d", 4, "m"); // a was used: b, the oldest unused, goes
  assert.deepEqual(["a", "b", "c", "d"].map((k) => lru.get(k, "m")), [1, undefined, 3, 4]);
  // c, d and a were just used: each gets its chance in turn, then the first of them (c),
  // back at the front, goes; the entry just set never does.
  lru.set("e", 5, "m");
  assert.equal(lru.size, 3);
  assert.deepEqual(["a", "c", "d", "e"].map((k) => lru.get(k, "m")), [1, undefined, 4, 5]);
  lru.set("d", 40, "m"); // an existing key is updated in place
  assert.deepEqual([lru.size, lru.get("d", "m")], [3, 40]);
});
