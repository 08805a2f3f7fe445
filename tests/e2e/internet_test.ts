/**
 * The open-internet rules of docs/operations.md, proved against the real process
 * (`deno task start` on a temporary KV file) and the real review CLI.
 */
import assert from "node:assert/strict";
import { decidedIndexKey } from "../../src/store/keys.ts";
import { documentedWebhookVerifier } from "../_docs.ts";
import { LEAD, QUOTE } from "../_fixtures.ts";
import { issueToken, overHttp, registerClient } from "../_helpers.ts";
import {
  awayFromMinuteEdge,
  reviewCli,
  reviewListJson,
  startService,
  startServiceOnTempKv,
} from "../_service.ts";

const JSON_TYPE = { "Content-Type": "application/json" };

async function status(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.body?.cancel();
  return r.status;
}

Deno.test("against the real process: junk spends only its sender's budget, foreign origins are refused, ports do not make new addresses", async (t) => {
  await using service = await startServiceOnTempKv({
    TRUST_PROXY: "true",
    RATE_LIMIT_SUBMIT_GLOBAL: "3",
    RATE_LIMIT_REGISTER: "2",
    RATE_LIMIT_REGISTER_GLOBAL: "4",
  });
  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${service.baseUrl}${path}`, { method: "POST", headers, body });

  await t.step("600 junk submissions from 30 addresses do not lock out a valid lead", async () => {
    for (let i = 0; i < 600; i++) {
      const headers = i % 3
        ? { ...JSON_TYPE, "X-Forwarded-For": `198.51.100.${i % 30}` }
        : { "Content-Type": "text/plain", "X-Forwarded-For": `198.51.100.${i % 30}` };
      const code = await status(
        post("/api/v1/intake", i % 3 ? "{}" : JSON.stringify(LEAD), headers),
      );
      assert.ok(code === 400 || code === 415 || code === 429, String(code));
    }
    const fresh = { ...JSON_TYPE, "X-Forwarded-For": "203.0.113.50" };
    assert.equal(await status(post("/api/v1/intake", JSON.stringify(LEAD), fresh)), 202);
  });
  await t.step("a cross-site form post and a foreign Origin are 403 forbidden_origin", async () => {
    for (const path of ["/api/v1/intake", "/api/v1/quotes", "/agent/identity"]) {
      const res = await post(
        path,
        JSON.stringify(path === "/agent/identity" ? { type: "anonymous" } : QUOTE),
        {
          "Content-Type": "text/plain",
          Origin: "https://evil.example",
          "X-Forwarded-For": "203.0.113.51",
        },
      );
      assert.equal(res.status, 403, path);
      assert.equal((await res.json()).error, "forbidden_origin");
    }
    const own = await post("/api/v1/quotes", JSON.stringify(QUOTE), {
      ...JSON_TYPE,
      Origin: service.baseUrl,
      "X-Forwarded-For": "203.0.113.51",
    });
    assert.equal(own.status, 202);
    await own.body?.cancel();
  });
  await awayFromMinuteEdge(); // the next two steps count within one window
  await t.step("an X-Forwarded-For entry with a port counts as its address", async () => {
    const register = (port: number) =>
      status(post("/agent/identity", '{"type":"anonymous"}', {
        ...JSON_TYPE,
        "X-Forwarded-For": `192.0.2.77:${port}`,
      }));
    assert.deepEqual([await register(1), await register(2), await register(3)], [201, 201, 429]);
  });
  await t.step(
    "RATE_LIMIT_REGISTER_GLOBAL caps valid registrations from all addresses",
    async () => {
      const register = (address: string) =>
        status(post("/agent/identity", '{"type":"anonymous"}', {
          ...JSON_TYPE,
          "X-Forwarded-For": address,
        }));
      // Two were stored in the step before; two more places are left this minute.
      assert.equal(await register("192.0.2.80"), 201);
      assert.equal(await register("192.0.2.81"), 201);
      assert.equal(await register("192.0.2.82"), 429);
    },
  );
});

Deno.test("against the real process: the MCP endpoint is limited per address and refuses batches", async (t) => {
  await using service = await startService({ RATE_LIMIT_MCP: "3" });
  const call = (body: unknown) =>
    fetch(`${service.baseUrl}/api/v1/mcp`, {
      method: "POST",
      headers: {
        ...JSON_TYPE,
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
      },
      body: JSON.stringify(body),
    });
  await awayFromMinuteEdge();
  await t.step("a batch of 100 calls is one -32600 error", async () => {
    const batch = Array.from({ length: 100 }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list_services", arguments: {} },
    }));
    const res = await call(batch);
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error.code, -32600);
    assert.ok(JSON.stringify(body).length < 300, "no amplification");
  });
  await t.step("two more requests, then 429 with Retry-After", async () => {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    assert.equal(await status(call(ping)), 200);
    assert.equal(await status(call(ping)), 200);
    const limited = await call(ping);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    await limited.body?.cancel();
  });
});

Deno.test("against the real process: an X-Request-Id that carries a credential is neither echoed nor logged", async () => {
  await using service = await startService();
  const secret = "agt_Wb3yQ0vH1kq5ZlM2r8d9Xw:dcfs_cs_sN2lK2ZOv72U8Azf5uCP6GYWiMXrjH233BQam8phARY";
  const res = await fetch(`${service.baseUrl}/healthz`, { headers: { "X-Request-Id": secret } });
  await res.body?.cancel();
  const id = res.headers.get("x-request-id")!;
  assert.notEqual(id, secret);
  await service.waitFor((r) => r.request_id === id);
  assert.ok(!JSON.stringify(service.logs).includes("dcfs_cs_"));
});

Deno.test("against the real process and CLI: disable-client stops a running client's tokens at once", async () => {
  await using service = await startServiceOnTempKv();
  const app = overHttp(service.baseUrl);
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const read = () =>
    status(fetch(`${service.baseUrl}/api/v1/agent/services`, {
      headers: { Authorization: `Bearer ${token}` },
    }));
  assert.equal(await read(), 200);
  const run = await reviewCli(service.kvPath, "disable-client", client.client_id);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /its tokens are refused from now on/);
  assert.equal(await read(), 401, "the very next request");
  const res = await fetch(`${service.baseUrl}/oauth2/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  assert.equal(res.status, 401);
  assert.equal((await res.json()).error, "invalid_client");
});

