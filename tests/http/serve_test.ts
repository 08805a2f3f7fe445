import assert from "node:assert/strict";
import { serveResilient, throttled } from "../../src/http/serve.ts";
import { createApp } from "../_helpers.ts";

/** A stand-in for `Deno.serve` whose servers fail or stop when told to. */
function fakeServe() {
  const servers: {
    port: number;
    fail(err: Error): void;
    shutdowns: number;
  }[] = [];
  let refuse = 0;
  const serve = (options: Deno.ServeTcpOptions): Deno.HttpServer => {
    if (refuse > 0) {
      refuse--;
      throw new Error("Too many open files (os error 24)");
    }
    let fail = (_: Error) => {};
    let stop = () => {};
    const finished = new Promise<void>((resolve, reject) => (fail = reject, stop = resolve));
    const record = { port: options.port!, fail, shutdowns: 0 };
    servers.push(record);
    const addr = { transport: "tcp" as const, hostname: "127.0.0.1", port: options.port || 4321 };
    options.onListen?.(addr);
    return {
      addr,
      finished,
      shutdown: () => (record.shutdowns++, stop(), finished),
      ref() {},
      unref() {},
      [Symbol.asyncDispose]: () => finished,
    } as Deno.HttpServer;
  };
  return { servers, serve, refuseNext: (n: number) => refuse = n };
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** Polls `done` every few ms for at most 5 s; a loaded machine may run timers late. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !done(); i++) await tick();
}

Deno.test("serveResilient serves the same address again after an accept failure, and stops on shutdown", async (t) => {
  const fake = fakeServe();
  const logs: Record<string, unknown>[] = [];
  const listened: Deno.NetAddr[] = [];
  const server = serveResilient({
    hostname: "127.0.0.1",
    port: 0,
    log: (r) => logs.push(r),
    onListen: (a) => listened.push(a),
    backoffMs: 1,
    maxBackoffMs: 4,
    serve: fake.serve,
  }, () => new Response());

  await t.step("the first bind is reported once, through onListen", () => {
    assert.equal(fake.servers.length, 1);
    assert.equal(listened.length, 1);
    assert.equal(server.addr.port, 4321);
  });
  await t.step("a failed accept is logged and the bound port is served again", async () => {
    fake.servers[0]!.fail(new Error("Too many open files (os error 24)"));
    await until(() => fake.servers.length === 2);
    assert.equal(fake.servers.length, 2);
    assert.equal(fake.servers[1]!.port, 4321, "the port first bound, not 0");
    assert.equal(listened.length, 1, "onListen is for the first start only");
    const failed = logs.filter((r) => r.msg === "listener failed; serving again");
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.level, "error");
    assert.match(String(failed[0]!.error), /Too many open files/);
  });
  await t.step("while binding fails too, it keeps trying, and logs once per interval", async () => {
    fake.refuseNext(3);
    fake.servers[1]!.fail(new Error("Too many open files (os error 24)"));
    await until(() => fake.servers.length === 3);
    assert.equal(fake.servers.length, 3, "served again once binding worked");
    assert.equal(logs.filter((r) => r.msg === "listener failed; serving again").length, 1);
  });
  await t.step("shutdown stops the current server and any restart", async () => {
    await server.shutdown();
    await server.finished;
    assert.equal(fake.servers[2]!.shutdowns, 1);
    await tick(20);
    assert.equal(fake.servers.length, 3);
  });
});

Deno.test("serveResilient lets a bind failure at start-up throw, as Deno.serve does", () => {
  const fake = fakeServe();
  fake.refuseNext(1);
  assert.throws(
    () =>
      serveResilient(
        { hostname: "127.0.0.1", port: 1, log: () => {}, serve: fake.serve },
        () => new Response(),
      ),
    /Too many open files/,
  );
});

Deno.test("throttled runs at once, then at most once per interval, counting what it left out", () => {
  let t = 0;
  const runs: number[] = [];
  const once = throttled(1_000, () => t);
  for (let i = 0; i < 5; i++) once((n) => runs.push(n));
  assert.deepEqual(runs, [0]);
  t = 1_000;
  once((n) => runs.push(n));
  assert.deepEqual(runs, [0, 4]);
});

