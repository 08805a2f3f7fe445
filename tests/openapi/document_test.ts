/**
 * @module
 * The OpenAPI document: valid OpenAPI 3.1, generated from the whole route table,
 * and true to the service (examples, schemas, security and error codes).
 */

import assert from "node:assert/strict";
import { templatePath } from "../../src/http/paths.ts";
import { Validator } from "npm:@seriousme/openapi-schema-validator@2.11.0";
import type { z } from "zod";
import { buildRoutes } from "../../src/routes.ts";
import { SCOPES } from "../../src/oauth/scopes.ts";
import { openApiDocument, type OperationDoc, pathParameters } from "../../src/openapi/document.ts";
import { ApiErrorBody, OAuthErrorBody } from "../../src/openapi/components.ts";
import { route } from "../../src/http/router.ts";
import {
  basic,
  bearerGet,
  createApp,
  issueToken,
  post,
  registerClient,
  type TestApp,
} from "../_helpers.ts";
import { QUOTE } from "../_fixtures.ts";

type Json = Record<string, unknown>;
type Operation = Json & { security?: Record<string, string[]>[]; responses: Json };

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

async function servedDocument(app: TestApp): Promise<Json & { paths: Record<string, Json> }> {
  const res = await app.request("/api/v1/openapi.json");
  assert.equal(res.status, 200);
  return await res.json();
}

/** Every operation of the document as `["GET /path", operation]`. */
function operations(doc: { paths: Record<string, Json> }): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map((
        [method, op],
      ): [string, Operation] => [`${method.toUpperCase()} ${path}`, op as Operation])
  );
}

/** The documented routes: `GET /api/v1/services` → its doc. */
function documentedRoutes(app: TestApp): [string, OperationDoc][] {
  return buildRoutes(app.config, app.catalog).map((r) => [
    `${r.method} ${templatePath(r.pattern.pathname)}`,
    r.doc!,
  ]);
}

/** `| 400 | \`invalid_json\` | …` rows of the error table in docs/api.md, as "400 invalid_json". */
async function documentedErrors(): Promise<Set<string>> {
  const doc = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
  const section = doc.split(/^## Errors$/m)[1]?.split(/^## /m)[0] ?? "";
  return new Set(
    [...section.matchAll(/^\| (\d{3}) +\| `([a-z_]+)` /gm)].map((m) => `${m[1]} ${m[2]}`),
  );
}

function assertParses(schema: z.ZodType, value: unknown, what: string): void {
  const res = schema.safeParse(value);
  assert.ok(res.success, `${what}: ${res.error?.message}`);
}

Deno.test("GET /api/v1/openapi.json answers 200 with CORS * and a 5-minute public cache", async () => {
  await using app = await createApp();
  const res = await app.request("/api/v1/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(res.headers.get("cache-control"), "public, max-age=300");
  const doc = await res.json();
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.version, "1.0.0");
  assert.ok(doc.info.title && doc.info.description);
  assert.deepEqual(doc.servers, [{ url: "https://api.test" }]);
  // Generated from the table the handler dispatches on, serialised once.
  assert.deepEqual(
    doc,
    JSON.parse(
      JSON.stringify(
        openApiDocument(buildRoutes(app.config, app.catalog), app.config, app.catalog),
      ),
    ),
  );
  const again = await app.request("/api/v1/openapi.json");
  assert.equal(await again.text(), JSON.stringify(doc));
});

Deno.test("the OpenAPI document passes an OpenAPI 3.1 validator, and a broken one does not", async (t) => {
  await using app = await createApp();
  const doc = await servedDocument(app);

  await t.step("the served document is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const res = await validator.validate(doc);
    assert.equal(res.valid, true, JSON.stringify(res.errors, null, 2));
    assert.equal(validator.version, "3.1");
  });

  await t.step("the validator does reject broken documents", async () => {
    const breakages: Record<string, (d: Json & { paths: Record<string, Json> }) => void> = {
      "a parameter in an unknown place": (d) => {
        ((d.paths["/assets/{name}"]!.get as Operation).parameters as Json[])[0]!.in = "body";
      },
      "a dangling $ref": (d) => {
        const ok = (d.paths["/healthz"]!.get as Operation).responses["200"] as Json;
        ok.content = { "application/json": { schema: { $ref: "#/components/schemas/Nope" } } };
      },
      "a path without a leading slash": (d) => {
        d.paths["healthz"] = d.paths["/healthz"]!;
      },
      "an OAuth flow without tokenUrl": (d) => {
        const schemes = (d.components as Json).securitySchemes as Record<string, Json>;
        delete (schemes.oauth2!.flows as Record<string, Json>).clientCredentials!.tokenUrl;
      },
    };
    for (const [name, breakIt] of Object.entries(breakages)) {
      const broken = structuredClone(doc);
      breakIt(broken);
      const res = await new Validator().validate(broken);
      assert.equal(res.valid, false, name);
    }
  });
});

