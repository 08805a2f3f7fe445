/**
 * Durability (issue 3, "A crash test"): the real service takes a burst of concurrent
 * submissions on a KV file and is SIGKILLed part-way; after a restart, every request
 * id that was answered 202 is listed by `deno task review list --json`.
 */

import assert from "node:assert/strict";
import { root, startService } from "./_service.ts";

const TOTAL = 300;
const IN_FLIGHT = 32;
const KILL_AFTER = 100;

function submission(i: number): { path: string; body: unknown } {
  if (i % 3 === 0) {
    return {
      path: "/api/v1/quotes",
      body: {
        company: `Crash Test Ltd ${i}`,
        contact_name: "Kim Kill",
        email: `quote-${i}@example.org`,
        city: "Frankfurt",
        service_type: "remote-hands",
        description: `Quote request number ${i}`,
        engineer_count: 1 + (i % 4),
      },
    };
  }
  return {
    path: "/api/v1/intake",
    body: { email: `lead-${i}@example.org`, description: `Lead number ${i}`, city: "Amsterdam" },
  };
}

async function reviewListJson(kvPath: string): Promise<Record<string, unknown>[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "review", "list", "--json"],
    cwd: root,
    env: { KV_PATH: kvPath, NO_COLOR: "1" },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const items = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(Array.isArray(items));
  return items;
}

Deno.test({
  name: "a SIGKILL part-way through a burst of submissions loses no request that was answered 202",
  // Service.serverPid reads /proc.
  ignore: Deno.build.os !== "linux",
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "dcfs-crash-" });
    const kvPath = `${dir}/kv.sqlite3`;
    const env = { KV_PATH: kvPath, RATE_LIMIT_SUBMIT: "0" };
    const accepted: string[] = [];
    const statusesBeforeKill: number[] = [];
    let sent = 0;
    try {
      await t.step(
        `${TOTAL} submissions, ${IN_FLIGHT} in flight, SIGKILL after ${KILL_AFTER} answers`,
        async () => {
          await using service = await startService(env);
          const server = await service.serverPid();
          let killed = false;
          let answered = 0;
          const worker = async () => {
            while (!killed && sent < TOTAL) {
              const { path, body } = submission(sent++);
              try {
                const res = await fetch(`${service.baseUrl}${path}`, {
                  method: "POST",
                  headers: { "Content-Type": "application/json" },
                  body: JSON.stringify(body),
                });
                const text = await res.text();
                if (!killed) statusesBeforeKill.push(res.status);
                if (res.status === 202) accepted.push(JSON.parse(text).request_id);
                if (++answered === KILL_AFTER) {
                  killed = true;
                  Deno.kill(server, "SIGKILL");
                }
              } catch {
                // A request cut off by the kill: it was never acknowledged, so it may be lost.
              }
            }
          };
          await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

          assert.ok(killed, "the service was killed");
          const status = await service.child.status;
          assert.equal(status.success, false, "deno task start ended with its killed server");

          assert.equal(statusesBeforeKill.length, KILL_AFTER);
          assert.deepEqual(
            statusesBeforeKill.filter((s) => s >= 500),
            [],
            "no 5xx before the kill",
          );
          assert.ok(statusesBeforeKill.every((s) => s === 202), `statuses: ${statusesBeforeKill}`);
          assert.ok(accepted.length >= KILL_AFTER, `only ${accepted.length} were accepted`);
          assert.ok(sent < TOTAL, "the kill came part-way through");
        },
      );

      await t.step(
        "after a restart every 202'd request_id is in deno task review list --json",
        async () => {
          await using service = await startService(env);
          assert.ok(accepted.length > 0, "the first step accepted submissions");
          const health = await fetch(`${service.baseUrl}/healthz`);
          assert.equal(health.status, 200);
          assert.deepEqual(await health.json(), { ok: true });

          const items = await reviewListJson(kvPath);
          const listed = new Set(items.map((i) => i.request_id));
          const lost = accepted.filter((id) => !listed.has(id));
          assert.deepEqual(
            lost,
            [],
            `${lost.length} of ${accepted.length} accepted submissions lost`,
          );
          assert.ok(items.length <= sent, "nothing was listed that was never sent");
          for (const item of items) {
            assert.equal(item.status, "pending");
            assert.match(String(item.request_id), /^(lead|quote)_/);
            assert.equal(item.kind, String(item.request_id).split("_")[0]);
          }
        },
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
