/**
 * @module
 * The OpenAPI operations tagged "OAuth".
 */

import { z } from "zod";
import { type Config, DEFAULT_RATE_LIMITS } from "../../config.ts";
import { OAUTH_MAX_BODY } from "../../oauth/form.ts";
import { SCOPES } from "../../oauth/scopes.ts";
import type { OperationDoc } from "../document.ts";
import { SECURITY } from "../document.ts";
import {
  RegistrationInput,
  RegistrationResponse,
  RevocationRequest,
  tokenRequest,
  TokenResponse,
} from "../components.ts";
import * as ex from "../examples.ts";
import {
  bodyLimits,
  forbiddenOrigin,
  invalidClient,
  oauthError,
  RATE_HEADERS,
  rateLimited,
} from "../responses.ts";

const FORM = "application/x-www-form-urlencoded";

/** The operations tagged "OAuth", by route; see routes.ts. */
export function oauthOperations(config: Config) {
  const base = config.baseUrl;
  return {
    registerClient: {
      operationId: "registerClient",
      summary: "Register an anonymous agent client",
      description: "No human involved. Also an RFC 7591 dynamic registration endpoint " +
        "(`registration_endpoint`): `type` defaults to anonymous. The secret is " +
        "shown once. A registration that obtains no token within a day lapses, and so does one " +
        "whose last token is 30 days old.",
      tags: ["OAuth"],
      requestBody: {
        contentType: "application/json",
        schema: RegistrationInput,
        examples: ex.REGISTRATION_EXAMPLES,
      },
      responses: {
        "201": {
          description: "Registered; store the secret now",
          schema: RegistrationResponse,
          examples: ex.REGISTERED_EXAMPLES,
          headers: RATE_HEADERS,
        },
        "400": oauthError(
          "The body or a field is not acceptable",
          ["invalid_request", "type must be a string; the only identity type is anonymous"],
          ["invalid_json", "request body is not valid JSON"],
          ["unsupported_identity_type", "identity type must be one of: anonymous"],
          [
            "invalid_client_metadata",
            "grant_types may only hold client_credentials; not supported: authorization_code",
          ],
          ["invalid_scope", `unknown scope "orders:write"; supported: ${SCOPES.join(" ")}`],
        ),
        ...bodyLimits("oauth", OAUTH_MAX_BODY, [
          "invalid_request",
          "Content-Type must be application/json",
        ]),
        ...forbiddenOrigin("oauth"),
        ...rateLimited(
          "oauth",
          "register",
          DEFAULT_RATE_LIMITS.register,
          DEFAULT_RATE_LIMITS.registerGlobal,
        ),
      },
    },
    issueToken: {
      operationId: "issueToken",
      summary: "Client credentials grant (RFC 6749 §4.4)",
      description: "Client authentication is `client_secret_basic` only; credentials in the " +
        "body fail it. Each parameter may appear once. The token is opaque, lives 900 s and is " +
        `for the audience ${base} (RFC 8707).`,
      tags: ["OAuth"],
      security: [{ [SECURITY.clientBasic]: [] }],
      requestBody: {
        contentType: FORM,
        schema: tokenRequest(base),
        examples: ex.TOKEN_REQUEST_EXAMPLES,
      },
      responses: {
        "200": {
          description: "An access token (Cache-Control: no-store, no-transform: never compressed)",
          schema: TokenResponse,
          examples: ex.TOKEN_EXAMPLES,
          headers: RATE_HEADERS,
        },
        "400": oauthError(
          "The grant, the resource, a scope or the body is not acceptable",
          ["invalid_request", "grant_type is required"],
          ["invalid_request", `Content-Type must be ${FORM}`],
          ["unsupported_grant_type", "the only supported grant_type is client_credentials"],
          ["invalid_target", `the only supported resource is ${base}`],
          ["invalid_scope", "scope coverage:read was not registered for this client"],
        ),
        "401": invalidClient(base),
        ...forbiddenOrigin("oauth"),
        ...bodyLimits("oauth", OAUTH_MAX_BODY),
        ...rateLimited("oauth", "token", DEFAULT_RATE_LIMITS.token),
      },
    },
    revokeToken: {
      operationId: "revokeToken",
      summary: "Revoke an access token (RFC 7009)",
      description: "A client revokes its own token, at once and on every instance. An unknown, " +
        "expired or already revoked token also answers 200.",
      tags: ["OAuth"],
      security: [{ [SECURITY.clientBasic]: [] }],
      requestBody: {
        contentType: FORM,
        schema: RevocationRequest,
        examples: ex.REVOCATION_EXAMPLES,
      },
      responses: {
        "200": {
          description: "Revoked, or already invalid: an empty JSON object",
          schema: z.strictObject({}),
          examples: { revoked: { summary: "Always the same answer", value: {} } },
          headers: RATE_HEADERS,
        },
        "400": oauthError(
          "No token, a malformed body, or a live token of another client (it stays valid)",
          ["invalid_request", "token is required"],
          ["unauthorized_client", "the token was not issued to this client"],
        ),
        "401": invalidClient(base),
        ...forbiddenOrigin("oauth"),
        ...bodyLimits("oauth", OAUTH_MAX_BODY),
        ...rateLimited("oauth", "revoke", DEFAULT_RATE_LIMITS.revoke),
      },
    },
  } satisfies Record<string, OperationDoc>;
}
