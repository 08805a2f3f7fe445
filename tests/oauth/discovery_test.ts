import assert from "node:assert/strict";
import { createApp } from "../_helpers.ts";

Deno.test("GET /.well-known/oauth-authorization-server publishes RFC 8414 metadata", async () => {
  await using app = await createApp();
  const res = await app.request("/.well-known/oauth-authorization-server");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const m = await res.json();
  assert.equal(m.issuer, "https://api.test");
  assert.equal(m.token_endpoint, "https://api.test/oauth2/token");
  assert.equal(m.revocation_endpoint, "https://api.test/oauth2/revoke");
  assert.deepEqual(m.scopes_supported, ["services:read", "locations:read", "coverage:read"]);
  assert.deepEqual(m.grant_types_supported, ["client_credentials"]);
  assert.deepEqual(m.token_endpoint_auth_methods_supported, ["client_secret_basic"]);
  assert.deepEqual(m.revocation_endpoint_auth_methods_supported, ["client_secret_basic"]);
  assert.deepEqual(m.agent_auth, {
    identity_endpoint: "https://api.test/agent/identity",
    identity_types_supported: ["anonymous"],
  });
  assert.equal(m.register_uri, "https://api.test/agent/identity");
});

Deno.test("AS metadata advertises no claim or events endpoint (SPEC §5.4, §6), and registration_endpoint is the identity endpoint", async () => {
  await using app = await createApp();
  const m = await (await app.request("/.well-known/oauth-authorization-server")).json();
  for (
    const absent of [
      "claim_endpoint",
      "events_endpoint",
      "events_supported",
    ]
  ) {
    assert.equal(absent in m, false, absent);
  }
  // No write scope of any kind is published.
  assert.ok(m.scopes_supported.every((s: string) => s.endsWith(":read")));
  assert.equal(m.registration_endpoint, "https://api.test/agent/identity");
});

Deno.test("GET /.well-known/oauth-protected-resource publishes RFC 9728 metadata", async () => {
  await using app = await createApp();
  const res = await app.request("/.well-known/oauth-protected-resource");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const m = await res.json();
  assert.equal(m.resource, "https://api.test");
  assert.deepEqual(m.authorization_servers, ["https://api.test"]);
  assert.deepEqual(m.scopes_supported, ["services:read", "locations:read", "coverage:read"]);
  assert.deepEqual(m.bearer_methods_supported, ["header"]);
  assert.equal(typeof m.resource_name, "string");
});

Deno.test("discovery documents follow BASE_URL", async () => {
  await using app = await createApp({ env: { BASE_URL: "https://field.example.com/" } });
  const as = await (await app.request("/.well-known/oauth-authorization-server")).json();
  const pr = await (await app.request("/.well-known/oauth-protected-resource")).json();
  assert.equal(as.issuer, "https://field.example.com");
  assert.equal(as.token_endpoint, "https://field.example.com/oauth2/token");
  assert.equal(pr.resource, "https://field.example.com");
});
