import assert from "node:assert/strict";

const root = new URL("..", import.meta.url);

function startTask(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "start"],
    cwd: root,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("deno task start fails at start-up with one clear line for bad configuration", async () => {
  const child = startTask({ PORT: "eighty" });
  const out = await child.output();
  assert.equal(out.code, 2);
  const stderr = new TextDecoder().decode(out.stderr).trim();
  assert.equal(
    stderr,
    'configuration error: PORT must be a whole number from 0 to 65535, got "eighty"',
  );
});

Deno.test("deno task start serves /healthz and drains cleanly on SIGTERM", async () => {
  const child = startTask({ PORT: "0", HOSTNAME: "127.0.0.1", KV_PATH: ":memory:" });
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, string>({
      transform(chunk, c) {
        for (const l of chunk.split("\n")) if (l.trim()) c.enqueue(l);
      },
    }),
  ).getReader();
  const seen: Record<string, unknown>[] = [];
  const next = async () => {
    const { value, done } = await lines.read();
    assert.ok(!done, "the service exited early");
    const rec = JSON.parse(value);
    seen.push(rec);
    return rec;
  };
  const listening = await next();
  assert.equal(listening.msg, "listening");
  const port = String(listening.address).split(":").pop();
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true });

  child.kill("SIGTERM");
  while ((await next()).msg !== "stopped");
  assert.ok(seen.some((r) => r.msg === "draining" && r.signal === "SIGTERM"));
  const status = await child.status;
  assert.equal(status.code, 0);
  lines.releaseLock();
  await child.stdout.cancel().catch(() => {});
  await child.stderr.cancel();
});

Deno.test("deno task start grants env access to exactly the documented variables", async () => {
  const { ENV_NAMES } = await import("../src/config.ts");
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  for (const task of ["start", "dev"]) {
    const granted = String(denoJson.tasks[task]).match(/--allow-env=(\S+)/)?.[1]?.split(",");
    assert.deepEqual(granted?.sort(), [...ENV_NAMES, "DENO_KV_ACCESS_TOKEN"].sort(), task);
  }
});
