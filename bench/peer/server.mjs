/**
 * The peer of `bench/load.ts`: node-oidc-provider (the version pinned in this folder's
 * package-lock.json) on Node, with its in-memory adapter and one client-credentials
 * client, introspection and revocation on. The bench installs it into a temporary folder
 * (`npm ci`) and runs `node server.mjs` there.
 *
 * Environment: PORT, CLIENT_ID, CLIENT_SECRET. Prints "listening" once it serves.
 */
import { createServer } from "node:http";
import Provider from "oidc-provider";

/** @param {unknown} _ctx @param {{ clientId: string }} client @param {{ clientId: string }} token */
const ownToken = (_ctx, client, token) => Promise.resolve(token.clientId === client.clientId);

const port = Number(process.env.PORT ?? 8002);
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [{
    client_id: process.env.CLIENT_ID ?? "bench",
    client_secret: process.env.CLIENT_SECRET ?? "bench-secret",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: "client_secret_basic",
    scope: "services:read locations:read coverage:read",
  }],
  scopes: ["services:read", "locations:read", "coverage:read"],
  features: {
    clientCredentials: { enabled: true },
    // As this service does: a client may look at and revoke only its own tokens.
    introspection: { enabled: true, allowedPolicy: ownToken },
    revocation: { enabled: true, allowedPolicy: ownToken },
    devInteractions: { enabled: false },
  },
  // The same lifetime as this service's tokens.
  ttl: { ClientCredentials: 900 },
  cookies: { keys: ["bench-cookie-key-not-secret"] },
});
// Its development warnings (in-memory adapter, quick-start keys) are expected here.
provider.on("server_error", (_ctx, err) => console.error("peer server_error", err));

createServer(provider.callback()).listen(port, "127.0.0.1", () => console.log("listening"));
