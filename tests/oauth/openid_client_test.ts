/**
 * End to end with openid-client 6.9.0, a generic OAuth library that knows nothing of this
 * service: RFC 8414 discovery, RFC 7591 dynamic client registration from the metadata's
 * `registration_endpoint` alone, then the client-credentials grant with the secret it got,
 * and a protected read with the token. Over a real port.
 */

import assert from "node:assert/strict";
import * as client from "npm:openid-client@6.9.0";
import { listen } from "../_helpers.ts";

Deno.test("openid-client's dynamicClientRegistration registers from the metadata alone, then obtains a token", async () => {
  await using app = await listen();
  const base = new URL(app.baseUrl);
  const config = await client.dynamicClientRegistration(
    base,
    {
      client_name: "openid-client test",
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "client_secret_basic",
      scope: "services:read",
    },
    // Without this the library sends the secret in the body (client_secret_post), which the
    // service refuses, naming client_secret_basic.
    client.ClientSecretBasic(),
    { algorithm: "oauth2", execute: [client.allowInsecureRequests] },
  );
  const registered = config.clientMetadata();
  assert.match(registered.client_id, /^agt_/);
  assert.equal(typeof registered.client_secret, "string");
  assert.equal(registered.token_endpoint_auth_method, "client_secret_basic");

  const tokens = await client.clientCredentialsGrant(config, {
    scope: "services:read",
    resource: app.baseUrl,
  });
  assert.equal(tokens.token_type.toLowerCase(), "bearer");
  assert.equal(tokens.expires_in, 900);

  const res = await fetch(new URL("/api/v1/agent/services", base), {
    headers: { Authorization: `Bearer ${tokens.access_token}` },
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).ok, true);
});
