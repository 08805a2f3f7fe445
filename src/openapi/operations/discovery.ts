/**
 * @module
 * The OpenAPI operations tagged "Discovery".
 */

import { z } from "zod";
import type { Config } from "../../config.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "../../oauth/discovery.ts";
import type { OperationDoc } from "../document.ts";
import { AuthorizationServerMetadata, ProtectedResourceMetadata } from "../components.ts";

/** The operations tagged "Discovery", by route; see routes.ts. */
export function discoveryOperations(config: Config) {
  return {
    authorizationServerMetadata: {
      operationId: "getAuthorizationServerMetadata",
      summary: "Authorization server metadata (RFC 8414)",
      description: "The token and revocation endpoints, the scopes, and the registration " +
        "endpoint (`agent_auth.identity_endpoint`, alias `register_uri`). Cacheable 5 minutes.",
      tags: ["Discovery"],
      responses: {
        "200": {
          description: "The metadata",
          schema: AuthorizationServerMetadata,
          examples: {
            metadata: { summary: "This server", value: authorizationServerMetadata(config) },
          },
        },
      },
    },
    protectedResourceMetadata: {
      operationId: "getProtectedResourceMetadata",
      summary: "Protected resource metadata (RFC 9728)",
      description: "Names the authorization server of the agent resource; every Bearer " +
        "challenge points here (`resource_metadata`). Cacheable 5 minutes.",
      tags: ["Discovery"],
      responses: {
        "200": {
          description: "The metadata",
          schema: ProtectedResourceMetadata,
          examples: {
            metadata: { summary: "This resource", value: protectedResourceMetadata(config) },
          },
        },
      },
    },
    llmsTxt: {
      operationId: "getLlmsTxt",
      summary: "llms.txt: the service for language models (llmstxt.org)",
      description: "Markdown: what the service is, its discovery documents, its tools (from " +
        "the tool list itself) and the rules an agent must know (anonymous access, human " +
        "review, non-binding estimates, rate limits, OAuth, idempotency keys). Cacheable 5 " +
        "minutes; ETag; gzip or Brotli when accepted.",
      tags: ["Discovery"],
      responses: {
        "200": { description: "The file", schema: z.string(), contentType: "text/markdown" },
      },
    },
    robotsTxt: {
      operationId: "getRobotsTxt",
      summary: "robots.txt (RFC 9309)",
      description: "Crawlers may read the pages and documents, not the endpoints that write, " +
        "spend a rate limit or need a token. Cacheable 5 minutes.",
      tags: ["Discovery"],
      responses: {
        "200": { description: "The rules", schema: z.string(), contentType: "text/plain" },
      },
    },
  } satisfies Record<string, OperationDoc>;
}
