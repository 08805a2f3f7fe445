/**
 * The catalog says what notice applies at each covered site (issue 39, point 7): each
 * service's `notice_hours_by_location` and each coverage answer's `services[].notice_hours`
 * are the notice an estimate applies there (`basis.notice_hours`), over REST and MCP; a
 * service whose own notice is 0 (remote hands) is not published as 0 at a site.
 */

import assert from "node:assert/strict";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp, mcpToolCall, type TestApp } from "../_helpers.ts";

interface Service {
  id: string;
  minimum_notice_hours: number;
  notice_hours_by_location: Record<string, number>;
}

interface Location {
  id: string;
  city: string;
  country: string;
  response_time_hours: number;
  services: string[];
}

async function getJson(app: TestApp, path: string) {
  const res = await app.request(path);
  assert.equal(res.status, 200, path);
  return await res.json();
}

Deno.test("the catalog states each service's notice at each location, as estimates apply it, over REST and MCP", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const { services } = await getJson(app, "/api/v1/services") as { services: Service[] };
  const { locations } = await getJson(app, "/api/v1/locations") as { locations: Location[] };

  await t.step("list_services answers the same catalog", async () => {
    const tool = await mcpToolCall(app, "list_services", {});
    assert.deepEqual(tool.structuredContent.services, services);
  });
  await t.step("each service names every location that offers it, and no other", () => {
    for (const s of services) {
      const offering = locations.filter((l) => l.services.includes(s.id)).map((l) => l.id);
      assert.deepEqual(Object.keys(s.notice_hours_by_location), offering, s.id);
    }
  });
  await t.step("remote hands needs no notice of its own, and the site's response time", () => {
    const remote = services.find((s) => s.id === "remote-hands")!;
    assert.equal(remote.minimum_notice_hours, 0);
    assert.equal(remote.notice_hours_by_location.fra, 2);
    assert.equal(remote.notice_hours_by_location.zrh, 4);
    assert.equal(remote.notice_hours_by_location.osl, 8);
    for (const l of locations.filter((l) => l.services.includes("remote-hands"))) {
      assert.equal(remote.notice_hours_by_location[l.id], l.response_time_hours, l.id);
    }
  });
  for (const l of locations) {
    await t.step(`${l.city}: the coverage answer and every estimate there agree`, async () => {
      const place = { city: l.city, country: l.country };
      const rest = await getJson(app, `/api/v1/locations?${new URLSearchParams(place)}`);
      const tool = await mcpToolCall(app, "check_coverage", place);
      assert.deepEqual(tool.structuredContent, rest);
      const offered = rest.coverage.services as { id: string; notice_hours: number }[];
      assert.deepEqual(offered.map((s) => s.id), l.services);
      for (const { id, notice_hours } of offered) {
        const stated = services.find((s) => s.id === id)!.notice_hours_by_location[l.id];
        assert.equal(notice_hours, stated, id);
        const query = new URLSearchParams({ ...place, service_type: id });
        const estimate = await getJson(app, `/api/v1/estimate?${query}`);
        assert.equal(estimate.budget_estimate.basis.notice_hours, stated, `${id} estimate`);
      }
    });
  }
});

Deno.test("/llms.txt and docs/api.md say where the notice at a site is stated", async () => {
  await using app = await createApp();
  const llms = await (await app.request("/llms.txt")).text();
  assert.match(llms, /larger of its own `minimum_notice_hours` and the site's response time/);
  assert.match(llms, /per location \(`notice_hours_by_location`\).*per service \(`notice_hours`\)/);
  const api = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
  assert.match(api, /remote hands: 2 h in Frankfurt, 4 h in Zürich, 8 h in\s+Oslo, never 0/);
});
