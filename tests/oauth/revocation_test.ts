import assert from "node:assert/strict";
import {
  basic,
  bearerGet,
  createApp,
  issueToken,
  registerClient,
  revokeRequest,
} from "../_helpers.ts";

Deno.test("POST /oauth2/revoke revokes the client's own token at once", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const before = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(before.status, 200);
  await before.body?.cancel();

  const res = await revokeRequest(app, client, token);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(await res.json(), {}, "an empty JSON object (RFC 7009 §2.2 allows any body)");

  const after = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(after.status, 401);
  assert.match(after.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  await after.body?.cancel();
});

Deno.test("POST /oauth2/revoke answers 200 for unknown, expired and already revoked tokens (RFC 7009 §2.2)", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  await t.step("unknown", async () => {
    const res = await revokeRequest(app, client, "dcfs_at_unknown");
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("already revoked", async () => {
    const token = await issueToken(app, client);
    for (let i = 0; i < 2; i++) {
      const res = await revokeRequest(app, client, token);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  });
  await t.step("expired", async () => {
    const token = await issueToken(app, client);
    app.clock.advance(901_000);
    const res = await revokeRequest(app, client, token);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

Deno.test("POST /oauth2/revoke refuses a token issued to another client and leaves it valid", async () => {
  await using app = await createApp();
  const owner = await registerClient(app);
  const other = await registerClient(app);
  const token = await issueToken(app, owner);
  const res = await revokeRequest(app, other, token);
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  assert.equal((await res.json()).error, "unauthorized_client");
  const still = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(still.status, 200);
  await still.body?.cancel();
});

Deno.test("POST /oauth2/revoke requires client authentication", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  for (
    const [name, auth] of [
      ["no credentials", ""],
      ["a wrong secret", basic(client.client_id, "nope")],
      ["an unknown client", basic("agt_x", client.client_secret)],
    ]
  ) {
    await t.step(`${name} → 401 invalid_client, token untouched`, async () => {
      const res = await app.request("/oauth2/revoke", {
        method: "POST",
        headers: { Authorization: auth!, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
      });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Basic /);
      assert.equal((await res.json()).error, "invalid_client");
    });
  }
  const still = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(still.status, 200);
  await still.body?.cancel();
});

Deno.test("POST /oauth2/revoke without token is 400 invalid_request", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  for (const body of ["", "token_type_hint=access_token", "token=", "token=a&token=b"]) {
    await t.step(JSON.stringify(body), async () => {
      const res = await app.request("/oauth2/revoke", {
        method: "POST",
        headers: {
          Authorization: basic(client.client_id, client.client_secret),
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body,
      });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error, "invalid_request");
    });
  }
});

Deno.test("POST /oauth2/revoke answers 200 for another client's expired token (SPEC §3)", async () => {
  await using app = await createApp();
  const owner = await registerClient(app);
  const other = await registerClient(app);
  const token = await issueToken(app, owner);
  app.clock.advance(901_000);
  const res = await revokeRequest(app, other, token);
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("POST /oauth2/revoke refuses credentials in the body like the token endpoint", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  for (
    const [name, extra] of [
      ["client_secret in the body", { client_secret: client.client_secret }],
      ["client_assertion in the body", { client_assertion: "x.y.z" }],
      ["a body client_id naming another client", { client_id: "agt_other" }],
    ] as const
  ) {
    await t.step(`${name} → 401 invalid_client`, async () => {
      const res = await app.request("/oauth2/revoke", {
        method: "POST",
        headers: {
          Authorization: basic(client.client_id, client.client_secret),
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token, ...extra }).toString(),
      });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error, "invalid_client");
    });
  }
  const still = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(still.status, 200);
  await still.body?.cancel();
});
