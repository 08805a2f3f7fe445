import assert from "node:assert/strict";
import { ENV_NAMES } from "../src/config.ts";
import { PLATFORM_ENV_NAMES } from "../src/ops/platform.ts";
import { root, startService } from "./_service.ts";

Deno.test("deno task start fails at start-up with one clear line for bad configuration", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "start"],
    cwd: root,
    env: { NO_COLOR: "1", PORT: "eighty" },
  }).output();
  assert.equal(out.code, 2);
  const stderr = new TextDecoder().decode(out.stderr).trim();
  assert.equal(
    stderr,
    'configuration error: PORT must be a whole number from 0 to 65535, got "eighty"',
  );
});

Deno.test("deno task start fails with one line when KV_PATH or HOSTNAME cannot be used", async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { KV_PATH: "/nonexistent/dir/kv.sqlite3" },
      /^configuration error: KV_PATH \/nonexistent\/dir\/kv\.sqlite3 cannot be opened: /,
    ],
    [
      { KV_PATH: ":memory:", HOSTNAME: "no-such-host.invalid", PORT: "0" },
      /^configuration error: cannot listen on HOSTNAME no-such-host\.invalid PORT 0: /,
    ],
  ];
  for (const [env, line] of cases) {
    await t.step(JSON.stringify(env), async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["task", "--quiet", "start"],
        cwd: root,
        env: { NO_COLOR: "1", ...env },
      }).output();
      assert.equal(out.code, 2);
      const stderr = new TextDecoder().decode(out.stderr).trim();
      assert.equal(stderr.split("\n").length, 1, stderr);
      assert.match(stderr, line);
    });
  }
});

Deno.test("deno task start refuses a weak STAFF_ENROL_CODE with one line that says the rule", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "start"],
    cwd: root,
    env: { NO_COLOR: "1", KV_PATH: ":memory:", STAFF_ENROL_CODE: "aaaaaaaaaaaaaaaaaaaaaaaa" },
  }).output();
  assert.equal(out.code, 2);
  const stderr = new TextDecoder().decode(out.stderr).trim();
  assert.equal(stderr.split("\n").length, 1, stderr);
  assert.match(
    stderr,
    /^configuration error: STAFF_ENROL_CODE is too weak: about 4 bits where 100 are needed, judged as a random string \(.+\); generate one: openssl rand -base64 24$/,
  );
  assert.ok(!stderr.includes("aaaa"), "the line never holds the code");
});

Deno.test("deno task start serves /healthz and drains cleanly on SIGTERM", async () => {
  await using service = await startService();
  const res = await fetch(`${service.baseUrl}/healthz`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true });

  service.child.kill("SIGTERM");
  await service.waitFor((r) => r.msg === "stopped");
  assert.ok(service.logs.some((r) => r.msg === "draining" && r.signal === "SIGTERM"));
  assert.equal((await service.child.status).code, 0);
});

Deno.test("SIGTERM lets an in-flight request finish and turns new ones away with 503", async () => {
  await using service = await startService();
  // A slow upload keeps one request in flight while the signal arrives.
  let push!: (chunk: string | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      push = (chunk) => chunk === null ? c.close() : c.enqueue(new TextEncoder().encode(chunk));
    },
  });
  const pending = fetch(`${service.baseUrl}/agent/identity`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);
  push('{"type":');
  await new Promise((r) => setTimeout(r, 200));
  service.child.kill("SIGTERM");
  await service.waitFor((r) => r.msg === "draining");
  const late = await fetch(`${service.baseUrl}/healthz`);
  assert.equal(late.status, 503, "a request arriving during the drain is turned away");
  assert.equal(late.headers.get("retry-after"), "1");
  assert.ok(late.headers.get("x-request-id"));
  assert.equal(late.headers.get("x-content-type-options"), "nosniff");
  await late.body?.cancel();
  push('"anonymous"}');
  push(null);
  const res = await pending;
  assert.equal(res.status, 201, await res.clone().text());
  assert.ok((await res.json()).client_id);
  await service.waitFor((r) => r.msg === "stopped");
});

Deno.test("SIGTERM writes the places outside coverage counted in memory before the store closes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-demand-" });
  try {
    const kvPath = `${dir}/kv.sqlite3`;
    {
      await using service = await startService({ KV_PATH: kvPath });
      for (const city of ["Reykjavik", "reykjavik", "Boise"]) {
        const res = await fetch(`${service.baseUrl}/api/v1/locations?city=${city}`);
        assert.equal(res.status, 200);
        await res.body?.cancel();
      }
      service.child.kill("SIGTERM");
      await service.waitFor((r) => r.msg === "stopped");
      assert.equal((await service.child.status).code, 0);
    }
    using kv = await Deno.openKv(kvPath);
    const counts: Record<string, number> = {};
    for await (const e of kv.list<{ n: number; name: string }>({ prefix: ["demand"] })) {
      counts[e.value.name] = (counts[e.value.name] ?? 0) + e.value.n;
    }
    assert.deepEqual(counts, { "Reykjavík": 2, Boise: 1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task start grants env access to exactly the documented variables", async () => {
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  for (const task of ["start", "dev"]) {
    const granted = String(denoJson.tasks[task]).match(/--allow-env=(\S+)/)?.[1]?.split(",");
    const expected = [...ENV_NAMES, ...PLATFORM_ENV_NAMES, "DENO_KV_ACCESS_TOKEN"];
    assert.deepEqual(granted?.sort(), expected.sort(), task);
    // Where the default store lives must not depend on how the service is started.
    assert.doesNotMatch(String(denoJson.tasks[task]), /--location/, task);
  }
});
