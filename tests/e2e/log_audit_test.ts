/**
 * A log audit: the real service (`deno task start`) runs a full flow — discovery,
 * registration, tokens, protected reads, revocation, REST and MCP submissions and a
 * set of error cases — while its log output is captured. No credential and none of
 * the submitters' personal data may appear in it, and every line is a JSON object
 * with a `level`.
 */

import assert from "node:assert/strict";
import { basic } from "../_helpers.ts";
import { initializeRequest } from "../_fixtures.ts";
import { startService } from "../_service.ts";

/** Distinctive personal data: anything found in the log came from these requests. */
const PERSON = {
  email: "zelda.quartermaine@pii-audit.example",
  contact_name: "Zelda Quartermaine",
  phone: "+41 44 987 65 43",
  company: "Quartermaine Hyperscale AG",
  site_address: "Birkenweg 77, 8304 Wallisellen",
  description: "Replace failed PSU in rack Q7 for Zelda's purple cage",
};
const MCP_PERSON = {
  email: "olaf.mcpwitness@pii-audit.example",
  contact_name: "Olaf Mcpwitness",
  phone: "+49 30 555 01 234",
  company: "Mcpwitness Colocation GmbH",
  site_address: "Lindenstrasse 12, 10969 Berlin",
  description: "Audit the blue suite cabling for Olaf's team",
};
const INVALID_PERSON = {
  email: "ursula.rejected@pii-audit.example",
  contact_name: "Ursula Invalidsdottir",
  phone: "+33 1 70 36 99 88",
  company: "Rejected Racks SARL",
  site_address: "12 rue de la Validation, 75011 Paris",
  description: "A description that fails validation for Ursula",
};
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
const MCP_HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "MCP-Protocol-Version": "2025-11-25",
};

async function send(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(url, init);
  return { status: res.status, text: await res.text() };
}

/** The JSON of a JSON-RPC answer, whether sent as JSON or as one SSE event. */
function rpcResult(text: string): { result?: Record<string, unknown>; error?: unknown } {
  const data = text.split("\n").find((l) => l.startsWith("data: "));
  return JSON.parse(data ? data.slice(6) : text);
}

