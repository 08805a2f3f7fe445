/**
 * Several instances, one store (issue 5, section 2): two real service processes
 * (`deno task start`) on one KV file, the single-machine stand-in for several Deno
 * Deploy isolates sharing the managed KV. Both use the same `BASE_URL`, as every
 * instance of one deployment must (it is the token audience).
 */

import assert from "node:assert/strict";
import { reviewCli, reviewListJson, type Service, startService } from "../_service.ts";

const BASE_URL = "https://api.instances.example";
const REGISTER_LIMIT = 10;
/**
 * How many of the limit's places two instances may leave unused at the boundary: none.
 * Counters are written by check-and-set in the commit of the request's own write
 * (src/http/rate_limit.ts): each admitted request is one checked increment, and a request
 * whose check failed because the other instance counted first reads the counter again and
 * is refused only once it is full.
 */
const REGISTER_UNDERSHOOT = 0;
const RATE_ROUNDS = 5;
const RATE_BURST = 30;
const SUBMISSIONS_PER_INSTANCE = 10;

interface Client {
  client_id: string;
  client_secret: string;
}

function basic(c: Client): string {
  return "Basic " + btoa(`${c.client_id}:${c.client_secret}`);
}

function register(s: Service, address = "192.0.2.1"): Promise<Response> {
  return fetch(`${s.baseUrl}/agent/identity`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": address },
    body: JSON.stringify({ type: "anonymous" }),
  });
}

