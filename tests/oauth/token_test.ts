import assert from "node:assert/strict";
import {
  basic,
  bearerGet,
  createApp,
  issueToken,
  registerClient,
  tokenRequest,
} from "../_helpers.ts";
import { TOKEN_LIFETIME_S } from "../../src/oauth/token.ts";

Deno.test("POST /oauth2/token issues an opaque 900 s Bearer token for client credentials", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const res = await tokenRequest(app, client, {
    grant_type: "client_credentials",
    resource: app.config.baseUrl,
    scope: "services:read",
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  assert.equal(res.headers.get("pragma"), "no-cache");
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["access_token", "expires_in", "scope", "token_type"]);
  assert.equal(body.token_type, "Bearer");
  assert.equal(body.expires_in, 900);
  assert.equal(TOKEN_LIFETIME_S, 900);
  assert.equal(body.scope, "services:read");
  // Opaque: not a JWT, 32 random bytes base64url after a short prefix.
  assert.match(body.access_token, /^dcfs_at_[A-Za-z0-9_-]{43}$/);
  assert.equal(body.access_token.split(".").length, 1);
});

Deno.test("POST /oauth2/token grants all registered scopes when scope is omitted", async () => {
  await using app = await createApp();
  const client = await registerClient(app, "services:read locations:read");
  const res = await tokenRequest(app, client, { grant_type: "client_credentials" });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).scope, "services:read locations:read");
});

