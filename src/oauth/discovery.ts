/**
 * @module
 * Discovery documents: RFC 8414 authorization server metadata and RFC 9728
 * protected resource metadata. Built once per handler from the config.
 */

import type { Config } from "../config.ts";
import { PATHS } from "../http/paths.ts";
import { IDENTITY_TYPES } from "./registration.ts";
import { SCOPES } from "./scopes.ts";

export const SERVICE_NAME = "DC Field Services";

/**
 * RFC 8414 §2. `registration_endpoint` (RFC 7591), `agent_auth.identity_endpoint` and
 * `register_uri` all name the one registration endpoint. Deliberately absent:
 * `claim_endpoint`, `events_endpoint` and `events_supported` (SPEC §5.4, §6).
 */
export function authorizationServerMetadata(config: Config): Record<string, unknown> {
  const base = config.baseUrl;
  return {
    issuer: base,
    token_endpoint: base + PATHS.token,
    registration_endpoint: base + PATHS.identity,
    revocation_endpoint: base + PATHS.revoke,
    scopes_supported: [...SCOPES],
    // No authorization endpoint exists, so no response type is supported.
    response_types_supported: [],
    grant_types_supported: ["client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_basic"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic"],
    // RFC 9728 §4: the resources this server issues tokens for.
    protected_resources: [base],
    agent_auth: {
      identity_endpoint: base + PATHS.identity,
      identity_types_supported: [...IDENTITY_TYPES],
    },
    register_uri: base + PATHS.identity,
  };
}

/** RFC 9728 §2. The resource identifier and the token audience are both the base URL. */
export function protectedResourceMetadata(config: Config): Record<string, unknown> {
  const base = config.baseUrl;
  return {
    resource: base,
    authorization_servers: [base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: `${SERVICE_NAME} agent API`,
    // RFC 9728 §2: where the protected endpoints and their scopes are described (the
    // OpenAPI document's "Agent resource" operations, with their security requirements).
    resource_documentation: base + PATHS.openApi,
  };
}
