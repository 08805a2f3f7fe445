import assert from "node:assert/strict";
import { bearerGet, catalog, createApp, issueToken, registerClient } from "../_helpers.ts";

Deno.test("GET /api/v1/services returns the same catalog as the agent read, anonymously", async () => {
  await using app = await createApp();
  const res = await app.request("/api/v1/services");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(res.headers.get("cache-control"), "public, max-age=300");
  const body = await res.json();
  assert.equal(body.ok, true);
  assert.deepEqual(body.services, catalog().services);
  const client = await registerClient(app);
  const agent = await bearerGet(app, "/api/v1/agent/services", await issueToken(app, client));
  assert.deepEqual(await agent.json(), body);
});

Deno.test("GET /api/v1/locations?city= returns coverage for the city", async (t) => {
  await using app = await createApp();
  await t.step("a covered city, any case and without diacritics", async () => {
    const res = await app.request("/api/v1/locations?city=ZURICH");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const { ok, coverage } = await res.json();
    assert.equal(ok, true);
    assert.deepEqual(coverage.query, { city: "ZURICH", country: null });
    assert.equal(coverage.covered, true);
    assert.equal(coverage.location.id, "zrh");
    assert.ok(coverage.services.length > 0);
    assert.equal(typeof coverage.response_time_hours, "number");
  });
  await t.step("an alias", async () => {
    const { coverage } = await (await app.request("/api/v1/locations?city=Frankfurt%20am%20Main"))
      .json();
    assert.equal(coverage.location.id, "fra");
  });
  await t.step(
    "an uncovered city lists the nearest covered cities with their distance",
    async () => {
      const { coverage } = await (await app.request("/api/v1/locations?city=Cologne")).json();
      assert.equal(coverage.covered, false);
      assert.equal(coverage.nearest.length, 3);
      assert.equal(typeof coverage.nearest[0].distance_km, "number");
    },
  );
  await t.step("an ambiguous city without country lists its candidates", async () => {
    const { coverage } = await (await app.request("/api/v1/locations?city=san%20jose")).json();
    assert.equal(coverage.match, "ambiguous");
    assert.equal(coverage.candidates.length, 5, "at most five");
    assert.deepEqual(coverage.candidates[0], { city: "San Jose", country: "US", covered: true });
  });
  await t.step("country narrows an ambiguous city", async () => {
    const { coverage } = await (await app.request("/api/v1/locations?city=san%20jose&country=us"))
      .json();
    assert.equal(coverage.covered, true);
    assert.deepEqual(coverage.query, { city: "san jose", country: "US" });
  });
});

Deno.test("GET /api/v1/locations without city returns the published list", async (t) => {
  await using app = await createApp();
  await t.step("all locations", async () => {
    const res = await app.request("/api/v1/locations");
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.ok, true);
    assert.deepEqual(body.locations, catalog().locations);
  });
  await t.step("only one country's with country=", async () => {
    const body = await (await app.request("/api/v1/locations?country=de")).json();
    assert.ok(body.locations.length >= 3);
    assert.ok(body.locations.every((l: { country: string }) => l.country === "DE"));
  });
});

Deno.test("GET /api/v1/locations rejects an empty or over-long city with 400 JSON", async (t) => {
  await using app = await createApp();
  for (
    const [query, path] of [
      ["city=", "city"],
      ["city=%20", "city"],
      [`city=${"a".repeat(101)}`, "city"],
      ["city=Paris&country=FRA", "country"],
      ["city=Paris&city=Lyon", "city"],
    ] as const
  ) {
    await t.step(query, async () => {
      const res = await app.request(`/api/v1/locations?${query}`);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
      const body = await res.json();
      assert.equal(body.ok, false);
      assert.equal(body.error, "invalid_query");
      assert.equal(body.issues[0].path, path);
    });
  }
});

Deno.test("public reads write nothing to the store", async () => {
  await using app = await createApp();
  for (const path of ["/api/v1/services", "/api/v1/locations", "/api/v1/locations?city=Oslo"]) {
    (await app.request(path)).body?.cancel();
  }
  assert.equal((await Array.fromAsync(app.kv.list({ prefix: [] }))).length, 0);
});
