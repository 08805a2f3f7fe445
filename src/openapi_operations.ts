/**
 * @module
 * The OpenAPI operation of every route, attached to the route table in `app.ts`
 * (`doc: docs.submitLead`). Statuses and error codes follow the handlers and the
 * error table of docs/api.md; bodies are the zod schemas the handlers validate with or
 * the ones of `openapi_components.ts`.
 */

import { z } from "zod";
import { type Config, DEFAULT_RATE_LIMITS } from "./config.ts";
import { CoverageQuerySchema } from "./coverage_query.ts";
import { authorizationServerMetadata, PATHS, protectedResourceMetadata } from "./discovery.ts";
import { MCP_MAX_BODY } from "./mcp.ts";
import { aiCatalog, SERVER_CARD_TYPE, serverCard } from "./mcp_discovery.ts";
import { OAUTH_MAX_BODY } from "./oauth/form.ts";
import { type Scope, SCOPES } from "./oauth/scopes.ts";
import type { OperationDoc, ResponseDoc } from "./openapi.ts";
import { SECURITY } from "./openapi.ts";
import {
  AiCatalog,
  AuthorizationServerMetadata,
  Health,
  JsonRpcMessage,
  LocationsOutput,
  OpenApiDocument,
  ProtectedResourceMetadata,
  RegistrationInput,
  RegistrationResponse,
  RevocationRequest,
  ServerCard,
  TokenRequest,
  TokenResponse,
  ToolDescriptor,
} from "./openapi_components.ts";
import * as ex from "./openapi_examples.ts";
import {
  apiError,
  bodyLimits,
  forbiddenOrigin,
  invalidClient,
  oauthError,
  RATE_HEADERS,
  rateLimited,
  tooLarge,
} from "./openapi_responses.ts";
import { LeadInput, QuoteInput } from "./schemas.ts";
import { CoverageOutput, LeadOutput, QuoteOutput, ServicesOutput } from "./output_schemas.ts";
import { SUBMISSION_MAX_BODY } from "./submissions.ts";
import { TOOLS } from "./tools.ts";

const FORM = "application/x-www-form-urlencoded";

/**
 * The operations, by route. Built per handler because some examples are the
 * service's own documents for the configured base URL.
 */
