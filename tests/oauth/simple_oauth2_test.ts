/**
 * simple-oauth2 5.1 (a popular Node OAuth client) against the service over a real port,
 * in-process and as `deno task start`: client credentials, a protected read with its
 * token, and revoke(), which needs a JSON answer from the revocation endpoint.
 */
import assert from "node:assert/strict";
import { ClientCredentials } from "npm:simple-oauth2@5.1.0";
import { bearerGet, listen, overHttp, registerClient, type Requester } from "../_helpers.ts";
import { startService } from "../_service.ts";

async function flow(app: Requester, baseUrl: string): Promise<void> {
  const client = await registerClient(app);
  const oauth = new ClientCredentials({
    client: { id: client.client_id, secret: client.client_secret },
    auth: { tokenHost: baseUrl, tokenPath: "/oauth2/token", revokePath: "/oauth2/revoke" },
  });
  const token = await oauth.getToken({ scope: "services:read" });
  const access = String(token.token.access_token);
  const before = await bearerGet(app, "/api/v1/agent/services", access);
  assert.equal(before.status, 200);
  await before.body?.cancel();

  await token.revoke("access_token"); // threw "The content-type is not JSON compatible" before

  const after = await bearerGet(app, "/api/v1/agent/services", access);
  assert.equal(after.status, 401);
  await after.body?.cancel();
}

Deno.test("simple-oauth2 gets a token, reads with it, and revoke() succeeds and takes effect", async (t) => {
  await t.step("in-process handler on a real port", async () => {
    await using app = await listen();
    await flow(app, app.baseUrl);
  });
  await t.step("deno task start", async () => {
    await using service = await startService();
    await flow(overHttp(service.baseUrl), service.baseUrl);
  });
});