Deno.test("every route of the table is documented in paths, and nothing else is", async (t) => {
  await using app = await createApp();
  const doc = await servedDocument(app);
  const routes = buildRoutes(app.config, app.catalog);

  await t.step("every route carries a doc, and openApiDocument refuses one without", () => {
    const undocumented = routes.filter((r) => !r.doc).map((r) =>
      `${r.method} ${r.pattern.pathname}`
    );
    assert.deepEqual(undocumented, []);
    const bare = [route<null, OperationDoc>("GET", "/undocumented", () => new Response())];
    assert.throws(
      () => openApiDocument(bare, app.config, app.catalog),
      /GET \/undocumented has no OpenAPI doc/,
    );
  });

  await t.step("the paths hold exactly the table's methods and paths", () => {
    const table = routes.map((r) => `${r.method} ${templatePath(r.pattern.pathname)}`).sort();
    assert.deepEqual(operations(doc).map(([key]) => key).sort(), table);
    assert.equal(new Set(table).size, table.length);
  });

  await t.step("URLPattern parameters become required path parameters", () => {
    assert.equal(templatePath("/assets/:name"), "/assets/{name}");
    assert.deepEqual(pathParameters("/a/:x/b/:y"), ["x", "y"]);
    const op = doc.paths["/assets/{name}"]!.get as Operation;
    assert.deepEqual(
      (op.parameters as Json[]).map((p) => [p.name, p.in, p.required]),
      [["name", "path", true]],
    );
  });

  await t.step("operationIds are unique and every operation has a summary and a tag", () => {
    const ops = operations(doc).map(([, op]) => op);
    const ids = ops.map((op) => op.operationId);
    assert.equal(new Set(ids).size, ids.length);
    const tags = new Set((doc.tags as Json[]).map((tag) => tag.name));
    for (const op of ops) {
      assert.ok(op.summary, String(op.operationId));
      assert.ok((op.tags as string[]).every((tag) => tags.has(tag)), String(op.operationId));
    }
  });
});