Deno.test("MAX_IN_FLIGHT: a request past the cap is 503 overloaded with Retry-After, before its body is read", async () => {
  await using app = await createApp({ env: { MAX_IN_FLIGHT: "2", RATE_LIMIT_SUBMIT: "0" } });
  // Two submissions whose bodies have not arrived hold both places.
  const gates: ReadableStreamDefaultController<Uint8Array>[] = [];
  const held = Array.from({ length: 2 }, () =>
    app.request("/api/v1/intake", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: new ReadableStream({ start: (c) => void gates.push(c) }),
    }));
  await tick();
  let pulled = false;
  const refused = await app.request("/api/v1/intake", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: new ReadableStream({ pull: () => void (pulled = true) }, { highWaterMark: 0 }),
  });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.equal(refused.headers.get("connection"), null, "keep-alive: the caller may retry");
  const body = await refused.json();
  assert.deepEqual([body.ok, body.error], [false, "overloaded"]);
  assert.equal(pulled, false, "the refused body was never read");
  assert.ok(app.logs.some((l) => l.status === 503 && l.path === "/api/v1/intake"));
  const health = await app.request("/healthz");
  assert.equal(health.status, 200, "GET /healthz has HEALTH_RESERVE places of its own");
  await health.body?.cancel();

  for (const gate of gates) {
    gate.enqueue(new TextEncoder().encode('{"email":"a@example.com","description":"x"}'));
    gate.close();
  }
  assert.deepEqual(await Promise.all(held.map(async (r) => (await r).status)), [202, 202]);
  const after = await app.request("/healthz");
  assert.equal(after.status, 200, "places are given back");
  await after.body?.cancel();
});

Deno.test("MAX_IN_FLIGHT=0 switches the cap off", async () => {
  await using app = await createApp({ env: { MAX_IN_FLIGHT: "0" } });
  const responses = await Promise.all(Array.from({ length: 50 }, () => app.request("/healthz")));
  assert.deepEqual([...new Set(responses.map((r) => (r.body?.cancel(), r.status)))], [200]);
});

Deno.test("a handler that throws gets the shared error body as a 500, and only the error's kind is logged", async () => {
  const logs: Record<string, unknown>[] = [];
  const server = serveResilient({
    hostname: "127.0.0.1",
    port: 0,
    log: (r) => logs.push(r),
  }, () => {
    throw new TypeError("secret detail from /api/v1/quotes?email=a@example.com");
  });
  try {
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/anything?email=a@example.com`);
    assert.equal(res.status, 500);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(await res.json(), {
      ok: false,
      error: "internal_error",
      message: "internal error",
    });
    assert.deepEqual(logs, [{ level: "error", msg: "unhandled error", error: "TypeError" }]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("MAX_IN_FLIGHT: an address (an IPv6 /64) holds at most its share, counted exactly however its requests were admitted", async () => {
  // 64 places: an address may hold 16 (ADDRESS_SHARE), writes 48 (READ_RESERVE).
  await using app = await createApp({ env: { MAX_IN_FLIGHT: "64", RATE_LIMIT_SUBMIT: "0" } });
  const gates: ReadableStreamDefaultController<Uint8Array>[] = [];
  const hold = (address: string) =>
    app.request("/api/v1/intake", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: new ReadableStream({ start: (c) => void gates.push(c) }),
      address,
    });
  const read = async (address: string) => {
    const res = await app.request("/api/v1/services", { address });
    await res.body?.cancel();
    return res.status;
  };
  // 16 from one /64, admitted while far fewer than the share were in flight each time.
  const held = [
    ...Array.from({ length: 8 }, () => hold("2001:db8:1:2::a")),
    ...Array.from({ length: 8 }, () => hold("2001:db8:1:2::b")),
  ];
  await tick();
  assert.equal(await read("2001:db8:1:2::c"), 503, "the /64 holds its share: even a read waits");
  assert.equal(await read("2001:db8:1:3::1"), 200, "another /64 is served");
  assert.equal(await read("192.0.2.7"), 200, "an IPv4 address is served");
  const health = await app.request("/healthz", { address: "2001:db8:1:2::a" });
  assert.equal(health.status, 200, "GET /healthz is not counted against the address");
  await health.body?.cancel();

  // One of the 16 answered: its place is given back to its address.
  const gate = gates.shift()!;
  gate.enqueue(new TextEncoder().encode('{"email":"a@example.com","description":"x"}'));
  gate.close();
  assert.equal((await held.shift()!).status, 202);
  assert.equal(await read("2001:db8:1:2::c"), 200);
  for (const g of gates) g.error(new Error("gone"));
  await Promise.allSettled(held);
});
