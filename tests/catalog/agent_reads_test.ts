import assert from "node:assert/strict";
import { bearerGet, createApp, issueToken, registerClient } from "../_helpers.ts";

const RM = 'resource_metadata="https://api.test/.well-known/oauth-protected-resource"';

Deno.test("GET /api/v1/agent/* return the catalog with a token of the matching scope", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  await t.step("services:read → services", async () => {
    const res = await bearerGet(app, "/api/v1/agent/services", token);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "private, no-store");
    const body = await res.json();
    assert.equal(body.ok, true);
    assert.ok(body.services.length >= 10);
    assert.ok(body.services.every((s: { id: string }) => typeof s.id === "string"));
  });
  await t.step("locations:read → locations", async () => {
    const res = await bearerGet(app, "/api/v1/agent/locations", token);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.ok, true);
    assert.ok(body.locations.length >= 30);
  });
  await t.step("coverage:read → coverage for a city", async () => {
    const res = await bearerGet(app, "/api/v1/agent/coverage?city=zurich&country=ch", token);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.ok, true);
    assert.equal(body.coverage.covered, true);
    assert.equal(body.coverage.location.city, "Zürich");
  });
});

Deno.test("GET /api/v1/agent/* reads write nothing to the store", async () => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const snapshot = async () =>
    JSON.stringify(
      await Array.fromAsync(app.kv.list({ prefix: [] })),
      (_k, v) => typeof v === "bigint" ? String(v) : v,
    );
  const before = await snapshot();
  for (
    const path of [
      "/api/v1/agent/services",
      "/api/v1/agent/locations",
      "/api/v1/agent/coverage?city=Paris",
    ]
  ) {
    const res = await bearerGet(app, path, token);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  assert.equal(await snapshot(), before);
});

Deno.test("GET /api/v1/agent/services without a token is 401 with the RFC 9728 hint and no error code", async () => {
  await using app = await createApp();
  const res = await app.request("/api/v1/agent/services");
  assert.equal(res.status, 401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  assert.match(challenge, /^Bearer realm="https:\/\/api\.test"/);
  assert.ok(challenge.includes(RM));
  assert.ok(!challenge.includes("error="));
  assert.equal((await res.json()).ok, false);
});

Deno.test("GET /api/v1/agent/* refuse bad tokens with 401 invalid_token", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  const cases: [string, Record<string, string>][] = [
    ["an unknown token", {
      Authorization: "Bearer dcfs_at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    }],
    ["a malformed token", { Authorization: "Bearer a b c" }],
    ["an empty Bearer", { Authorization: "Bearer " }],
    ["the client secret as a token", { Authorization: `Bearer ${client.client_secret}` }],
  ];
  for (const [name, headers] of cases) {
    await t.step(name, async () => {
      const res = await app.request("/api/v1/agent/services", { headers });
      assert.equal(res.status, 401);
      const challenge = res.headers.get("www-authenticate") ?? "";
      assert.ok(challenge.includes('error="invalid_token"'), challenge);
      assert.ok(challenge.includes(RM));
      await res.body?.cancel();
    });
  }
  await t.step("the scheme name is case-insensitive", async () => {
    const res = await app.request("/api/v1/agent/services", {
      headers: { Authorization: `bEaReR ${token}` },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

Deno.test("GET /api/v1/agent/* never accept a token from the query or the body", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  await t.step("access_token query parameter", async () => {
    const res = await app.request(`/api/v1/agent/services?access_token=${token}`);
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });
  await t.step("access_token form body", async () => {
    const res = await app.request("/api/v1/agent/services", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `access_token=${token}`,
    });
    assert.equal(res.status, 405);
    await res.body?.cancel();
  });
});

Deno.test("GET /api/v1/agent/* refuse a token issued for another audience", async () => {
  await using kv = await Deno.openKv(":memory:");
  await using issuer = await createApp({ kv, env: { BASE_URL: "https://other.test" } });
  await using app = await createApp({ kv });
  const client = await registerClient(issuer);
  const token = await issueToken(issuer, client);
  const res = await bearerGet(app, "/api/v1/agent/services", token);
  assert.equal(res.status, 401);
  assert.match(res.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  await res.body?.cancel();
});

Deno.test("GET /api/v1/agent/* answer 403 insufficient_scope for a token without the scope", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client, "services:read");
  for (
    const [path, scope] of [["/api/v1/agent/locations", "locations:read"], [
      "/api/v1/agent/coverage?city=Paris",
      "coverage:read",
    ]]
  ) {
    await t.step(`${path} needs ${scope}`, async () => {
      const res = await bearerGet(app, path!, token);
      assert.equal(res.status, 403);
      const challenge = res.headers.get("www-authenticate") ?? "";
      assert.ok(challenge.includes('error="insufficient_scope"'));
      assert.ok(challenge.includes(`scope="${scope}"`));
      assert.ok(challenge.includes(RM));
      assert.equal((await res.json()).error, "insufficient_scope");
    });
  }
});

Deno.test("GET /api/v1/agent/coverage validates city and country", async (t) => {
  await using app = await createApp();
  const client = await registerClient(app);
  const token = await issueToken(app, client);
  for (
    const [query, path] of [
      ["", "city"],
      ["?country=DE", "city"],
      ["?city=", "city"],
      ["?city=%20%20", "city"],
      [`?city=${"x".repeat(101)}`, "city"],
      ["?city=Paris&country=Narnia", "country"],
      ["?city=Paris&city=Rome", undefined],
    ]
  ) {
    await t.step(`${query || "(no query)"} → 400`, async () => {
      const res = await bearerGet(app, `/api/v1/agent/coverage${query}`, token);
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.ok, false);
      assert.equal(body.error, "invalid_query");
      if (path) assert.equal(body.issues[0].path, path);
    });
  }
  await t.step("validation comes after authentication", async () => {
    const res = await app.request("/api/v1/agent/coverage");
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });
});
