import assert from "node:assert/strict";
import { bearerGet, createApp, issueToken, registerClient, revokeRequest } from "../_helpers.ts";

async function tempKvFile(): Promise<{ path: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-kv-" });
  return { path: `${dir}/kv.sqlite3`, dir };
}

Deno.test("the KV file holds neither the client secret nor the access token in plaintext", async () => {
  const { path, dir } = await tempKvFile();
  let client, token;
  {
    const kv = await Deno.openKv(path);
    await using app = await createApp({ kv });
    client = await registerClient(app);
    token = await issueToken(app, client);
    kv.close();
  }
  const files = [...Deno.readDirSync(dir)].map((e) => `${dir}/${e.name}`);
  assert.ok(files.length >= 1);
  const dump = files.map((f) => new TextDecoder("latin1").decode(Deno.readFileSync(f))).join("");
  assert.ok(dump.includes(client.client_id), "sanity: the file does contain the client id");
  assert.ok(!dump.includes(client.client_secret), "client secret found in plaintext");
  assert.ok(!dump.includes(token), "access token found in plaintext");
  // Nor their random parts without the prefix.
  assert.ok(!dump.includes(client.client_secret.slice(8)));
  assert.ok(!dump.includes(token.slice(8)));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("two instances on one KV file share tokens, revocations and rate limits", async (t) => {
  const { path, dir } = await tempKvFile();
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  const env = { RATE_LIMIT_REGISTER: "2" };
  await using a = await createApp({ kv: kvA, env });
  await using b = await createApp({ kv: kvB, env });

  const client = await registerClient(a);
  const token = await issueToken(a, client);

  await t.step("a token issued on A is accepted on B", async () => {
    const res = await bearerGet(b, "/api/v1/agent/services", token);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("revoked on B, it is refused on A on the very next request", async () => {
    const revoke = await revokeRequest(b, client, token);
    assert.equal(revoke.status, 200);
    await revoke.body?.cancel();
    const res = await bearerGet(a, "/api/v1/agent/services", token);
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });
  await t.step("a rate limit counted on A holds on B", async () => {
    // registerClient above used one of A's two registrations for this address.
    await registerClient(a);
    const res = await b.request("/agent/identity", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"type":"anonymous"}',
    });
    assert.equal(res.status, 429);
    await res.body?.cancel();
  });
  kvA.close();
  kvB.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an expired token stays refused even while KV still returns its key", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  app.clock.advance(3_600_000);
  // The fake clock moved, KV's own clock did not: the key is still there.
  assert.equal((await Array.fromAsync(app.kv.list({ prefix: ["tokens"] }))).length, 1);
  const res = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(res.status, 401);
  await res.body?.cancel();
});