Deno.test("against the real process and CLI: erase removes a submission the service stored, and show escapes hostile text", async () => {
  await using service = await startServiceOnTempKv();
  const hostile = "Acme\u009B31m \u202Eevil\u202C\u2028x";
  const res = await fetch(`${service.baseUrl}/api/v1/intake`, {
    method: "POST",
    headers: { ...JSON_TYPE, "Idempotency-Key": "erase-me" },
    body: JSON.stringify({ ...LEAD, company: hostile }),
  });
  assert.equal(res.status, 202);
  const { request_id } = await res.json();

  const shown = await reviewCli(service.kvPath, "show", request_id);
  assert.equal(shown.code, 0, shown.stderr);
  assert.doesNotMatch(shown.stdout, /[\u0080-\u009F\u202A-\u202E\u2028\u2029]/);
  assert.ok(shown.stdout.includes("Acme\\u009B31m \\u202Eevil\\u202C\\u2028x"));

  const erased = await reviewCli(service.kvPath, "erase", request_id);
  assert.equal(erased.code, 0, erased.stderr);
  assert.match(erased.stdout, new RegExp(`^erased ${request_id} \\(lead, `));
  assert.deepEqual(await reviewListJson(service.kvPath), []);
  // The idempotency record went too: the same key stores a new submission.
  const again = await fetch(`${service.baseUrl}/api/v1/intake`, {
    method: "POST",
    headers: { ...JSON_TYPE, "Idempotency-Key": "erase-me" },
    body: JSON.stringify({ ...LEAD, company: hostile }),
  });
  assert.equal(again.status, 202);
  assert.notEqual((await again.json()).request_id, request_id);
});

