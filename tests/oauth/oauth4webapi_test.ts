/**
 * End to end with a real, independent OAuth client library (oauth4webapi 3.8.8) over a
 * real port: RFC 9728 resource discovery from a 401 challenge, RFC 8414 discovery with the
 * issuer check, the client-credentials grant with client_secret_basic and an RFC 8707
 * resource, a protected read, RFC 7009 revocation, and the 401 that follows.
 */

import assert from "node:assert/strict";
import * as oauth from "npm:oauth4webapi@3.8.8";
import { listen } from "../_helpers.ts";
import { startService } from "../_service.ts";

/** The base URL is plain http on loopback; the library refuses that unless told otherwise. */
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

/** A protected read with `token` expected to be refused with a challenge; returns the error. */
async function expectChallenge(
  url: URL,
  token: string,
): Promise<oauth.WWWAuthenticateChallengeError> {
  try {
    const res = await oauth.protectedResourceRequest(
      token,
      "GET",
      url,
      undefined,
      undefined,
      INSECURE,
    );
    await res.body?.cancel();
    assert.fail(`expected a WWW-Authenticate challenge, got HTTP ${res.status}`);
  } catch (err) {
    if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw err;
    await err.response.body?.cancel();
    return err;
  }
}

const TARGETS = [
  ["in-process on a real port", () => listen()],
  ["the real service (deno task start)", () => startService()],
] as const;