Deno.test("POST /oauth2/token tolerates a trailing slash on resource", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const res = await tokenRequest(app, client, {
    grant_type: "client_credentials",
    resource: `${app.config.baseUrl}/`,
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("POST /oauth2/token decodes form-encoded Basic credentials (RFC 6749 §2.3.1)", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  await t.step("percent-encoding of every character, as oauth4webapi does", async () => {
    const pct = (s: string) =>
      [...new TextEncoder().encode(s)].map((b) =>
        "%" + b.toString(16).toUpperCase().padStart(2, "0")
      ).join("");
    const res = await tokenRequest(app, client, { grant_type: "client_credentials" }, {
      Authorization: "Basic " + btoa(`${pct(client.client_id)}:${pct(client.client_secret)}`),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("no encoding at all, as most clients do", async () => {
    const res = await tokenRequest(app, client, { grant_type: "client_credentials" }, {
      Authorization: "Basic " + btoa(`${client.client_id}:${client.client_secret}`),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
  await t.step("a lower-case scheme name", async () => {
    const res = await tokenRequest(app, client, { grant_type: "client_credentials" }, {
      Authorization: "basic " + btoa(`${client.client_id}:${client.client_secret}`),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

Deno.test("POST /oauth2/token answers every authentication failure with 401 invalid_client", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const good = { grant_type: "client_credentials" };
  const cases: [string, Record<string, string>, Record<string, string> | string][] = [
    ["no Authorization header", { Authorization: "" }, good],
    [
      "a wrong secret",
      { Authorization: basic(client.client_id, client.client_secret + "x") },
      good,
    ],
    ["an unknown client", { Authorization: basic("agt_nobody", client.client_secret) }, good],
    ["another scheme", { Authorization: `Bearer ${client.client_secret}` }, good],
    ["base64 that is not base64", { Authorization: "Basic !!!!" }, good],
    ["base64 without a colon", { Authorization: "Basic " + btoa(client.client_id) }, good],
    ["an empty secret", { Authorization: basic(client.client_id, "") }, good],
    [
      "a malformed percent-escape",
      { Authorization: "Basic " + btoa(`${client.client_id}:%zz`) },
      good,
    ],
    ["credentials in the body only", { Authorization: "" }, {
      ...good,
      client_id: client.client_id,
      client_secret: client.client_secret,
    }],
    ["credentials in the body as well as the header", {}, {
      ...good,
      client_secret: client.client_secret,
    }],
    ["a body client_id that differs from the header", {}, { ...good, client_id: "agt_other" }],
    [
      "a bad body from an unauthenticated caller",
      { Authorization: "" },
      "grant_type=a&grant_type=b",
    ],
  ];
  const bodies = new Set<string>();
  for (const [name, headers, form] of cases) {
    await t.step(name, async () => {
      const res = await tokenRequest(app, client, form, headers);
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Basic realm="https:\/\/api\.test"/);
      assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
      const body = await res.json();
      assert.equal(body.error, "invalid_client");
      bodies.add(JSON.stringify(body));
    });
  }
  // Generic: the body never tells which part failed or whether the client exists. Only
  // credentials sent in the body are told to use HTTP Basic, whatever the client id.
  assert.deepEqual([...bodies].map((b) => JSON.parse(b).error_description).sort(), [
    "client authentication failed",
    "client authentication failed: send the client credentials only as an Authorization: " +
    "Basic header (client_secret_basic, RFC 6749 section 2.3.1), not in the body",
  ]);
});

Deno.test("POST /oauth2/token validates the request after authenticating the client", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app, "services:read coverage:read");
  const cases: [string, Record<string, string> | string, string, Record<string, string>?][] = [
    ["a missing grant_type", {}, "invalid_request"],
    ["an empty grant_type counts as missing", "grant_type=", "invalid_request"],
    [
      "a repeated parameter (RFC 6749 §3.1)",
      "grant_type=client_credentials&scope=services:read&scope=coverage:read",
      "invalid_request",
    ],
    [
      "a repeated grant_type",
      "grant_type=client_credentials&grant_type=client_credentials",
      "invalid_request",
    ],
    [
      "a malformed percent-escape",
      "grant_type=client_credentials&scope=%E0%A4%A",
      "invalid_request",
    ],
    [
      "the authorization_code grant",
      { grant_type: "authorization_code", code: "x" },
      "unsupported_grant_type",
    ],
    ["the password grant", { grant_type: "password" }, "unsupported_grant_type"],
    ["a foreign resource (RFC 8707)", {
      grant_type: "client_credentials",
      resource: "https://evil.test",
    }, "invalid_target"],
    ["a resource with a path", {
      grant_type: "client_credentials",
      resource: "https://api.test/api",
    }, "invalid_target"],
    [
      "several resources",
      "grant_type=client_credentials&resource=https%3A%2F%2Fapi.test&resource=https%3A%2F%2Fapi.test",
      "invalid_target",
    ],
    [
      "an unknown scope",
      { grant_type: "client_credentials", scope: "services:read orders:write" },
      "invalid_scope",
    ],
    ["a scope not registered for the client", {
      grant_type: "client_credentials",
      scope: "locations:read",
    }, "invalid_scope"],
    ["a JSON body", '{"grant_type":"client_credentials"}', "invalid_request", {
      "Content-Type": "application/json",
    }],
  ];
  for (const [name, form, error, headers] of cases) {
    await t.step(`${name} → 400 ${error}`, async () => {
      const res = await tokenRequest(app, client, form, headers);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
      assert.equal(res.headers.get("pragma"), "no-cache");
      const body = await res.json();
      assert.equal(body.error, error);
      assert.equal(typeof body.error_description, "string");
    });
  }
  assert.equal((await Array.fromAsync(app.kv.list({ prefix: ["tokens"] }))).length, 0);
});

Deno.test("an access token is valid at 899 s and refused at 901 s", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  app.clock.advance(899_000);
  const ok = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  app.clock.advance(2_000);
  const late = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(late.status, 401);
  assert.match(late.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  await late.body?.cancel();
});

Deno.test("an access token is refused at exactly 900 s", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  app.clock.advance(900_000);
  const res = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(res.status, 401);
  await res.body?.cancel();
});

Deno.test("an access token is stored only under its SHA-256 digest, with expires_at and audience", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const entries = await Array.fromAsync(app.kv.list({ prefix: ["tokens"] }));
  assert.equal(entries.length, 1);
  const [entry] = entries;
  assert.notEqual(entry!.key[1], token);
  assert.ok(!JSON.stringify(entry!.value).includes(token));
  assert.deepEqual(entry!.value, {
    client_id: client.client_id,
    scopes: ["services:read", "locations:read", "coverage:read"],
    audience: "https://api.test",
    issued_at: app.clock.now(),
    expires_at: app.clock.now() + 900_000,
  });
});

Deno.test("OAuth error_description only uses the characters RFC 6749 §5.2 allows", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const bodies = [
    "grant_type=client_credentials&scope=caf%C3%A9%22%5C",
    "gr%C3%A4nt=1&gr%C3%A4nt=2",
    "grant_type=%22quoted%22",
  ];
  for (const body of bodies) {
    const res = await tokenRequest(app, client, body);
    assert.equal(res.status, 400);
    const { error_description } = await res.json();
    assert.match(error_description, /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/, error_description);
  }
});

Deno.test("a registration that obtains no token within a day lapses", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  app.clock.advance(86_400_000);
  const res = await tokenRequest(app, client, { grant_type: "client_credentials" });
  assert.equal(res.status, 401);
  assert.equal((await res.json()).error, "invalid_client");
});

Deno.test("a registration lapses 30 days after its last token; every token issued extends it", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  app.clock.advance(86_400_000 - 1);
  await issueToken(app, client); // the first token: 30 days from now
  app.clock.advance(29 * 86_400_000);
  await issueToken(app, client); // extends the registration by 30 days from now
  app.clock.advance(29 * 86_400_000);
  await issueToken(app, client);
  const entry = await app.kv.get<{ expires_at: number }>(["clients", client.client_id]);
  assert.equal(entry.value?.expires_at, app.clock.now() + 30 * 86_400_000);
  app.clock.advance(30 * 86_400_000);
  const res = await tokenRequest(app, client, { grant_type: "client_credentials" });
  assert.equal(res.status, 401);
  assert.equal((await res.json()).error, "invalid_client");
});