export function operationDocs(config: Config) {
  const base = config.baseUrl;
  return {
    healthz: {
      operationId: "getHealth",
      summary: "Liveness",
      description: "200 while the KV store answers, 503 when it does not. Never cached.",
      tags: ["Operations"],
      responses: {
        "200": { description: "The service and its store answer", schema: Health },
        "503": apiError("The KV store does not answer", [
          "unavailable",
          "the store does not answer",
        ]),
      },
    },
    asMetadata: {
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
    prMetadata: {
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
    registerClient: {
      operationId: "registerClient",
      summary: "Register an anonymous agent client",
      description: "No human involved, no RFC 7591 dynamic client registration. The secret is " +
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
          ["invalid_request", "type is required and must be a string"],
          ["invalid_json", "request body is not valid JSON"],
          ["unsupported_identity_type", "identity type must be one of: anonymous"],
          ["invalid_scope", `unknown scope "orders:write"; supported: ${SCOPES.join(" ")}`],
        ),
        ...bodyLimits("oauth", OAUTH_MAX_BODY),
        "415": oauthError("The body is not JSON", [
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
      requestBody: { contentType: FORM, schema: TokenRequest, examples: ex.TOKEN_REQUEST_EXAMPLES },
      responses: {
        "200": {
          description: "An access token (Cache-Control: no-store)",
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
      params: _COVERAGE_PARAMS,
      responses: {
        "200": {
          description: "The coverage",
          schema: CoverageOutput,
          examples: ex.COVERAGE_EXAMPLES,
        },
        "400": _invalidQuery(),
      },
    }),
    publicServices: {
      operationId: "listServices",
      summary: "The service catalog",
      description: _withTool("Anonymous, cacheable 5 minutes.", "list_services"),
      tags: ["Public"],
      responses: {
        "200": {
          description: "The catalog",
          schema: ServicesOutput,
          examples: ex.SERVICES_EXAMPLES,
        },
      },
    },
    publicLocations: {
      operationId: "checkCoverage",
      summary: "Coverage for a city, or the published locations",
      description: _withTool(
        "With `city`: the coverage check; without: the published locations, only " +
          "`country`'s when given. Anonymous, cacheable 5 minutes.",
        "check_coverage",
      ),
      tags: ["Public"],
      query: CoverageQuerySchema.partial(),
      params: _COVERAGE_PARAMS,
      responses: {
        "200": {
          description: "The coverage (with `city`) or the locations (without)",
          schema: z.union([CoverageOutput, LocationsOutput]),
          examples: { ...ex.COVERAGE_EXAMPLES, ...ex.LOCATIONS_EXAMPLES },
        },
        "400": _invalidQuery(),
      },
    },
    submitLead: _submission({
      operationId: "submitLead",
      summary: "Submit a lead",
      description: _withTool(
        "Anonymous. Stored durably and reviewed by a human; nothing is ordered, scheduled or " +
          "billed. Other members are kept.",
        "submit_lead",
      ),
      requestBody: {
        contentType: "application/json",
        schema: LeadInput,
        examples: ex.LEAD_REQUEST_EXAMPLES,
      },
      responses: {
        "202": {
          description: "Accepted for human review",
          schema: LeadOutput,
          examples: ex.LEAD_RESPONSE_EXAMPLES,
        },
        "400": apiError(
          "The body is not JSON, a field is invalid, or the Idempotency-Key is malformed",
          ["validation_failed", "2 fields failed validation: email, description", [
            { path: "email", message: "email must be a valid email address" },
            { path: "description", message: "description is required" },
          ]],
          ["invalid_json", "request body is not valid JSON"],
          [
            "invalid_idempotency_key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
          ],
        ),
      },
    }),
    requestQuote: _submission({
      operationId: "requestQuote",
      summary: "Request a quote",
      description: _withTool(
        "Anonymous. Stored durably and reviewed by a human; nothing is ordered, scheduled or " +
          "billed. Other members are kept.",
        "request_quote",
      ),
      requestBody: {
        contentType: "application/json",
        schema: QuoteInput,
        examples: ex.QUOTE_REQUEST_EXAMPLES,
      },
      responses: {
        "202": {
          description: "Accepted for human review, with a non-binding estimate",
          schema: QuoteOutput,
          examples: ex.QUOTE_RESPONSE_EXAMPLES,
        },
        "400": apiError(
          "The body is not JSON, a field is invalid, or the Idempotency-Key is malformed",
          ["validation_failed", "1 field failed validation: service_type", [{
            path: "service_type",
            message: "service_type must name a catalog service; valid ids: remote-hands, ...",
          }]],
          ["invalid_json", "request body is not valid JSON"],
          [
            "invalid_idempotency_key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
          ],
        ),
      },
    }),
    mcp: {
      operationId: "postMcpMessage",
      summary: "MCP streamable HTTP endpoint",
      description: "JSON-RPC 2.0 messages of the Model Context Protocol (2026-07-28, and " +
        "stateless 2025-11-25 clients); send `Accept: application/json, text/event-stream`. " +
        "Four anonymous tools: `list_services`, `check_coverage`, `submit_lead`, " +
        "`request_quote`. POST only; no sessions. A browser `Origin` must be the service's own " +
        "or listed in ALLOWED_ORIGINS.",
      tags: ["MCP"],
      requestBody: {
        contentType: "application/json",
        schema: JsonRpcMessage,
        examples: ex.MCP_EXAMPLES,
      },
      responses: {
        "200": {
          description: "The JSON-RPC response, as JSON or as one server-sent event",
          schema: JsonRpcMessage,
          contentType: ["application/json", "text/event-stream"],
        },
        "202": { description: "A notification or response was accepted (no body)" },
        "400": {
          description: "Not a JSON-RPC message, or a JSON-RPC batch (an array), which MCP " +
            "2025-06-18 and later do not have: a JSON-RPC error object, -32600 for a batch",
          schema: JsonRpcMessage,
        },
        ...forbiddenOrigin("api"),
        "406": {
          description: "The Accept header lacks application/json or text/event-stream",
          schema: JsonRpcMessage,
        },
        "413": tooLarge("api", MCP_MAX_BODY),
        "415": { description: "The body is not JSON (a JSON-RPC error)", schema: JsonRpcMessage },
        ...rateLimited("api", "mcp", DEFAULT_RATE_LIMITS.mcp),
      },
    },
    serverCard: {
      operationId: "getMcpServerCard",
      summary: "MCP server card",
      description: "Identity of the MCP server and how to connect (SEP-2127). Cacheable 5 minutes.",
      tags: ["MCP"],
      responses: {
        "200": {
          description: "The server card",
          schema: ServerCard,
          contentType: SERVER_CARD_TYPE,
          examples: { card: { summary: "This server", value: serverCard(config) } },
        },
      },
    },
    toolDescriptor: {
      operationId: "getToolDescriptor",
      summary: "Tool descriptor",
      description: "The four tools with their input and output JSON Schemas, REST mapping and " +
        "safety notes. Cacheable 1 minute.",
      tags: ["MCP"],
      responses: { "200": { description: "The descriptor", schema: ToolDescriptor } },
    },
    aiCatalog: {
      operationId: "getAiCatalog",
      summary: "AI catalog",
      description: "Lists the MCP server card. Cacheable 5 minutes.",
      tags: ["MCP"],
      responses: {
        "200": {
          description: "The catalog",
          schema: AiCatalog,
          contentType: "application/ai-catalog+json",
          examples: { catalog: { summary: "This service", value: aiCatalog(config) } },
        },
      },
    },
    mcpCatalog: {
      operationId: "getMcpCatalog",
      summary: "MCP catalog",
      description: "The AI catalog at the MCP catalog's well-known path, as plain JSON.",
      tags: ["MCP"],
      responses: {
        "200": {
          description: "The catalog",
          schema: AiCatalog,
          examples: { catalog: { summary: "This service", value: aiCatalog(config) } },
        },
      },
    },
    homePage: {
      operationId: "getHomePage",
      summary: "Home page",
      description: "A self-contained page for people; in a browser with a model context it " +
        "registers the four tools (WebMCP). Strict CSP, 'self' only.",
      tags: ["Web"],
      responses: {
        "200": { description: "The page", schema: z.string(), contentType: "text/html" },
      },
    },
    webAsset: {
      operationId: "getWebAsset",
      summary: "Script or stylesheet of the home page",
      tags: ["Web"],
      params: { name: { description: "The asset's file name", example: "app.js" } },
      responses: {
        "200": {
          description: "The asset",
          schema: z.string(),
          contentType: ["text/javascript", "text/css"],
        },
        "404": apiError("No such asset", ["not_found", "no such asset"]),
      },
    },
    leadForm: _webForm("lead"),
    quoteForm: _webForm("quote"),
    openApi: {
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI 3.1 document",
      description: "Generated from the route table and its zod schemas. Cacheable 5 minutes.",
      tags: ["Operations"],
      responses: { "200": { description: "The document", schema: OpenApiDocument } },
    },
  } satisfies Record<string, OperationDoc>;
}

/** `POST /forms/lead` and `/forms/quote`: the home page's forms (see intake.ts `webForm`). */
function _webForm(kind: "lead" | "quote"): OperationDoc {
  const api = kind === "lead" ? "`POST /api/v1/intake`" : "`POST /api/v1/quotes`";
  return {
    operationId: kind === "lead" ? "postLeadForm" : "postQuoteForm",
    summary: kind === "lead" ? "The home page's contact form" : "The home page's quote form",
    description: `The same submission as ${api}, recorded as coming from the web page. ` +
      `With a JSON body it answers as ${api} does; a plain form post ` +
      "(`application/x-www-form-urlencoded`, a browser with script off) gets an HTML page: " +
      "the receipt, or the fields to correct. Only from this service's own pages (`Origin`).",
    tags: ["Web"],
    responses: {
      "202": { description: "The receipt", schema: z.string(), contentType: "text/html" },
      "400": { description: "What to correct", schema: z.string(), contentType: "text/html" },
    },
  };
}

/** The query parameters carry the descriptions of the tool's arguments, word for word. */
const _COVERAGE_PARAMS = {
  city: { description: _described(CoverageQuerySchema.shape.city), example: "Zurich" },
  country: { description: _described(CoverageQuerySchema.shape.country), example: "CH" },
} as const;

function _described(schema: z.ZodType): string {
  return String(schema.meta()?.description ?? "");
}

/** An operation's description: what the REST endpoint adds, then its MCP tool's words. */
function _withTool(rest: string, toolName: string): string {
  const tool = TOOLS.find((t) => t.name === toolName)!;
  return `${rest} As the MCP tool \`${toolName}\`: ${tool.description}`;
}

function _invalidQuery(): ResponseDoc {
  return apiError(
    "A missing, empty or over-long city, a malformed country, or a parameter given twice",
    ["invalid_query", "city is required", [{ path: "city", message: "city is required" }]],
    ["invalid_query", "country must be an ISO 3166-1 alpha-2 code such as DE", [{
      path: "country",
      message: "country must be an ISO 3166-1 alpha-2 code such as DE",
    }]],
  );
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
      example: `Bearer realm="${base}", ${extra}resource_metadata="${base}${PATHS.prMetadata}"`,
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

/** A lead or quote submission: Idempotency-Key, JSON only, 64 KiB, rate limited. */
function _submission(
  doc: Pick<OperationDoc, "operationId" | "summary" | "description" | "requestBody" | "responses">,
): OperationDoc {
  const accepted = doc.responses["202"]!;
  return {
    ...doc,
    tags: ["Public"],
    headers: {
      "Idempotency-Key": {
        description: "1–255 visible ASCII characters, optionally quoted. The same key with the " +
          "same body within 24 h replays the first answer and stores nothing new",
        schema: z.string().min(1).max(257),
        example: "5f0c2d4e-quote-1",
      },
    },
    responses: {
      ...doc.responses,
      "202": {
        ...accepted,
        headers: {
          ...RATE_HEADERS,
          "Idempotent-Replayed": {
            description: "`true` when this is the stored answer to an earlier identical request",
            schema: z.literal("true"),
          },
        },
      },
      "409": apiError("The Idempotency-Key was used with a different body", [
        "idempotency_key_reused",
        "this idempotency key was already used with other arguments: send the same arguments " +
        "to get the first answer again, or a new key for a new request",
        [{
          path: "idempotency_key",
          message: "this idempotency key was already used with other arguments: send the same " +
            "arguments to get the first answer again, or a new key for a new request",
        }],
      ]),
      ...bodyLimits("api", SUBMISSION_MAX_BODY),
      "415": apiError("The body is not JSON", [
        "unsupported_media_type",
        "Content-Type must be application/json",
      ]),
      ...forbiddenOrigin("api"),
      ...rateLimited("api", "submit", DEFAULT_RATE_LIMITS.submit, DEFAULT_RATE_LIMITS.submitGlobal),
    },
  };
}
