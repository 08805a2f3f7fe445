import assert from "node:assert/strict";
import { createHandler } from "../src/app.ts";
import { createJsonLineLogger } from "../src/http/log.ts";
import { loadConfig } from "../src/config.ts";
import { catalog, createApp, issueToken, registerClient, revokeRequest } from "./_helpers.ts";

Deno.test("every response carries X-Request-Id and X-Content-Type-Options: nosniff", async (t) => {
  await using app = await createApp();
  for (
    const [method, path] of [["GET", "/healthz"], ["GET", "/nowhere"], ["PUT", "/oauth2/token"], [
      "POST",
      "/oauth2/token",
    ]]
  ) {
    await t.step(`${method} ${path}`, async () => {
      const res = await app.request(path!, { method });
      assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      await res.body?.cancel();
    });
  }
});

Deno.test("one access log line per request: method, path, status, ms, request id", async () => {
  await using app = await createApp();
  const res = await app.request("/healthz?probe=1", {
    headers: { "X-Request-Id": "01JDBX7QW1M4T8R3C6P9N2K5HZ" },
  });
  assert.equal(res.headers.get("x-request-id"), "01JDBX7QW1M4T8R3C6P9N2K5HZ");
  await res.body?.cancel();
  assert.equal(app.logs.length, 1);
  const line = app.logs[0]!;
  assert.deepEqual(Object.keys(line).sort(), [
    "level",
    "method",
    "ms",
    "path",
    "request_id",
    "status",
  ]);
  assert.equal(line.method, "GET");
  assert.equal(line.path, "/healthz");
  assert.equal(line.status, 200);
  assert.equal(line.request_id, "01JDBX7QW1M4T8R3C6P9N2K5HZ");
  assert.equal(typeof line.ms, "number");
});

Deno.test("the log never contains client secrets, tokens or emails", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  (await app.request(`/api/v1/agent/services?access_token=${token}`)).body?.cancel();
  (await app.request(`/api/v1/agent/${token}`)).body?.cancel();
  (await app.request("/api/v1/jane.doe@example.com")).body?.cancel();
  (await revokeRequest(app, client, token)).body?.cancel();
  const dump = JSON.stringify(app.logs);
  assert.ok(app.logs.length >= 6);
  assert.ok(!dump.includes(client.client_secret));
  assert.ok(!dump.includes(token));
  assert.ok(!dump.includes("jane.doe"));
  assert.ok(!dump.includes("@"));
});

Deno.test("the access log leaves out a path that matches no route", async () => {
  await using app = await createApp();
  for (const path of ["/john.doe/004915112345678/agt_x", "/jane@example.com"]) {
    const res = await app.request(path);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  }
  const paths = app.logs.map((l) => l.path);
  assert.deepEqual(paths, ["(no route)", "(no route)"]);
});

Deno.test("the access log names a route by its pattern and a method outside HTTP's as (other)", async () => {
  await using app = await createApp();
  const asked = [
    ["GET", "/assets/jane.doe-1985-03-14"],
    ["GET", "/api/v1/services"],
    ["JANE_DOE_ZURICH", "/healthz"],
  ];
  for (const [method, path] of asked) {
    const res = await app.request(path!, { method });
    await res.body?.cancel();
  }
  assert.deepEqual(app.logs.map((l) => [l.method, l.path]), [
    ["GET", "/assets/:name"],
    ["GET", "/api/v1/services"],
    ["(other)", "/healthz"],
  ]);
  const res = await app.request("/healthz", { method: "JANE_DOE_ZURICH" });
  assert.equal(res.status, 405);
  assert.doesNotMatch(await res.text(), /JANE/, "the method is not echoed either");
});

Deno.test("the JSON line logger batches info lines per event-loop turn and writes warnings at once", async () => {
  const writes: string[] = [];
  const log = createJsonLineLogger({
    writeSync(p) {
      writes.push(new TextDecoder().decode(p));
      return p.length;
    },
  });
  log({ level: "info", n: 1 });
  log({ level: "info", n: 2 });
  assert.deepEqual(writes, [], "info lines wait for the end of the turn");
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(writes, ['{"level":"info","n":1}\n{"level":"info","n":2}\n']);
  log({ level: "info", n: 3 });
  log({ level: "warn", n: 4 });
  assert.deepEqual(writes.slice(1), ['{"level":"info","n":3}\n{"level":"warn","n":4}\n']);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(writes.length, 2, "nothing is written twice");
});

Deno.test("the JSON line logger finishes a write the stream took only in part", () => {
  const chunks: number[] = [];
  const log = createJsonLineLogger({
    writeSync(p) {
      const n = Math.min(5, p.length);
      chunks.push(n);
      return n;
    },
  });
  log({ level: "error", msg: "x" }); // 28 bytes with the newline
  assert.equal(chunks.reduce((a, b) => a + b, 0), '{"level":"error","msg":"x"}\n'.length);
});

Deno.test("an unexpected exception becomes a generic 500 and is logged with the request id", async () => {
  const logs: Record<string, unknown>[] = [];
  const kv = await Deno.openKv(":memory:");
  const broken = {
    get: () => Promise.reject(new Error("disk on fire: secret detail")),
  } as unknown as Deno.Kv;
  const handler = createHandler({
    kv: broken,
    config: loadConfig({ BASE_URL: "https://api.test" }),
    catalog: catalog(),
    log: (r) => logs.push(r),
  });
  const res = await handler(
    new Request("https://api.test/api/v1/agent/services", {
      headers: { Authorization: "Bearer abc" },
    }),
  );
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.deepEqual(body, { ok: false, error: "internal_error", message: "internal error" });
  const errorLine = logs.find((l) => l.level === "error");
  assert.equal(errorLine?.request_id, res.headers.get("x-request-id"));
  assert.match(String(errorLine?.error), /disk on fire/);
  kv.close();
});
