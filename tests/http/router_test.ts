import assert from "node:assert/strict";
import { HttpError } from "../../src/http/errors.ts";
import {
  compileRoutes,
  matchRoute,
  respond,
  route,
  type RouteTable,
} from "../../src/http/router.ts";
import { createApp } from "../_helpers.ts";

/** The router as createHandler uses it: match the path, then respond (a miss is the app's 404). */
function dispatch<C>(table: RouteTable<C>, req: Request, ctx: C): Promise<Response> {
  const matched = matchRoute(table, new URL(req.url).pathname);
  assert.ok(matched, `no route matches ${req.url}`);
  return Promise.resolve().then(() => respond(matched, req, ctx));
}

const routes = compileRoutes([
  route<null>("GET", "/items/:id", (_req, _ctx, p) => Response.json({ id: p.id }), { cors: true }),
  route<null>("POST", "/items/:id", () => {
    throw new HttpError(400, "invalid_request", "bad", { headers: { "X-Why": "test" } });
  }, { errors: "oauth" }),
  route<null>("DELETE", "/items/:id", () => {
    throw new Error("boom");
  }),
]);
const call = (method: string, path: string) =>
  dispatch(routes, new Request(`http://x${path}`, { method }), null);

Deno.test("router: the first matching route answers, with path parameters", async () => {
  const res = await call("GET", "/items/42");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { id: "42" });
});

Deno.test("router: an unknown path is 404 JSON", async () => {
  assert.equal(matchRoute(routes, "/nothing"), undefined);
  await using app = await createApp();
  const res = await app.request("/nothing");
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), {
    ok: false,
    error: "not_found",
    message: "no resource at /nothing",
  });
});

Deno.test("router: a known path with another method is 405 with Allow", async () => {
  const res = await call("PUT", "/items/1");
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET, POST, DELETE, HEAD, OPTIONS");
  assert.equal((await res.json()).error, "method_not_allowed");
});

Deno.test("router: a 405 carries the path's CORS grant, so a browser can read it", async (t) => {
  await using app = await createApp({ env: { ALLOWED_ORIGINS: "https://partner.example" } });
  // A 2025-11-25 MCP client in a page opens GET /api/v1/mcp for its event stream.
  await t.step("an allowed origin is granted, with Vary: Origin", async () => {
    const res = await app.request("/api/v1/mcp", {
      headers: { Origin: "https://partner.example", Accept: "text/event-stream" },
    });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("access-control-allow-origin"), "https://partner.example");
    assert.match(res.headers.get("vary") ?? "", /Origin/);
    assert.equal((await res.json()).error, "method_not_allowed");
  });
  await t.step("another origin is not", async () => {
    const res = await app.request("/api/v1/mcp", { headers: { Origin: "https://evil.example" } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    await res.body?.cancel();
  });
  await t.step("a public read's path grants any origin", async () => {
    const res = await app.request("/api/v1/services", {
      method: "DELETE",
      headers: { Origin: "https://evil.example" },
    });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    await res.body?.cancel();
  });
});

Deno.test("router: HEAD runs the GET route and drops the body", async () => {
  const res = await call("HEAD", "/items/1");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(await res.text(), "");
});

Deno.test("router: OPTIONS answers 204 with Allow and CORS preflight on CORS routes", async () => {
  const res = await call("OPTIONS", "/items/1");
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("allow"), "GET, POST, DELETE, HEAD, OPTIONS");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.match(res.headers.get("access-control-allow-headers") ?? "", /Authorization/);
});

Deno.test("router: an HttpError is rendered in the route's error style with its headers", async () => {
  const res = await call("POST", "/items/1");
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("x-why"), "test");
  assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
  assert.deepEqual(await res.json(), { error: "invalid_request", error_description: "bad" });
});

Deno.test("router: any other exception propagates to the caller", async () => {
  await assert.rejects(call("DELETE", "/items/1"), /boom/);
});

Deno.test("router: fixed paths and parameter patterns side by side", async (t) => {
  const table = compileRoutes([
    route<null>("GET", "/a/list", () => Response.json({ fixed: true })),
    route<null>("POST", "/a/list", () => new Response(null, { status: 204 })),
    route<null>("GET", "/b/:id", (_req, _ctx, p) => Response.json({ id: p.id })),
  ]);
  const send = (method: string, path: string) =>
    dispatch(table, new Request(`http://x${path}`, { method }), null);
  await t.step("a fixed path is found with every method of its pattern in Allow", async () => {
    assert.deepEqual(await (await send("GET", "/a/list")).json(), { fixed: true });
    assert.equal((await send("POST", "/a/list")).status, 204);
    const res = await send("DELETE", "/a/list");
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, POST, HEAD, OPTIONS");
  });
  await t.step("matching is exact: case, trailing slash and encoding matter", () => {
    for (const path of ["/a/List", "/a/list/", "/a/%6Cist", "/a/list/x"]) {
      assert.equal(matchRoute(table, path), undefined, path);
    }
  });
  await t.step("a parameter pattern still gets its parameters", async () => {
    assert.deepEqual(await (await send("GET", "/b/x%20y")).json(), { id: "x%20y" });
  });
  await t.step("a parameter pattern that also matches a fixed path is refused", () => {
    assert.throws(
      () =>
        compileRoutes([
          route<null>("GET", "/c/all", () => new Response()),
          route<null>("POST", "/c/:id", () => new Response()),
        ]),
      /route \/c\/:id also matches \/c\/all/,
    );
  });
});

Deno.test("app routes: CORS * on discovery and public reads, none on OAuth endpoints", async (t) => {
  await using app = await createApp();
  for (
    const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/oauth-protected-resource",
    ]
  ) {
    await t.step(path, async () => {
      const res = await app.request(path, { headers: { Origin: "https://elsewhere.example" } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      await res.body?.cancel();
    });
  }
  await t.step("POST /oauth2/token preflight has no CORS grant", async () => {
    const res = await app.request("/oauth2/token", { method: "OPTIONS" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    assert.equal(res.headers.get("access-control-allow-origin"), null);
  });
  await t.step("GET /oauth2/token is 405 with Allow: POST, OPTIONS", async () => {
    const res = await app.request("/oauth2/token");
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    await res.body?.cancel();
  });
});
