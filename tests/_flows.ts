/**
 * @module
 * The service's main flows as one caller makes them, each request from the address it is
 * given: registration, a token, a protected read, a revocation, a lead, a quote, MCP
 * `tools/call`s and the public catalog. Shared by the round-trip tests and
 * `bench/remote.ts`; each returns what the next step needs and checks its status.
 */

import { LEAD, QUOTE } from "./_fixtures.ts";
import {
  bearerGet,
  type Client,
  mcpResult,
  mcpToolRequest,
  post,
  revokeRequest,
  tokenRequest,
} from "./_helpers.ts";

/** What the flows send requests through: an in-process app (tests/_helpers.ts `createApp`). */
export interface FlowApp {
  request(path: string, init?: RequestInit & { address?: string }): Promise<Response>;
}

/** A request's status, its body read and dropped; throws unless it is `expected`. */
async function expect(res: Promise<Response>, expected: number, what: string): Promise<Response> {
  const r = await res;
  if (r.status !== expected) {
    throw new Error(`${what}: ${r.status}, expected ${expected}: ${await r.text()}`);
  }
  return r;
}

/** POST /agent/identity: a new client. */
export async function register(app: FlowApp, address: string): Promise<Client> {
  const res = post(app, "/agent/identity", { type: "anonymous" }, {}, address);
  return await (await expect(res, 201, "registration")).json();
}

/** POST /oauth2/token: an access token for `client`. */
export async function token(app: FlowApp, client: Client, address: string): Promise<string> {
  const res = tokenRequest(app, client, "grant_type=client_credentials", {}, address);
  return (await (await expect(res, 200, "token")).json()).access_token;
}

/** GET /api/v1/agent/services with the token. */
export async function protectedRead(app: FlowApp, accessToken: string): Promise<void> {
  const res = bearerGet(app, "/api/v1/agent/services", accessToken);
  await (await expect(res, 200, "protected read")).body?.cancel();
}

/** POST /oauth2/revoke of the token by its client. */
export async function revoke(
  app: FlowApp,
  client: Client,
  accessToken: string,
  address: string,
): Promise<void> {
  const res = revokeRequest(app, client, accessToken, address);
  await (await expect(res, 200, "revocation")).body?.cancel();
}

/** POST /api/v1/intake: a lead, made a new request by `n`; its request id. */
export function lead(app: FlowApp, address: string, n: number): Promise<string> {
  return _submit(app, "/api/v1/intake", LEAD, address, n);
}

/** POST /api/v1/quotes: a quote request, made a new request by `n`; its request id. */
export function quote(app: FlowApp, address: string, n: number): Promise<string> {
  return _submit(app, "/api/v1/quotes", QUOTE, address, n);
}

async function _submit(
  app: FlowApp,
  path: string,
  fixture: { description: string },
  address: string,
  n: number,
): Promise<string> {
  const body = { ...fixture, description: `${fixture.description} #${n}` };
  const res = post(app, path, body, {}, address);
  return (await (await expect(res, 202, path)).json()).request_id;
}

/** An MCP `tools/call` (stateless 2025-11-25); its `structuredContent`. */
export async function mcpCall(
  app: FlowApp,
  address: string,
  name: string,
  args: unknown,
): Promise<Record<string, unknown>> {
  const res = mcpToolRequest(app, name, args, address);
  const text = await (await expect(res, 200, `MCP ${name}`)).text();
  return mcpResult(text).structuredContent;
}

/** The arguments of an `estimate_quote` call. */
export const ESTIMATE = { city: "Frankfurt", service_type: "remote-hands", engineer_count: 1 };

/** GET /api/v1/estimate with {@linkcode ESTIMATE}'s job, at `city` if given. */
export async function estimateRead(app: FlowApp, address: string, city?: string): Promise<void> {
  const job = city === undefined ? ESTIMATE : { ...ESTIMATE, city };
  const query = new URLSearchParams(Object.entries(job).map(([k, v]) => [k, String(v)]));
  const res = app.request(`/api/v1/estimate?${query}`, { address });
  await (await expect(res, 200, "estimate")).body?.cancel();
}

/** GET /api/v1/locations?city=…: the anonymous coverage read. */
export async function coverageRead(app: FlowApp, city: string, country?: string): Promise<void> {
  const query = new URLSearchParams(country === undefined ? { city } : { city, country });
  const res = app.request(`/api/v1/locations?${query}`);
  await (await expect(res, 200, "coverage")).body?.cancel();
}

/** GET /api/v1/services. */
export async function catalogRead(app: FlowApp): Promise<void> {
  await (await expect(app.request("/api/v1/services"), 200, "catalog")).body?.cancel();
}
