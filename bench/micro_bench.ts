/**
 * @module
 * Micro benchmarks (`deno bench`, part of `deno task bench`) of the per-request
 * building blocks: client authentication, bearer verification on an in-memory KV,
 * route matching, body parsing, zod validation of a quote and the coverage lookup.
 */

import { activeSpan, endRequest } from "../src/telemetry/metrics.ts";
import { buildRoutes } from "../src/routes.ts";
import { loadCatalog } from "../src/catalog/catalog.ts";
import { loadConfig } from "../src/config.ts";
import type { Context } from "../src/context.ts";
import { checkCoverage } from "../src/catalog/coverage.ts";
import { parseForm, parseJson } from "../src/http/body.ts";
import {
  type ClientRecord,
  createClient,
  getClient,
  storeToken,
} from "../src/store/credentials.ts";
import { ClockCache, createStoreCache } from "../src/store/cache.ts";
import { verifyBearer } from "../src/oauth/bearer.ts";
import { decodeBasic } from "../src/oauth/client_auth.ts";
import { digest, matchesDigest } from "../src/oauth/secrets.ts";
import { RateLimiter } from "../src/http/rate_limit.ts";
import { DemandCounter } from "../src/catalog/demand.ts";
import { Store } from "../src/store/store.ts";
import { compileRoutes, matchRoute } from "../src/http/router.ts";
import { quoteInput } from "../src/intake/schemas.ts";

const config = loadConfig({ BASE_URL: "https://api.bench.example" });
const catalog = loadCatalog();
const quoteSchema = quoteInput(catalog);
const kv = await Deno.openKv(":memory:");
const now = Date.now();

const clientId = "agt_benchbenchbenchbench";
const secret = "dcfs_cs_sN2lK2ZOv72U8Azf5uCP6GYWiMXrjH233BQam8phARY";
const secretHash = digest(secret);
const basic = `Basic ${btoa(`${clientId}:${secret}`)}`;

const token = "dcfs_at_3q2-7wEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const scopes = ["services:read", "locations:read", "coverage:read"] as const;
await createClient(kv, clientId, {
  secret_hash: secretHash,
  scopes: [...scopes],
  created_at: now,
  expires_at: now + 1e9,
});
await storeToken(kv, digest(token), {
  client_id: clientId,
  scopes: [...scopes],
  audience: config.baseUrl,
  issued_at: now,
  expires_at: now + 900_000,
}, (await getClient(kv, clientId)) as Deno.KvEntry<ClientRecord>);
const ctx: Context = {
  kv: new Store(kv),
  config,
  catalog,
  now: () => now,
  log: () => {},
  requestId: "bench",
  address: "192.0.2.1",
  limiter: new RateLimiter(kv),
  charges: [],
  cache: createStoreCache(kv),
  demand: new DemandCounter(kv, { now: () => now, log: () => {} }),
  headers: new Map(),
  submitted: () => {},
};
const bearerRequest = new Request(`${config.baseUrl}/api/v1/agent/services`, {
  headers: { Authorization: `Bearer ${token}` },
});

const table = compileRoutes(buildRoutes(config, catalog));
const paths = [
  ...table.exact.keys(),
  "/assets/app.js",
  "/no/such/path",
];

const utf8 = new TextEncoder();
const form = utf8.encode("grant_type=client_credentials&scope=services%3Aread+coverage%3Aread");
const QUOTE = {
  company: "Example GmbH",
  contact_name: "Alex Example",
  email: "alex@example.com",
  city: "Zurich",
  service_type: "rack-and-stack",
  description: "Install 4 servers in rack B12 and cable them to the top-of-rack switch.",
  engineer_count: 2,
  estimated_hours: 3,
  requested_date: "2026-12-01",
  requested_time: "09:30",
};
const quoteJson = utf8.encode(JSON.stringify(QUOTE));

Deno.bench("client authentication: Basic decoding + constant-time digest compare", {
  group: "oauth",
}, () => {
  const creds = decodeBasic(basic);
  if (!creds || !matchesDigest(creds.secret, secretHash)) throw new Error("rejected");
});

Deno.bench("bearer verification: digest + KV get (in-memory) + scope check", {
  group: "oauth",
}, async () => {
  await verifyBearer(bearerRequest, ctx, "services:read");
});

Deno.bench(`route matching: every path of the table (${paths.length}) once`, () => {
  for (const path of paths) matchRoute(table, path);
});

Deno.bench("form parsing: a token request body", { group: "bodies" }, () => {
  parseForm(form, ["resource"]);
});

Deno.bench("JSON parsing: a quote request body", { group: "bodies" }, () => {
  parseJson(quoteJson);
});

Deno.bench("zod validation of a quote", () => {
  if (!quoteSchema.safeParse(QUOTE).success) throw new Error("invalid");
});

Deno.bench("coverage lookup: a covered city (alias, accents)", { group: "coverage" }, () => {
  checkCoverage(catalog, { city: "zürich" });
});

Deno.bench("coverage lookup: an uncovered city (nearest covered ones)", {
  group: "coverage",
}, () => {
  checkCoverage(catalog, { city: "Reykjavik" });
});

// The token and client caches: a hit must cost the same whatever the cache holds.
for (const size of [10, 10_000]) {
  const lru = new ClockCache<number>(size);
  const keys = Array.from({ length: size }, (_, i) => `token-${i}`);
  for (const key of keys) lru.set(key, 1, "m");
  let i = 0;
  Deno.bench(`cache hit with ${size} entries`, { group: "cache", baseline: size === 10 }, () => {
    lru.get(keys[i++ % size]!, "m");
  });
}

// What the service adds to a request when OpenTelemetry is off (no-op instruments).
Deno.bench("telemetry off: a request's span lookup and instruments", { group: "telemetry" }, () => {
  endRequest(activeSpan(), {
    method: "GET",
    route: "/api/v1/requests/:request_id",
    status: 200,
    seconds: 0.001,
    requestId: "bench",
  });
});
