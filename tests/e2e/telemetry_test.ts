/**
 * OpenTelemetry from the real process (`deno task start` with `OTEL_DENO=true`), exported
 * over OTLP/HTTP JSON to a receiver this test runs on loopback: the spans are named by
 * route pattern, the service's metrics arrive, and nothing exported carries a token, a
 * secret, personal data or a typed path or query once the collector of docs/operations.md
 * has dropped the runtime's own `url.full`, `url.query` and `url.path`.
 */

import assert from "node:assert/strict";
import { basic } from "../_helpers.ts";
import { startService } from "../_service.ts";
import { documentedBlock } from "../_docs.ts";

type Json = Record<string, unknown>;

/** Distinctive values: found anywhere in the export, they came from these requests. */
const PERSON = {
  email: "winifred.telemetry@otel-audit.example",
  contact_name: "Winifred Spanwitness",
  phone: "+41 44 321 77 66",
  company: "Spanwitness Metrics AG",
  site_address: "Tracegasse 9, 8001 Zurich",
  description: "Replace a PSU for Winifred in cage W9",
  city: "Zurich",
  service_type: "Rack and stack",
  engineer_count: 1,
  estimated_hours: 2,
};
const TYPED = "typedpathwinifred";
const QUERY_SECRET = "querysecretwinifred";
/** A webhook URL with its secret in the path, as chat webhooks have it. */
const HOOK_SECRET = "hooksecretwinifred";

/** An OTLP/HTTP receiver on loopback that keeps every JSON body it is sent. */
function receiver() {
  const bodies: { path: string; body: Json }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const text = await req.text();
    if (path.startsWith("/v1/")) bodies.push({ path, body: JSON.parse(text) });
    return new Response("{}", { headers: { "Content-Type": "application/json" } });
  });
  return { bodies, url: `http://127.0.0.1:${server.addr.port}`, server };
}

interface SpanOut {
  name: string;
  attributes: Record<string, unknown>;
}

function spans(bodies: { path: string; body: Json }[]): SpanOut[] {
  const out: SpanOut[] = [];
  for (const { path, body } of bodies) {
    if (path !== "/v1/traces") continue;
    for (const rs of body.resourceSpans as Json[]) {
      for (const ss of rs.scopeSpans as Json[]) {
        for (const s of ss.spans as Json[]) {
          out.push({ name: String(s.name), attributes: _attributes(s.attributes) });
        }
      }
    }
  }
  return out;
}

function metricNames(bodies: { path: string; body: Json }[]): Set<string> {
  const names = new Set<string>();
  for (const { path, body } of bodies) {
    if (path !== "/v1/metrics") continue;
    for (const rm of body.resourceMetrics as Json[]) {
      for (const sm of rm.scopeMetrics as Json[]) {
        for (const m of sm.metrics as Json[]) names.add(String(m.name));
      }
    }
  }
  return names;
}

function _attributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of (list ?? []) as { key: string; value: Record<string, unknown> }[]) {
    out[a.key] = Object.values(a.value)[0];
  }
  return out;
}

/** The attributes the documented collector deletes (docs/operations.md). */
const DROPPED = ["url.full", "url.query", "url.path"];

