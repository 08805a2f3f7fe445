import assert from "node:assert/strict";
import { createApp, registerClient } from "../_helpers.ts";

function register(
  app: Awaited<ReturnType<typeof createApp>>,
  body: string,
  type = "application/json",
) {
  return app.request("/agent/identity", {
    method: "POST",
    headers: { "Content-Type": type },
    body,
  });
}

Deno.test("POST /agent/identity registers an anonymous client with all read scopes by default", async () => {
  await using app = await createApp();
  const res = await register(app, JSON.stringify({ type: "anonymous" }));
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  assert.equal(res.headers.get("pragma"), "no-cache");
  const body = await res.json();
  assert.match(body.client_id, /^[A-Za-z0-9_-]+$/);
  assert.match(body.client_secret, /^[A-Za-z0-9_-]{43,}$/);
  assert.equal(body.client_id_issued_at, Math.floor(app.clock.now() / 1000));
  assert.equal(body.client_secret_expires_at, 0);
  assert.equal(body.scope, "services:read locations:read coverage:read");
  assert.deepEqual(body.grant_types, ["client_credentials"]);
  assert.equal(body.token_endpoint_auth_method, "client_secret_basic");
});

Deno.test("POST /agent/identity issues a 32-byte base64url secret after its prefix", async () => {
  await using app = await createApp();
  const { client_secret } = await registerClient(app);
  const raw = client_secret.slice(client_secret.lastIndexOf("_") + 1);
  // 32 bytes → 43 base64url characters; the prefix itself ends with "_".
  assert.ok(client_secret.endsWith(raw));
  assert.ok(client_secret.length - "dcfs_cs_".length === 43);
});

Deno.test("POST /agent/identity gives every client a distinct id and secret", async () => {
  await using app = await createApp();
  const a = await registerClient(app);
  const b = await registerClient(app);
  assert.notEqual(a.client_id, b.client_id);
  assert.notEqual(a.client_secret, b.client_secret);
});

Deno.test("POST /agent/identity accepts a subset of the read scopes", async () => {
  await using app = await createApp();
  const res = await register(
    app,
    JSON.stringify({ type: "anonymous", scope: "coverage:read  services:read" }),
  );
  assert.equal(res.status, 201);
  assert.equal((await res.json()).scope, "services:read coverage:read");
});

Deno.test("POST /agent/identity ignores unknown members such as client_name", async () => {
  await using app = await createApp();
  const res = await register(app, JSON.stringify({ type: "anonymous", client_name: "probe" }));
  assert.equal(res.status, 201);
  await res.body?.cancel();
});

Deno.test("POST /agent/identity rejects bad requests with OAuth-style errors", async (t) => {
  await using app = await createApp();
  const cases: [string, string, number, string, string?][] = [
    ["a non-string type", '{"type":1}', 400, "invalid_request"],
    [
      "an RFC 7591 request for another grant",
      '{"grant_types":["authorization_code"],"redirect_uris":["https://a.example/cb"]}',
      400,
      "invalid_client_metadata",
    ],
    [
      "an RFC 7591 request for client_secret_post",
      '{"token_endpoint_auth_method":"client_secret_post"}',
      400,
      "invalid_client_metadata",
    ],
    ["an unsupported identity type", '{"type":"verified_email"}', 400, "unsupported_identity_type"],
    ["a write scope", '{"type":"anonymous","scope":"orders:write"}', 400, "invalid_scope"],
    [
      "an unknown scope",
      '{"type":"anonymous","scope":"services:read admin"}',
      400,
      "invalid_scope",
    ],
    [
      "a non-string scope",
      '{"type":"anonymous","scope":["services:read"]}',
      400,
      "invalid_request",
    ],
    ["a JSON array", "[]", 400, "invalid_request"],
    ["malformed JSON", "{", 400, "invalid_json"],
    ["a form body", "type=anonymous", 415, "invalid_request", "application/x-www-form-urlencoded"],
  ];
  for (const [name, body, status, error, type] of cases) {
    await t.step(`${name} → ${status} ${error}`, async () => {
      const res = await register(app, body, type);
      assert.equal(res.status, status);
      assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
      const json = await res.json();
      assert.equal(json.error, error);
      assert.equal(typeof json.error_description, "string");
    });
  }
  // Nothing was stored by any of the failures.
  const stored = await Array.fromAsync(app.kv.list({ prefix: ["clients"] }));
  assert.equal(stored.length, 0);
});

Deno.test("POST /agent/identity takes an RFC 7591 registration and answers its fields", async (t) => {
  await using app = await createApp();
  await t.step("type defaults to anonymous; the RFC 7591 fields are answered", async () => {
    const res = await register(
      app,
      JSON.stringify({
        client_name: "procurement agent",
        grant_types: ["client_credentials"],
        token_endpoint_auth_method: "client_secret_basic",
        scope: "services:read",
      }),
    );
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.match(body.client_id, /^agt_/);
    assert.equal(typeof body.client_secret, "string");
    assert.equal(typeof body.client_id_issued_at, "number");
    assert.equal(body.client_secret_expires_at, 0);
    assert.deepEqual(body.grant_types, ["client_credentials"]);
    assert.equal(body.token_endpoint_auth_method, "client_secret_basic");
    assert.equal(body.scope, "services:read");
  });
  await t.step("errors name the allowed values", async () => {
    const typed = await (await register(app, '{"type":"verified_email"}')).json();
    assert.match(typed.error_description, /anonymous/);
    const grant = await (await register(app, '{"grant_types":["implicit"]}')).json();
    assert.match(grant.error_description, /only hold client_credentials; not supported: implicit/);
    const method = await (await register(
      app,
      '{"token_endpoint_auth_method":"private_key_jwt"}',
    )).json();
    assert.match(method.error_description, /must be client_secret_basic/);
  });
});

Deno.test("POST /agent/identity refuses an empty token_endpoint_auth_method", async () => {
  await using app = await createApp();
  const res = await register(app, '{"token_endpoint_auth_method":""}');
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, "invalid_client_metadata");
});