Deno.test("against the real process: SUBMISSION_RETENTION_DAYS erases old decided submissions at start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-retention-" });
  const kvPath = `${dir}/kv.sqlite3`;
  try {
    let ids: string[];
    {
      await using first = await startService({ KV_PATH: kvPath });
      ids = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${first.baseUrl}/api/v1/intake`, {
          method: "POST",
          headers: JSON_TYPE,
          body: JSON.stringify({ ...LEAD, description: `${LEAD.description} ${i}` }),
        });
        ids.push((await res.json()).request_id);
      }
    }
    for (const id of ids.slice(0, 2)) {
      assert.equal((await reviewCli(kvPath, "approve", id)).code, 0);
    }
    // Backdate one decision by 10 days, as if it were made then.
    const kv = await Deno.openKv(kvPath);
    const entry = await kv.get<{ decision: { decided_at: string } }>(["submissions", ids[0]!]);
    const decided = Date.parse(entry.value!.decision.decided_at);
    entry.value!.decision.decided_at = new Date(Date.now() - 10 * 86_400_000).toISOString();
    // The decision index moves with it, as a decision made then would have written it.
    await kv.atomic().set(entry.key, entry.value)
      .delete(decidedIndexKey(decided, ids[0]!))
      .set(decidedIndexKey(Date.parse(entry.value!.decision.decided_at), ids[0]!), true)
      .commit();
    kv.close();

    await using second = await startService({ KV_PATH: kvPath, SUBMISSION_RETENTION_DAYS: "7" });
    const purged = await second.waitFor((r) => r.msg === "retention purge");
    assert.equal(purged.erased, 1);
    const left = (await reviewListJson(kvPath)).map((i) => i.request_id);
    // Newest first.
    assert.deepEqual(
      left,
      ids.slice(1).reverse(),
      "the recent decision and the pending one are kept",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("against the real process: with the webhook down, every notice is tried, quotes behind 110 leads too, each signed with its time", async () => {
  const seen = new Map<string, number>();
  const secret = "0123456789abcdef-e2e";
  let verified = 0;
  let attempts = 0;
  const verify = await documentedWebhookVerifier();
  const hook = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.text();
    const valid = await verify(secret, req.headers.get("x-dcfs-signature"), body);
    // Both counted together, after the check: an attempt still being checked is in neither.
    attempts++;
    if (valid) verified++;
    const id = JSON.parse(body).request_id;
    seen.set(id, (seen.get(id) ?? 0) + 1);
    return new Response(null, { status: 503 });
  });
  try {
    await using service = await startServiceOnTempKv({
      RATE_LIMIT_SUBMIT: "0",
      RATE_LIMIT_SUBMIT_GLOBAL: "0",
      REVIEW_WEBHOOK_URL: `http://127.0.0.1:${hook.addr.port}/review`,
      REVIEW_WEBHOOK_SECRET: secret,
    });
    const ids: string[] = [];
    const submit = async (path: string, body: unknown) => {
      const res = await fetch(`${service.baseUrl}${path}`, {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 202);
      ids.push((await res.json()).request_id);
    };
    for (let i = 0; i < 110; i++) await submit("/api/v1/intake", LEAD);
    for (let i = 0; i < 3; i++) await submit("/api/v1/quotes", QUOTE);
    for (let i = 0; i < 100 && ids.some((id) => !seen.has(id)); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(ids.filter((id) => !seen.has(id)), [], "never attempted");
    assert.equal(verified, attempts, "every attempt carried a valid t=…,v1=… signature");
  } finally {
    await hook.shutdown();
  }
});