/** Every exported body as text, as the documented collector passes it on. */
function afterCollector(bodies: { path: string; body: Json }[]): string {
  return JSON.stringify(bodies, (key, value) => {
    if (key === "attributes" && Array.isArray(value)) {
      return value.filter((a: { key: string }) => !DROPPED.includes(a.key));
    }
    return value;
  });
}

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    assert.ok(Date.now() < deadline, `${what} did not arrive within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Set by .ci/run to the oldest supported Deno (Deno Deploy's); see tests/e2e/deploy_test.ts. */
const deployDeno = Deno.env.get("DEPLOY_DENO");

Deno.test("OTEL_DENO=true: spans by route pattern, the service's metrics, and no secret, personal data or typed path in the export", async () => {
  const otlp = receiver();
  const hook = receiver(); // the review webhook, so its span is exported too
  // The variables of docs/operations.md's command, as printed; then this test's receiver,
  // JSON to read it here, and short export intervals.
  const command = await documentedBlock("docs/operations.md", "otel-start");
  const documented = Object.fromEntries(
    [...command.matchAll(/\b(OTEL_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );
  assert.deepEqual(Object.keys(documented).sort(), [
    "OTEL_DENO",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_SERVICE_NAME",
  ]);
  assert.match(command, /npx --yes deno@2\.9\.6 task start\s*$/);
  try {
    await using service = await startService({
      ...documented,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      REVIEW_WEBHOOK_URL: `${hook.url}/services/${HOOK_SECRET}`,
      RATE_LIMIT_REGISTER: "2",
      // .ci/run runs this file again on the oldest supported Deno, started as Deno Deploy
      // starts it: Deploy turns the same built-in OpenTelemetry on.
    }, deployDeno ? { asDeploy: { deno: deployDeno } } : {});
    const url = (p: string) => `${service.baseUrl}${p}`;
    const requestId = crypto.randomUUID();

    // A token issued, a protected read, a quote, a revocation.
    const reg = await fetch(url("/agent/identity"), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "anonymous", scope: "services:read" }),
    });
    assert.equal(reg.status, 201);
    const { client_id, client_secret } = await reg.json();
    const auth = basic(client_id, client_secret);
    const tokenRes = await fetch(url("/oauth2/token"), {
      method: "POST",
      headers: { Authorization: auth, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    assert.equal(tokenRes.status, 200);
    const { access_token } = await tokenRes.json();
    const read = await fetch(url("/api/v1/agent/services"), {
      headers: { Authorization: `Bearer ${access_token}`, "X-Request-Id": requestId },
    });
    assert.equal(read.status, 200);
    await read.body?.cancel();
    const quote = await fetch(url(`/api/v1/quotes?note=${QUERY_SECRET}`), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(PERSON),
    });
    assert.equal(quote.status, 202, await quote.clone().text());
    const status = await fetch(url(`/api/v1/requests/${(await quote.json()).request_id}`));
    await status.body?.cancel();
    const revoke = await fetch(url("/oauth2/revoke"), {
      method: "POST",
      headers: { Authorization: auth, "Content-Type": "application/x-www-form-urlencoded" },
      body: `token=${access_token}`,
    });
    assert.equal(revoke.status, 200);
    await revoke.body?.cancel();
    // The refusals: 429 from the register bucket, 403 from a foreign origin, and a path
    // and a query the caller typed on a route that does not exist.
    for (let i = 0; i < 2; i++) {
      const r = await fetch(url("/agent/identity"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ type: "anonymous", scope: "services:read" }),
      });
      await r.body?.cancel();
    }
    const foreign = await fetch(url("/api/v1/intake"), {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://evil.example" },
      body: JSON.stringify({ email: PERSON.email, description: "x" }),
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    const nowhere = await fetch(url(`/api/v1/${TYPED}?token=${access_token}`));
    assert.equal(nowhere.status, 404);
    await nowhere.body?.cancel();
    // Secrets in a place the runtime has no attribute for: a Basic header that fails.
    const wrong = await fetch(url("/oauth2/token"), {
      method: "POST",
      headers: {
        Authorization: basic(client_id, `${client_secret}x`),
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
    await wrong.body?.cancel();

    const want = [
      "POST /agent/identity",
      "POST /oauth2/token",
      "GET /api/v1/agent/services",
      "POST /api/v1/quotes",
      "GET /api/v1/requests/{request_id}",
      "POST /oauth2/revoke",
      "GET (no route)",
      "dcfs review webhook",
    ];
    await until("the spans", () => {
      const names = new Set(spans(otlp.bodies).map((s) => s.name));
      return want.every((n) => names.has(n));
    });
    const metrics = [
      "dcfs.http.requests",
      "dcfs.http.request.duration",
      "dcfs.oauth.tokens",
      "dcfs.oauth.clients.registered",
      "dcfs.submissions.accepted",
      "dcfs.refusals",
      "dcfs.kv.commit.duration",
      "dcfs.kv.commit.group_size",
      "dcfs.cache.lookups",
      "dcfs.review.notices.sent",
      "dcfs.review.notices.waiting",
      "dcfs.review.notices.oldest_age",
      "dcfs.background.runs",
    ];
    await until("the metrics", () => {
      const names = metricNames(otlp.bodies);
      return metrics.every((n) => names.has(n));
    });

    const all = spans(otlp.bodies);
    const readSpan = all.find((s) => s.name === "GET /api/v1/agent/services")!;
    assert.equal(readSpan.attributes["http.route"], "/api/v1/agent/services");
    assert.equal(String(readSpan.attributes["http.response.status_code"]), "200");
    assert.equal(readSpan.attributes["dcfs.request_id"], requestId);
    const quoteSpan = all.find((s) => s.name === "POST /api/v1/quotes")!;
    assert.equal(String(quoteSpan.attributes["http.response.status_code"]), "202");
    // Never the path as typed, in a name.
    assert.ok(
      all.every((s) => !s.name.includes(TYPED) && !s.name.includes("/api/v1/requests/quote_")),
    );

    // Before the collector, the runtime's url.* carry what was typed (documented)...
    assert.ok(JSON.stringify(otlp.bodies).includes(TYPED));
    // ...after it, nothing of it is left anywhere.
    const exported = afterCollector(otlp.bodies);
    for (
      const secret of [
        access_token,
        client_secret,
        auth.slice("Basic ".length),
        ...Object.values(PERSON).filter((v) =>
          typeof v === "string" && v !== "Zurich" &&
          v !== "Rack and stack"
        ),
        TYPED,
        QUERY_SECRET,
        HOOK_SECRET,
      ]
    ) {
      assert.ok(!exported.includes(String(secret)), `exported: ${String(secret).slice(0, 12)}…`);
    }
    assert.doesNotMatch(exported, /@otel-audit\.example/);
  } finally {
    await otlp.server.shutdown();
    await hook.server.shutdown();
  }
});

Deno.test("the documented collector drops url.full, url.query and url.path in every pipeline", async () => {
  // No collector binary comes from npm or Debian, so its configuration is checked as text:
  // the processor deletes both attributes, and every pipeline runs it.
  const yaml = await documentedBlock("docs/operations.md", "otel-collector");
  assert.match(yaml, /attributes\/drop-typed-urls:\n\s+actions:\n/);
  for (const key of DROPPED) {
    assert.match(yaml, new RegExp(`- \\{ key: ${key.replace(".", "\\.")}, action: delete \\}`));
  }
  const pipelines = [
    ...yaml.slice(yaml.indexOf("  pipelines:")).matchAll(/^ {4}(\w+):\n((?: {6}.*\n)+)/gm),
  ];
  assert.deepEqual(pipelines.map((p) => p[1]), ["traces", "metrics"]);
  for (const [, name, body] of pipelines) {
    assert.match(body!, /processors: \[attributes\/drop-typed-urls/, `${name} drops them first`);
  }
});