Deno.test("the service's log holds no credentials and no personal data after a full flow", async (t) => {
  await using service = await startService();
  const base = service.baseUrl;
  const secrets: string[] = [];
  const submissions: string[] = [];

  await t.step("discovery", async () => {
    for (
      const path of [
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource",
        "/.well-known/mcp.json",
        "/healthz",
      ]
    ) {
      assert.equal((await send(`${base}${path}`)).status, 200, path);
    }
  });

  let client = { client_id: "", client_secret: "" };
  let token = "";
  await t.step("registration, token and protected reads", async () => {
    const reg = await send(`${base}/agent/identity`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "anonymous", client_name: PERSON.contact_name }),
    });
    assert.equal(reg.status, 201, reg.text);
    client = JSON.parse(reg.text);
    secrets.push(client.client_secret);

    const tok = await send(`${base}/oauth2/token`, {
      method: "POST",
      headers: {
        Authorization: basic(client.client_id, client.client_secret),
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: "client_credentials", resource: base }).toString(),
    });
    assert.equal(tok.status, 200, tok.text);
    token = JSON.parse(tok.text).access_token;
    secrets.push(token);

    for (
      const path of [
        "/api/v1/agent/services",
        "/api/v1/agent/locations",
        "/api/v1/agent/coverage?city=Zurich&country=CH",
      ]
    ) {
      const res = await send(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
  });

  await t.step("a lead and a quote over REST", async () => {
    const lead = await send(`${base}/api/v1/intake`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...PERSON, city: "Zurich" }),
    });
    assert.equal(lead.status, 202, lead.text);
    submissions.push(JSON.parse(lead.text).request_id);

    const quote = await send(`${base}/api/v1/quotes`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "audit-quote-1" },
      body: JSON.stringify({
        ...PERSON,
        city: "Zurich",
        country: "CH",
        service_type: "remote-hands",
        engineer_count: 1,
        estimated_hours: 2,
      }),
    });
    assert.equal(quote.status, 202, quote.text);
    submissions.push(JSON.parse(quote.text).request_id);
  });

  await t.step("MCP tool calls without an Origin", async () => {
    const init = await send(`${base}/api/v1/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify(initializeRequest("log-audit")),
    });
    assert.equal(init.status, 200, init.text);
    const calls = [
      ["submit_lead", { email: MCP_PERSON.email, description: MCP_PERSON.description }],
      ["request_quote", {
        ...MCP_PERSON,
        city: "Frankfurt am Main",
        service_type: "structured-cabling",
      }],
    ] as const;
    for (const [i, [name, args]] of calls.entries()) {
      const res = await send(`${base}/api/v1/mcp`, {
        method: "POST",
        headers: MCP_HEADERS,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2 + i,
          method: "tools/call",
          params: { name, arguments: args },
        }),
      });
      assert.equal(res.status, 200, res.text);
      const out = rpcResult(res.text).result as { structuredContent?: { request_id?: string } };
      assert.ok(out?.structuredContent?.request_id, `${name}: ${res.text}`);
      submissions.push(out.structuredContent.request_id);
    }
    // A tool call that fails validation, carrying personal data.
    const bad = await send(`${base}/api/v1/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "submit_lead", arguments: { ...INVALID_PERSON, email: "not-an-email" } },
      }),
    });
    assert.equal(bad.status, 200, bad.text);
    assert.equal(rpcResult(bad.text).result?.isError, true);
  });

  await t.step("error cases carrying credentials and personal data", async () => {
    const cases: [string, RequestInit, number][] = [
      // Bad credentials: a real id with a wrong secret, and the real secret in the body.
      ["/oauth2/token", {
        method: "POST",
        headers: {
          Authorization: basic(client.client_id, `${client.client_secret}x`),
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: "grant_type=client_credentials",
      }, 401],
      ["/oauth2/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: client.client_id,
          client_secret: client.client_secret,
        }).toString(),
      }, 401],
      // Bad JSON with personal data in it.
      ["/api/v1/intake", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: `{"email":"${INVALID_PERSON.email}","description":"${INVALID_PERSON.description}"`,
      }, 400],
      // A validation failure whose body is full of personal data.
      ["/api/v1/quotes", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...INVALID_PERSON, city: "Zurich", service_type: "teleportation" }),
      }, 400],
      ["/api/v1/intake", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...INVALID_PERSON, phone: INVALID_PERSON.phone, email: "nope" }),
      }, 400],
      // A 404 with an email address (and a phone number) in the path.
      [`/api/v1/contacts/${PERSON.email}`, {}, 404],
      [`/api/v1/contacts/${encodeURIComponent(PERSON.phone)}/${INVALID_PERSON.email}`, {}, 404],
      // A token in the query string (not supported: 401) and in a path segment.
      [`/api/v1/agent/services?access_token=${token}`, {}, 401],
      [`/api/v1/services?access_token=${token}&email=${PERSON.email}`, {}, 200],
      [`/api/v1/agent/${token}`, {}, 404],
      // A secret sent as a Bearer token.
      [
        "/api/v1/agent/services",
        { headers: { Authorization: `Bearer ${client.client_secret}` } },
        401,
      ],
    ];
    for (const [path, init, status] of cases) {
      const res = await send(`${base}${path}`, init);
      assert.equal(res.status, status, `${path}: ${res.text}`);
    }
  });

  await t.step("revocation, then the token is refused", async () => {
    const rev = await send(`${base}/oauth2/revoke`, {
      method: "POST",
      headers: {
        Authorization: basic(client.client_id, client.client_secret),
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
    });
    assert.equal(rev.status, 200, rev.text);
    const after = await send(`${base}/api/v1/agent/services`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(after.status, 401);
  });

  await t.step(
    "every submission's review notice is logged, then the service stops on SIGTERM",
    async () => {
      assert.equal(submissions.length, 4);
      for (let i = 0; i < submissions.length; i++) {
        await service.waitFor((r) => r.msg === "submission queued for review");
      }
      const noticed = service.logs.filter((r) => r.msg === "submission queued for review")
        .map((r) => r.submission_id);
      assert.deepEqual(new Set(noticed), new Set(submissions));
      service.child.kill("SIGTERM");
      await service.waitFor((r) => r.msg === "stopped");
      assert.equal((await service.child.status).code, 0);
    },
  );

  await t.step("every log line is a JSON object with a level", () => {
    assert.ok(service.logs.length >= 30, `only ${service.logs.length} log lines`);
    for (const record of service.logs) {
      assert.equal(typeof record, "object");
      assert.ok(record !== null && !Array.isArray(record), JSON.stringify(record));
      assert.ok(["info", "warn", "error"].includes(record.level as string), JSON.stringify(record));
    }
    assert.deepEqual(service.logs.filter((r) => r.level === "error"), [], "no request failed");
    // The flow really was logged: the access log has the 404, without the path the
    // caller typed (it held an email address).
    assert.ok(
      service.logs.some((r) => r.status === 404 && r.path === "(no route)"),
      "the 404 with an email in its path was logged, path left out",
    );
  });

  await t.step(
    "the log holds no secret, token, email address, phone number or personal text",
    () => {
      const log = JSON.stringify(service.logs);
      for (const secret of secrets) assert.ok(!log.includes(secret), "a credential is in the log");
      assert.ok(!log.includes("dcfs_cs_"), "a client secret is in the log");
      assert.ok(!log.includes("dcfs_at_"), "an access token is in the log");
      assert.ok(!log.includes("access_token"), "a query string is in the log");
      assert.doesNotMatch(log, EMAIL, "an email address is in the log");
      for (const person of [PERSON, MCP_PERSON, INVALID_PERSON]) {
        for (const [field, value] of Object.entries(person)) {
          assert.ok(!log.includes(value), `${field} "${value}" is in the log`);
          // Also escaped, percent-encoded, or as the words it is made of.
          assert.ok(!log.includes(JSON.stringify(value).slice(1, -1)), `${field} (escaped)`);
          assert.ok(!log.includes(encodeURIComponent(value)), `${field} (percent-encoded)`);
        }
        const digits = person.phone.replace(/\D/g, "");
        assert.ok(!log.replace(/\D/g, "").includes(digits), `phone ${person.phone} (digits)`);
        for (const word of person.contact_name.split(" ")) {
          assert.ok(!log.toLowerCase().includes(word.toLowerCase()), `name part ${word}`);
        }
      }
    },
  );
});