Deno.test("the agent reads require their scope; token and revocation require Basic", async (t) => {
  await using app = await createApp();
  const doc = await servedDocument(app);
  const schemes = (doc.components as Json).securitySchemes as Record<string, Json>;
  const ops = Object.fromEntries(operations(doc));

  await t.step("the security schemes: Basic, OAuth 2.0 client credentials, Bearer", () => {
    assert.deepEqual(schemes.clientBasic, {
      ...schemes.clientBasic,
      type: "http",
      scheme: "basic",
    });
    assert.deepEqual(schemes.bearer, { ...schemes.bearer, type: "http", scheme: "bearer" });
    const flow = (schemes.oauth2!.flows as Record<string, Json>).clientCredentials!;
    assert.equal(schemes.oauth2!.type, "oauth2");
    assert.equal(flow.tokenUrl, "https://api.test/oauth2/token");
    assert.deepEqual(Object.keys(flow.scopes as Json), [...SCOPES]);
  });

  await t.step(
    "each agent read needs exactly its scope, through OAuth 2.0 or a Bearer token",
    () => {
      const expected = {
        "GET /api/v1/agent/services": "services:read",
        "GET /api/v1/agent/locations": "locations:read",
        "GET /api/v1/agent/coverage": "coverage:read",
      };
      for (const [key, scope] of Object.entries(expected)) {
        assert.deepEqual(ops[key]!.security, [{ oauth2: [scope] }, { bearer: [scope] }], key);
        assert.deepEqual(Object.keys(ops[key]!.responses).filter((s) => s < "500"), [
          "200",
          ...(key.endsWith("coverage") ? ["400"] : []),
          "401",
          "403",
        ]);
      }
    },
  );

  await t.step("token and revocation need client_secret_basic", () => {
    for (const key of ["POST /oauth2/token", "POST /oauth2/revoke"]) {
      assert.deepEqual(ops[key]!.security, [{ clientBasic: [] }], key);
      assert.ok(ops[key]!.responses["401"], key);
    }
  });

  await t.step("every other operation is anonymous", () => {
    const secured = Object.entries(ops).filter(([, op]) => op.security).map(([key]) => key);
    assert.deepEqual(secured.sort(), [
      "GET /api/v1/agent/coverage",
      "GET /api/v1/agent/locations",
      "GET /api/v1/agent/services",
      "POST /oauth2/revoke",
      "POST /oauth2/token",
    ]);
    assert.equal(doc.security, undefined);
  });

  await t.step(
    "without credentials the secured operations answer their documented 401",
    async () => {
      for (const key of Object.keys(ops).filter((k) => ops[k]!.security)) {
        const [method, path] = key.split(" ");
        const res = await app.request(`${path}?city=Zurich`, {
          method,
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: method === "POST" ? "grant_type=client_credentials" : undefined,
        });
        assert.equal(res.status, 401, key);
        assert.ok(res.headers.get("www-authenticate"), key);
        await res.body?.cancel();
      }
    },
  );
});

Deno.test("documented request examples are accepted by the real endpoints", async (t) => {
  await using app = await createApp();
  const docs = Object.fromEntries(documentedRoutes(app));

  for (const path of ["/api/v1/intake", "/api/v1/quotes"]) {
    await t.step(`POST ${path}: every example is 202 with the documented answer`, async () => {
      const doc = docs[`POST ${path}`]!;
      const examples = Object.entries(doc.requestBody!.examples!);
      assert.ok(examples.length >= 2);
      for (const [name, example] of examples) {
        const res = await post(app, path, example.value);
        assert.equal(res.status, 202, `${name}: ${await res.clone().text()}`);
        assertParses(doc.responses["202"]!.schema!, await res.json(), name);
      }
    });
  }

  await t.step("POST /agent/identity and POST /oauth2/token: every example succeeds", async () => {
    const registered = docs["POST /agent/identity"]!;
    let client: { client_id: string; client_secret: string } | undefined;
    for (const [name, example] of Object.entries(registered.requestBody!.examples!)) {
      const res = await post(app, "/agent/identity", example.value);
      assert.equal(res.status, 201, name);
      client = await res.json();
      assertParses(registered.responses["201"]!.schema!, client, name);
    }
    const token = docs["POST /oauth2/token"]!;
    for (const [name, example] of Object.entries(token.requestBody!.examples!)) {
      const res = await app.request("/oauth2/token", {
        method: "POST",
        headers: {
          Authorization: basic(client!.client_id, client!.client_secret),
          "Content-Type": token.requestBody!.contentType,
        },
        body: new URLSearchParams(example.value as Record<string, string>).toString(),
      });
      assert.equal(res.status, 200, name);
      assertParses(token.responses["200"]!.schema!, await res.json(), name);
    }
  });

  await t.step("POST /api/v1/mcp: the JSON-RPC examples are answered", async () => {
    const doc = docs["POST /api/v1/mcp"]!;
    for (const [name, example] of Object.entries(doc.requestBody!.examples!)) {
      const res = await post(app, "/api/v1/mcp", example.value, {
        Accept: "application/json, text/event-stream",
      });
      assert.equal(res.status, 200, name);
      assert.match(await res.text(), /"jsonrpc":"2.0"/);
    }
  });
});

