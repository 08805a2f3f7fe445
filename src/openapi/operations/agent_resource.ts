/**
 * @module
 * The OpenAPI operations tagged "Agent resource".
 */

import { z } from "zod";
import type { Config } from "../../config.ts";
import { CoverageQuerySchema } from "../../catalog/coverage_query.ts";
import { PATHS } from "../../http/paths.ts";
import { type Scope } from "../../oauth/scopes.ts";
import type { OperationDoc } from "../document.ts";
import { SECURITY } from "../document.ts";
import { LocationsOutput } from "../components.ts";
import * as ex from "../examples.ts";
import { COVERAGE_PARAMS, invalidQuery } from "./coverage_params.ts";
import { apiError } from "../responses.ts";
import { CoverageOutput, ServicesOutput } from "../../mcp/output_schemas.ts";

/** The operations tagged "Agent resource", by route; see routes.ts. */
export function agentResourceOperations(config: Config) {
  const base = config.baseUrl;
  return {
    agentServices: _agentRead("services:read", base, {
      operationId: "getAgentServices",
      summary: "The service catalog (agent resource)",
      responses: {
        "200": {
          description: "The catalog",
          schema: ServicesOutput,
          examples: ex.SERVICES_EXAMPLES,
        },
      },
    }),
    agentLocations: _agentRead("locations:read", base, {
      operationId: "getAgentLocations",
      summary: "The published coverage locations (agent resource)",
      responses: {
        "200": {
          description: "The locations",
          schema: LocationsOutput,
          examples: ex.LOCATIONS_EXAMPLES,
        },
      },
    }),
    agentCoverage: _agentRead("coverage:read", base, {
      operationId: "getAgentCoverage",
      summary: "Coverage for one city (agent resource)",
      query: CoverageQuerySchema,
      params: COVERAGE_PARAMS,
      responses: {
        "200": {
          description: "The coverage",
          schema: CoverageOutput,
          examples: ex.COVERAGE_EXAMPLES,
        },
        "400": invalidQuery(),
      },
    }),
  } satisfies Record<string, OperationDoc>;
}

/**
 * A read of the agent resource: the scope it needs, as an OAuth 2.0 client
 * credentials requirement or, equivalently, a Bearer token with that scope, and
 * the RFC 6750 §3.1 errors with their RFC 9728 discovery hint.
 */
function _agentRead(
  scope: Scope,
  base: string,
  doc: Pick<OperationDoc, "operationId" | "summary" | "query" | "params" | "responses">,
): OperationDoc {
  const challenge = (extra: string) => ({
    "WWW-Authenticate": {
      description: "The Bearer challenge, with `resource_metadata` (RFC 9728 §5.1)",
      schema: z.string(),
      example:
        `Bearer realm="${base}", ${extra}resource_metadata="${base}${PATHS.protectedResourceMetadata}"`,
    },
  });
  return {
    ...doc,
    description: `Needs a Bearer token with scope \`${scope}\`. Read-only, writes nothing; ` +
      "answers are Cache-Control: private, no-store.",
    tags: ["Agent resource"],
    security: [{ [SECURITY.oauth2]: [scope] }, { [SECURITY.bearer]: [scope] }],
    responses: {
      ...doc.responses,
      "401": {
        ...apiError(
          "No Bearer token, or one that is malformed, unknown, expired, revoked or for " +
            "another audience",
          ["missing_token", "a Bearer token is required"],
          ["invalid_token", "the access token is invalid, expired or revoked"],
        ),
        headers: challenge(""),
      },
      "403": {
        ...apiError("The token lacks the scope", [
          "insufficient_scope",
          `this endpoint requires scope ${scope}`,
        ]),
        headers: challenge(`error="insufficient_scope", scope="${scope}", `),
      },
    },
  };
}