async function registerClient(s: Service): Promise<Client> {
  const res = await register(s);
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

async function issueToken(s: Service, c: Client): Promise<string> {
  const res = await fetch(`${s.baseUrl}/oauth2/token`, {
    method: "POST",
    headers: {
      "Authorization": basic(c),
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials", resource: BASE_URL }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).access_token;
}

async function revoke(s: Service, c: Client, token: string): Promise<number> {
  const res = await fetch(`${s.baseUrl}/oauth2/revoke`, {
    method: "POST",
    headers: {
      "Authorization": basic(c),
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token, token_type_hint: "access_token" }),
  });
  await res.body?.cancel();
  return res.status;
}

async function read(s: Service, token: string): Promise<number> {
  const res = await fetch(`${s.baseUrl}/api/v1/agent/services`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  await res.body?.cancel();
  return res.status;
}

async function submit(s: Service, i: number): Promise<string> {
  const [path, body] = i % 2 === 0
    ? ["/api/v1/intake", { email: `lead-${i}@example.org`, description: `Lead ${i}` }]
    : ["/api/v1/quotes", {
      company: `Instances Ltd ${i}`,
      contact_name: "Ina Stance",
      email: `quote-${i}@example.org`,
      city: "Frankfurt",
      service_type: "remote-hands",
      description: `Quote ${i}`,
      engineer_count: 1,
    }];
  const res = await fetch(`${s.baseUrl}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).request_id;
}

/** Waits until at least `ms` remain in the current one-minute rate-limit window. */
async function awayFromWindowEdge(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await new Promise((r) => setTimeout(r, left + 50));
}

/**
 * Sends `size` registrations from one address at once, alternating between the two
 * instances, within one rate-limit window; counts what was admitted.
 */
async function burst(a: Service, b: Service, address: string, size: number) {
  await awayFromWindowEdge(5_000);
  const statuses = await Promise.all(
    Array.from({ length: size }, async (_, i) => {
      const res = await register(i % 2 === 0 ? a : b, address);
      await res.body?.cancel();
      return [i % 2 === 0 ? "A" : "B", res.status] as const;
    }),
  );
  const admitted = statuses.filter(([, s]) => s === 201);
  const by = (n: string) => admitted.filter(([i]) => i === n).length;
  return {
    admitted: admitted.length,
    others: statuses.filter(([, s]) => s !== 201 && s !== 429),
    detail: `${admitted.length} admitted (A ${by("A")}, B ${by("B")})`,
  };
}

/** A local webhook receiver that counts every request_id it is sent. */
function webhookReceiver() {
  const received = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    received.set(body.request_id, (received.get(body.request_id) ?? 0) + 1);
    return new Response(null, { status: 204 });
  });
  const { port } = server.addr as Deno.NetAddr;
  return { url: `http://127.0.0.1:${port}/review-hook`, received, server };
}

Deno.test({
  name: "two service processes on one KV file behave as one service",
  // Several processes share one SQLite file; the locking is POSIX-specific.
  ignore: Deno.build.os === "windows",
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "dcfs-instances-" });
    const hook = webhookReceiver();
    try {
      const env = {
        KV_PATH: `${dir}/kv.sqlite3`,
        BASE_URL,
        // The rate-limit step gives each round its own address through X-Forwarded-For.
        TRUST_PROXY: "true",
        RATE_LIMIT_REGISTER: String(REGISTER_LIMIT),
        RATE_LIMIT_TOKEN: "0",
        RATE_LIMIT_REVOKE: "0",
        RATE_LIMIT_SUBMIT: "0",
        RATE_LIMIT_SUBMIT_GLOBAL: "0",
        REVIEW_WEBHOOK_URL: hook.url,
      };
      await using a = await startService(env);
      await using b = await startService(env);
      const pair = [["A", a], ["B", b]] as const;

      await t.step("a token issued on either instance works on both", async () => {
        for (const [name, issuer] of pair) {
          const client = await registerClient(issuer);
          const token = await issueToken(issuer, client);
          assert.equal(await read(a, token), 200, `token from ${name} read on A`);
          assert.equal(await read(b, token), 200, `token from ${name} read on B`);
        }
      });

      await t.step("a client registered on one instance gets tokens from the other", async () => {
        const client = await registerClient(a);
        const token = await issueToken(b, client);
        assert.equal(await read(a, token), 200);
      });

      await t.step(
        "a token revoked on one instance is refused on the other on the very next request",
        async () => {
          for (const [name, revoker, other] of [["A", a, b], ["B", b, a]] as const) {
            const client = await registerClient(other);
            const token = await issueToken(other, client);
            assert.equal(await read(other, token), 200);
            assert.equal(await revoke(revoker, client, token), 200, `revoked on ${name}`);
            assert.equal(await read(other, token), 401, `revoked on ${name}, read elsewhere`);
            assert.equal(await read(revoker, token), 401, `revoked on ${name}, read there`);
          }
        },
      );

      await t.step(
        "revokes under concurrent reads on two instances: no 200 after the revocation's 200 (SPEC §4.4)",
        async () => {
          const client = await registerClient(a);
          const token = await issueToken(a, client);
          // Both instances have the token cached before the revocation.
          assert.equal(await read(a, token), 200);
          assert.equal(await read(b, token), 200);
          const reads: { sent: number; status: number; on: string }[] = [];
          let revokedAt = Infinity;
          let stop = false;
          const reader = async (s: Service, on: string) => {
            while (!stop) {
              const sent = performance.now();
              reads.push({ sent, status: await read(s, token), on });
            }
          };
          const readers = [a, b, a, b, a, b].map((s, i) => reader(s, i % 2 ? "B" : "A"));
          await new Promise((r) => setTimeout(r, 200));
          assert.equal(await revoke(a, client, token), 200);
          revokedAt = performance.now();
          await new Promise((r) => setTimeout(r, 300));
          stop = true;
          await Promise.all(readers);

          const before = reads.filter((r) => r.sent < revokedAt);
          const after = reads.filter((r) => r.sent > revokedAt);
          assert.ok(before.some((r) => r.status === 200), "reads before the revocation succeed");
          for (const on of ["A", "B"]) {
            assert.ok(after.some((r) => r.on === on), `reads on ${on} after the revocation`);
          }
          const late = after.filter((r) => r.status !== 401);
          assert.deepEqual(late, [], `${after.length} reads sent after the revocation's 200`);
        },
      );

      await t.step(
        `a rate limit counts requests across both: ${RATE_BURST} concurrent registrations ` +
          `from one address, ${RATE_ROUNDS} times, admit exactly ${REGISTER_LIMIT} each time`,
        async () => {
          for (let round = 1; round <= RATE_ROUNDS; round++) {
            const { admitted, others, detail } = await burst(
              a,
              b,
              `198.51.100.${round}`,
              RATE_BURST,
            );
            assert.deepEqual(others, [], `only 201 and 429: round ${round}: ${detail}`);
            assert.ok(admitted <= REGISTER_LIMIT, `round ${round}: ${detail}`);
            assert.ok(
              admitted >= REGISTER_LIMIT - REGISTER_UNDERSHOOT,
              `at most ${REGISTER_UNDERSHOOT} place left unused: round ${round}: ${detail}`,
            );
          }
        },
      );

      const ids: string[] = [];
      await t.step("submissions from both appear once each in the review queue", async () => {
        ids.push(
          ...await Promise.all(
            Array.from(
              { length: 2 * SUBMISSIONS_PER_INSTANCE },
              (_, i) => submit(i % 2 === 0 ? a : b, i),
            ),
          ),
        );
        assert.equal(new Set(ids).size, ids.length, "request ids are unique");
        const listed = (await reviewListJson(env.KV_PATH)).map((i) => i.request_id);
        assert.deepEqual(listed.toSorted(), ids.toSorted());
      });

      await t.step(
        "each review notification reaches the webhook exactly once across both pollers",
        async () => {
          const deadline = Date.now() + 10_000;
          while (ids.some((id) => !hook.received.has(id)) && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 100));
          }
          // A while longer, for a duplicate from either instance to arrive.
          await new Promise((r) => setTimeout(r, 2_500));
          assert.deepEqual(
            Object.fromEntries(hook.received),
            Object.fromEntries(ids.map((id) => [id, 1])),
          );
          const items = await reviewListJson(env.KV_PATH);
          assert.ok(items.every((i) => i.notification === "sent" && i.notified_at !== null));
          const sentBy = (s: Service) =>
            s.logs.filter((r) => r.msg === "submission queued for review" && r.via === "webhook")
              .map((r) => r.submission_id);
          const both = [...sentBy(a), ...sentBy(b)];
          assert.deepEqual(both.toSorted(), ids.toSorted(), "each logged as sent by one instance");
        },
      );
    } finally {
      await hook.server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const STRICT_LIMIT = 60;
const STRICT_BURST = 120;
const STRICT_ROUNDS = 40;

/**
 * The limit holds under real contention between two instances: with the limit at 60
 * (the default for tokens and revocations) and bursts of 120 split across them, no
 * burst is admitted past 60, and at most one place per other instance stays unused.
 */
Deno.test({
  name: "two service processes never admit more than the limit, even when contended",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "dcfs-instances-strict-" });
    try {
      const env = {
        KV_PATH: `${dir}/kv.sqlite3`,
        BASE_URL,
        TRUST_PROXY: "true",
        RATE_LIMIT_REGISTER: String(STRICT_LIMIT),
        RATE_LIMIT_REGISTER_GLOBAL: "0",
      };
      await using a = await startService(env);
      await using b = await startService(env);
      const over: string[] = [];
      for (let round = 1; round <= STRICT_ROUNDS; round++) {
        const { admitted, others, detail } = await burst(
          a,
          b,
          `203.0.113.${round}`,
          STRICT_BURST,
        );
        assert.deepEqual(others, [], `only 201 and 429: round ${round}: ${detail}`);
        if (admitted > STRICT_LIMIT) over.push(`round ${round}: ${detail}`);
        assert.ok(admitted >= STRICT_LIMIT - 1, `round ${round}: ${detail}`);
      }
      assert.deepEqual(over, [], `limit ${STRICT_LIMIT} exceeded`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * Issue 19, F5: disable-client used to scan every live token and delete the client's, so
 * with 40,000 live tokens a second instance kept serving them for about a second after
 * the command began. Now the command is one commit, and the Bearer check reads the token's
 * client: readers on the other instance see 401 from the moment the command returns.
 */
Deno.test({
  name:
    "disable-client: readers on a second instance are refused from the moment the CLI returns, with 40,000 live tokens",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "dcfs-instances-disable-" });
    try {
      const kvPath = `${dir}/kv.sqlite3`;
      // 40,000 live tokens of other clients, written as the service writes them.
      const kv = await Deno.openKv(kvPath);
      const now = Date.now();
      for (let i = 0; i < 40_000; i += 500) {
        const op = kv.atomic();
        for (let j = i; j < i + 500; j++) {
          op.set(["tokens", `filler-${j}`], {
            client_id: `agt_filler${j % 97}`,
            scopes: ["services:read"],
            audience: BASE_URL,
            issued_at: now,
            expires_at: now + 900_000,
          }, { expireIn: 900_000 });
        }
        assert.ok((await op.commit()).ok);
      }
      kv.close();
      const env = { KV_PATH: kvPath, BASE_URL, TRUST_PROXY: "true" };
      await using a = await startService(env);
      await using b = await startService(env);
      const client = await registerClient(a);
      const tokens = [await issueToken(a, client), await issueToken(a, client)];
      const read = async (token: string) => {
        const res = await fetch(`${b.baseUrl}/api/v1/agent/services`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        await res.body?.cancel();
        return res.status;
      };
      for (const token of tokens) assert.equal(await read(token), 200);

      // Readers keep reading on B while the CLI runs.
      let reading = true;
      const readers = tokens.map(async (token) => {
        while (reading) await read(token);
      });
      const started = performance.now();
      const run = await reviewCli(kvPath, "disable-client", client.client_id);
      const took = performance.now() - started;
      assert.equal(run.code, 0, run.stderr);
      for (const token of tokens) assert.equal(await read(token), 401, "the very next read on B");
      reading = false;
      await Promise.all(readers);
      // Generous: a broken command (a scan of every token, or a hang) takes far longer.
      assert.ok(took < 30_000, `disable-client took ${Math.round(took)} ms`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