for (const [where, start] of TARGETS) {
  Deno.test(`an oauth4webapi client discovers, registers, gets a client-credentials token, reads and revokes it: ${where}`, async (t) => {
    await using app = await start();
    const base = new URL(app.baseUrl);
    const servicesUrl = new URL("/api/v1/agent/services", base);
    const metadataUrl = `${app.baseUrl}/.well-known/oauth-protected-resource`;

    let resourceServer!: oauth.ResourceServer;
    await t.step(
      "RFC 9728 discovery starts from the resource_metadata hint of a real 401",
      async () => {
        // The library's protected request parses the WWW-Authenticate challenge for us.
        const err = await expectChallenge(servicesUrl, "dcfs_at_not-a-token-this-server-issued");
        assert.equal(err.status, 401);
        assert.equal(err.code, oauth.WWW_AUTHENTICATE_CHALLENGE);
        assert.equal(err.cause.length, 1);
        const challenge = err.cause[0]!;
        assert.equal(challenge.scheme, "bearer");
        assert.equal(challenge.parameters.realm, app.baseUrl);
        assert.equal(challenge.parameters.error, "invalid_token");
        assert.equal(challenge.parameters.resource_metadata, metadataUrl);

        // Follow the hint, and validate the document against the resource we called.
        const res = await fetch(challenge.parameters.resource_metadata!);
        assert.equal(res.status, 200);
        resourceServer = await oauth.processResourceDiscoveryResponse(base, res);
        assert.equal(resourceServer.resource, app.baseUrl);
        assert.deepEqual(resourceServer.authorization_servers, [app.baseUrl]);
        assert.deepEqual(resourceServer.bearer_methods_supported, ["header"]);
        assert.deepEqual(
          [...resourceServer.scopes_supported!].sort(),
          ["coverage:read", "locations:read", "services:read"],
        );
      },
    );

    await t.step(
      "the library's own well-known URL for the resource is the hinted one",
      async () => {
        const res = await oauth.resourceDiscoveryRequest(base, INSECURE);
        assert.equal(res.status, 200);
        assert.equal(res.url, metadataUrl);
        const again = await oauth.processResourceDiscoveryResponse(base, res);
        assert.deepEqual(again, resourceServer);
      },
    );

    await t.step("the resource check rejects metadata for another resource", async () => {
      const res = await oauth.resourceDiscoveryRequest(base, INSECURE);
      await assert.rejects(
        oauth.processResourceDiscoveryResponse(new URL("https://other.example"), res),
        (err: unknown) => {
          assert.ok(err instanceof oauth.OperationProcessingError);
          assert.equal(err.code, oauth.JSON_ATTRIBUTE_COMPARISON);
          return true;
        },
      );
    });

    let as!: oauth.AuthorizationServer;
    await t.step(
      "RFC 8414 discovery of the advertised authorization server passes the issuer check",
      async () => {
        const issuer = new URL(resourceServer.authorization_servers![0]!);
        const res = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...INSECURE });
        assert.equal(res.status, 200);
        assert.equal(res.url, `${app.baseUrl}/.well-known/oauth-authorization-server`);
        as = await oauth.processDiscoveryResponse(issuer, res);
        assert.equal(as.issuer, app.baseUrl);
        assert.equal(as.token_endpoint, `${app.baseUrl}/oauth2/token`);
        assert.equal(as.revocation_endpoint, `${app.baseUrl}/oauth2/revoke`);
        assert.deepEqual(as.grant_types_supported, ["client_credentials"]);
        assert.deepEqual(as.token_endpoint_auth_methods_supported, ["client_secret_basic"]);
      },
    );

    await t.step("the issuer check rejects a wrong expected issuer", async (t) => {
      for (const wrong of ["https://evil.example", `${app.baseUrl}/tenant`]) {
        await t.step(wrong.replace(app.baseUrl, "{base_url}"), async () => {
          const res = await oauth.discoveryRequest(base, { algorithm: "oauth2", ...INSECURE });
          await assert.rejects(
            oauth.processDiscoveryResponse(new URL(wrong), res),
            (err: unknown) => {
              assert.ok(err instanceof oauth.OperationProcessingError);
              assert.equal(err.code, oauth.JSON_ATTRIBUTE_COMPARISON);
              return true;
            },
          );
        });
      }
    });

    await t.step("OpenID Connect discovery is not offered (the service is not an OP)", async () => {
      const res = await oauth.discoveryRequest(base, { algorithm: "oidc", ...INSECURE });
      assert.equal(res.url, `${app.baseUrl}/.well-known/openid-configuration`);
      assert.equal(res.status, 404);
      await assert.rejects(oauth.processDiscoveryResponse(base, res), (err: unknown) => {
        assert.ok(err instanceof oauth.OperationProcessingError);
        assert.equal(err.code, oauth.RESPONSE_IS_NOT_CONFORM);
        return true;
      });
      await res.body?.cancel();
    });

    let client!: oauth.Client;
    let clientSecret!: string;
    await t.step("POST /agent/identity registers an anonymous client", async () => {
      // The registration endpoint as the metadata advertises it (SPEC §5.4).
      const identity = (as.agent_auth as { identity_endpoint?: string } | undefined)
        ?.identity_endpoint;
      assert.equal(identity, `${app.baseUrl}/agent/identity`);
      const res = await fetch(identity, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ type: "anonymous" }),
      });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
      const body = await res.json();
      assert.equal(typeof body.client_id, "string");
      assert.equal(typeof body.client_secret, "string");
      client = { client_id: body.client_id };
      clientSecret = body.client_secret;
    });

    await t.step("wrong client credentials are answered with a Basic challenge", async () => {
      const res = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic("dcfs_cs_not-the-secret"),
        { resource: app.baseUrl },
        INSECURE,
      );
      assert.equal(res.status, 401);
      await assert.rejects(
        oauth.processClientCredentialsResponse(as, client, res),
        (err: unknown) => {
          assert.ok(err instanceof oauth.WWWAuthenticateChallengeError);
          assert.equal(err.status, 401);
          assert.equal(err.cause[0]!.scheme, "basic");
          return true;
        },
      );
      await res.body?.cancel();
    });

    let accessToken!: string;
    await t.step(
      "client credentials grant with client_secret_basic and resource = base URL",
      async () => {
        const res = await oauth.clientCredentialsGrantRequest(
          as,
          client,
          oauth.ClientSecretBasic(clientSecret),
          { resource: app.baseUrl },
          INSECURE,
        );
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
        assert.equal(res.headers.get("pragma"), "no-cache");
        const token = await oauth.processClientCredentialsResponse(as, client, res);
        assert.equal(token.token_type, "bearer"); // the library lower-cases it
        assert.equal(token.expires_in, 900);
        assert.equal(token.refresh_token, undefined);
        assert.deepEqual(token.scope?.split(" ").sort(), [
          "coverage:read",
          "locations:read",
          "services:read",
        ]);
        accessToken = token.access_token;
      },
    );

    await t.step("a protected read with the token: GET /api/v1/agent/services", async () => {
      const res = await oauth.protectedResourceRequest(
        accessToken,
        "GET",
        servicesUrl,
        new Headers({ Accept: "application/json" }),
        undefined,
        INSECURE,
      );
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const body = await res.json();
      assert.equal(body.ok, true);
      assert.ok(Array.isArray(body.services));
      assert.ok(body.services.length > 0);
      assert.ok(body.services.every((s: unknown) => typeof s === "object" && s !== null));
    });

    await t.step("revocation (RFC 7009) succeeds", async () => {
      const res = await oauth.revocationRequest(
        as,
        client,
        oauth.ClientSecretBasic(clientSecret),
        accessToken,
        { additionalParameters: { token_type_hint: "access_token" }, ...INSECURE },
      );
      assert.equal(res.status, 200);
      assert.equal(await oauth.processRevocationResponse(res), undefined);
    });

    await t.step('the next protected read gets 401 with error="invalid_token"', async () => {
      const err = await expectChallenge(servicesUrl, accessToken);
      assert.equal(err.status, 401);
      const challenge = err.cause[0]!;
      assert.equal(challenge.scheme, "bearer");
      assert.equal(challenge.parameters.error, "invalid_token");
      assert.equal(challenge.parameters.resource_metadata, metadataUrl);
    });

    await t.step("revoking the already revoked token again is still 200", async () => {
      const res = await oauth.revocationRequest(
        as,
        client,
        oauth.ClientSecretBasic(clientSecret),
        accessToken,
        INSECURE,
      );
      assert.equal(res.status, 200);
      assert.equal(await oauth.processRevocationResponse(res), undefined);
    });
  });
}