Deno.test("every documented example matches the zod schema it illustrates", async () => {
  await using app = await createApp();
  for (const [key, doc] of documentedRoutes(app)) {
    for (const [name, example] of Object.entries(doc.requestBody?.examples ?? {})) {
      assertParses(doc.requestBody!.schema, example.value, `${key} request ${name}`);
    }
    for (const [status, response] of Object.entries(doc.responses)) {
      for (const [name, example] of Object.entries(response.examples ?? {})) {
        assertParses(response.schema!, example.value, `${key} ${status} ${name}`);
      }
    }
  }
});

Deno.test("documented errors use codes of docs/api.md's error table, with the same status", async () => {
  await using app = await createApp();
  const known = await documentedErrors();
  assert.ok(known.has("400 validation_failed"), "the error table of docs/api.md was not found");
  let checked = 0;
  for (const [key, doc] of documentedRoutes(app)) {
    for (const [status, response] of Object.entries(doc.responses)) {
      if (Number(status) < 400) continue;
      for (const [name, example] of Object.entries(response.examples ?? {})) {
        const code = (example.value as { error: string }).error;
        assert.ok(known.has(`${status} ${code}`), `${key} ${status} ${name}: ${code}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 30, `only ${checked} error examples`);
});

Deno.test("real answers match the documented schemas and content types", async (t) => {
  await using app = await createApp();
  const docs = documentedRoutes(app);

  await t.step("every anonymous GET", async () => {
    // A request to look up: the status read needs one that exists.
    const submitted = await post(app, "/api/v1/quotes", QUOTE);
    const requestId = String((await submitted.json()).request_id);
    for (const [key, doc] of docs) {
      // Reads that need a token or a query parameter are covered elsewhere.
      if (!key.startsWith("GET ") || doc.security || doc.query?.safeParse({}).success === false) {
        continue;
      }
      const path = key.slice(4).replace(
        /\{(\w+)\}/g,
        (_, name) => name === "request_id" ? requestId : String(doc.params![name]!.example),
      );
      const res = await app.request(path);
      assert.equal(res.status, 200, key);
      const ok = doc.responses["200"]!;
      const types = [ok.contentType ?? "application/json"].flat();
      const type = (res.headers.get("content-type") ?? "").split(";")[0]!;
      assert.ok(types.includes(type), `${key}: ${type}`);
      if (type.endsWith("json")) assertParses(ok.schema!, await res.json(), key);
      else await res.body?.cancel();
    }
  });

  await t.step("the agent reads with a token", async () => {
    const token = await issueToken(app, await registerClient(app));
    for (const [key, doc] of docs.filter(([, d]) => d.security?.length)) {
      if (!key.startsWith("GET ")) continue;
      const res = await bearerGet(app, `${key.slice(4)}?city=Zurich`, token);
      assert.equal(res.status, 200, key);
      assertParses(doc.responses["200"]!.schema!, await res.json(), key);
    }
  });

  await t.step("error bodies in both layouts", async () => {
    const api = await post(app, "/api/v1/intake", { email: "nope" });
    assert.equal(api.status, 400);
    assertParses(ApiErrorBody, await api.json(), "API error");
    const oauth = await post(app, "/agent/identity", { type: "verified_email" });
    assert.equal(oauth.status, 400);
    assertParses(OAuthErrorBody, await oauth.json(), "OAuth error");
  });
});
