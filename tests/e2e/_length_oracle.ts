/**
 * @module
 * No length oracle where a secret is (issue 40), checked over a real port: every answer that
 * carries a secret, a form token or a session's value says `Cache-Control: no-transform` and
 * goes out uncompressed, though the request accepts gzip and Brotli and the runtime may
 * compress by itself (Deno 2.5.0, Deno Deploy's runtime, does by default; 2.9 with
 * `DENO_SERVE_AUTOMATIC_COMPRESSION=1`); a public answer still goes out compressed.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { LEAD } from "../_fixtures.ts";
import { basic, overHttp, post } from "../_helpers.ts";
import type { Service } from "../_service.ts";
import { SoftAuthenticator } from "../staff/_authenticator.ts";
import { enrolWith } from "../staff/_ceremony.ts";

/** What every client sends. */
const ACCEPT = { "Accept-Encoding": "gzip, br" };

/** A `STAFF_ENROL_CODE` of 192 random bits, for a service {@linkcode assertNoLengthOracle} checks. */
export function enrolCode(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
}

/** Status, then `no-transform` among the directives as Deno reads them (small letters), then no coding. */
async function uncompressed(res: Response, status: number, what: string): Promise<string> {
  const body = await res.text();
  assert.equal(res.status, status, `${what}: ${body.slice(0, 200)}`);
  const directives = (res.headers.get("cache-control") ?? "").split(",").map((d) => d.trim());
  assert.ok(directives.includes("no-transform"), `${what}: ${res.headers.get("cache-control")}`);
  assert.equal(res.headers.get("content-encoding"), null, what);
  return body;
}

/**
 * Registration (a client secret), a token, and the staff console's pages (its form token
 * beside a submitter's text) are sent uncompressed with `no-transform`; the coverage of a
 * city, a public answer, is compressed (by the service or by the runtime).
 */
export async function assertNoLengthOracle(service: Service, code: string): Promise<void> {
  const app = overHttp(service.baseUrl);
  const registered = await app.request("/agent/identity", {
    method: "POST",
    headers: { ...ACCEPT, "Content-Type": "application/json" },
    body: JSON.stringify({ type: "anonymous", client_name: "length oracle" }),
  });
  const client = JSON.parse(await uncompressed(registered, 201, "POST /agent/identity"));
  assert.match(client.client_secret, /^dcfs_cs_/);
  const token = await app.request("/oauth2/token", {
    method: "POST",
    headers: {
      ...ACCEPT,
      "Content-Type": "application/x-www-form-urlencoded",
      Authorization: basic(client.client_id, client.client_secret),
    },
    body: "grant_type=client_credentials",
  });
  assert.match(await uncompressed(token, 200, "POST /oauth2/token"), /"access_token"/);
  // The router's own answers on those paths too: a 405 and a refused preflight.
  for (const path of ["/agent/identity", "/oauth2/token", "/oauth2/revoke"]) {
    await uncompressed(await app.request(path, { headers: ACCEPT }), 405, `GET ${path}`);
    const preflight = await app.request(path, {
      method: "OPTIONS",
      headers: {
        ...ACCEPT,
        Origin: "https://elsewhere.example",
        "Access-Control-Request-Method": "POST",
      },
    });
    await uncompressed(preflight, 403, `OPTIONS ${path} from another origin`);
  }

  const lead = await post(app, "/api/v1/intake", { ...LEAD, description: "x".repeat(3000) });
  assert.equal(lead.status, 202);
  const { request_id } = await lead.json();
  const staff = { ...app, config: { baseUrl: service.baseUrl } };
  const enrolled = await enrolWith(staff, new SoftAuthenticator(service.baseUrl), {
    code,
    name: "Length Oracle",
  });
  assert.equal(enrolled.res.status, 200);
  await uncompressed(enrolled.res, 200, "POST /staff/enrol");
  for (const path of ["/staff/", `/staff/submissions/${request_id}`, "/staff/members"]) {
    const page = await app.request(path, { headers: { ...ACCEPT, Cookie: enrolled.cookie! } });
    assert.match(await uncompressed(page, 200, path), /name="csrf" value="/);
  }

  for (const path of ["/api/v1/locations?city=Berlin", "/api/v1/services"]) {
    const open = await app.request(path, { headers: ACCEPT });
    assert.equal(open.status, 200);
    assert.match(open.headers.get("content-encoding") ?? "", /^(gzip|br)$/, path);
    await open.body?.cancel();
  }
}
