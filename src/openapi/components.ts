/**
 * @module
 * The named schemas of the OpenAPI document (`components.schemas`). Request and
 * submission schemas are the ones the handlers validate with; the answers that no
 * zod schema described (error bodies, token and registration answers, discovery
 * documents) are described here, and `tests/openapi/document_test.ts` checks real answers
 * against them, so the document cannot drift from the service.
 */

import { z } from "zod";
import { Location } from "../catalog/records.ts";
import { IDENTITY_TYPES, RegistrationRequest } from "../oauth/registration.ts";
import { SCOPES } from "../oauth/scopes.ts";
import { TOKEN_LIFETIME_S } from "../oauth/token.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { LeadInput, quoteInput } from "../intake/schemas.ts";
import { CoverageOutput, ServicesOutput } from "../mcp/output_schemas.ts";
import { LeadOutput, QuoteOutput } from "../mcp/intake_outputs.ts";

const _scopeString = z.string().describe(
  `Space-separated scopes (RFC 6749 §3.3) from: ${SCOPES.join(", ")}`,
);

/** A scope string as the service reads one: known scopes, separated by spaces (scopes.ts). */
const _scopePattern = (() => {
  const one = `(?:${SCOPES.join("|")})`;
  return new RegExp(`^ *(?:${one}(?: +${one})*)? *$`);
})();

/** RFC 6749 §5.2, the layout of every error of `/agent/identity` and `/oauth2/*`. */
export const OAuthErrorBody = z.strictObject({
  error: z.string().describe("The error code; docs/api.md lists every one"),
  error_description: z.string().describe("For people; only the characters RFC 6749 §5.2 allows"),
}).describe("OAuth error (RFC 6749 §5.2), sent with Cache-Control: no-store, no-transform");

/** The layout of every error outside the OAuth endpoints (`errorResponse` in `http/errors.ts`). */
export const ApiErrorBody = z.strictObject({
  ok: z.literal(false).describe("false: the request failed; nothing was stored"),
  error: z.string().describe(
    "Machine-readable code, such as validation_failed, invalid_query, rate_limited, " +
      "idempotency_key_reused, forbidden_origin, payload_too_large, not_found, overloaded, " +
      "temporarily_unavailable or internal_error (each response below lists its own)",
  ),
  message: z.string().describe("For people and agents: what went wrong and how to fix it"),
  issues: z.array(
    z.strictObject({
      path: z.string().describe(
        "The field at fault, as a dotted path (attachments_optional.0), or (body)",
      ),
      message: z.string().describe("What is wrong with it and what is accepted"),
      did_you_mean: z.string().nullable().optional().describe(
        "For a field or argument the endpoint does not take: the one it probably means, or null",
      ),
    }).describe("One problem"),
  )
    .describe("Every field problem of a validation failure, all at once")
    .optional(),
}).describe("API error");

/**
 * The registration request, each member narrowed to the values that succeed: `type`
 * (defaulted), the scopes, the one grant type and the one authentication method.
 */
export const RegistrationInput = RegistrationRequest.extend({
  type: z.enum(IDENTITY_TYPES).optional().describe(
    "Only anonymous agents register; omitted: anonymous",
  ),
  scope: RegistrationRequest.shape.scope.unwrap().regex(_scopePattern).optional().describe(
    "Space-separated read scopes; omitted: all three",
  ),
  grant_types: z.array(z.literal("client_credentials")).max(8).optional().describe(
    "RFC 7591; client_credentials is the only grant",
  ),
  token_endpoint_auth_method: z.literal("client_secret_basic").optional().describe(
    "RFC 7591; HTTP Basic at the token and revocation endpoints is the only method",
  ),
});

export const RegistrationResponse = z.strictObject({
  client_id: z.string(),
  client_secret: z.string().describe("Shown once; only its SHA-256 digest is stored"),
  client_id_issued_at: z.int().describe("Seconds since the epoch"),
  client_secret_expires_at: z.literal(0).describe("The secret itself never expires"),
  scope: _scopeString,
  grant_types: z.array(z.literal("client_credentials")),
  token_endpoint_auth_method: z.literal("client_secret_basic"),
});

const _tokenRequests = new Map<string, z.ZodObject>();

/**
 * The token request for a base URL: `resource` (RFC 8707) is that URL, with or without its
 * trailing slash (oauth/token.ts). One schema per URL, so operations name the component.
 */
export function tokenRequest(baseUrl: string): z.ZodObject {
  let schema = _tokenRequests.get(baseUrl);
  if (!schema) {
    schema = z.object({
      grant_type: z.literal("client_credentials"),
      resource: z.enum([baseUrl, `${baseUrl}/`]).optional().describe(
        "RFC 8707; if given, the base URL (the one server URL). Omitted means the same",
      ),
      scope: _scopeString.regex(_scopePattern).optional().describe(
        "A subset of the client's registered scopes; omitted: all of them",
      ),
    });
    _tokenRequests.set(baseUrl, schema);
  }
  return schema;
}

export const TokenResponse = z.strictObject({
  access_token: z.string().describe("Opaque; send as Authorization: Bearer"),
  token_type: z.literal("Bearer"),
  expires_in: z.literal(TOKEN_LIFETIME_S),
  scope: _scopeString,
});

export const RevocationRequest = z.object({
  token: z.string().min(1).describe("An access token this client obtained"),
  token_type_hint: z.string().optional().describe("Only access_token exists; the hint is ignored"),
});

const _uris = z.array(z.url());

/** RFC 8414, loosely: the members a client needs. */
export const AuthorizationServerMetadata = z.looseObject({
  issuer: z.url(),
  token_endpoint: z.url(),
  revocation_endpoint: z.url(),
  scopes_supported: z.array(z.enum(SCOPES)),
  grant_types_supported: z.array(z.literal("client_credentials")),
  token_endpoint_auth_methods_supported: z.array(z.literal("client_secret_basic")),
  revocation_endpoint_auth_methods_supported: z.array(z.literal("client_secret_basic")),
  protected_resources: _uris,
  agent_auth: z.looseObject({
    identity_endpoint: z.url(),
    identity_types_supported: z.array(z.enum(IDENTITY_TYPES)),
  }),
  register_uri: z.url().describe("Alias of agent_auth.identity_endpoint"),
});

/** RFC 9728, loosely. */
export const ProtectedResourceMetadata = z.looseObject({
  resource: z.url(),
  authorization_servers: _uris,
  scopes_supported: z.array(z.enum(SCOPES)),
  bearer_methods_supported: z.array(z.literal("header")),
  resource_name: z.string(),
});

export const LocationsOutput = z.looseObject({ ok: z.boolean(), locations: z.array(Location) });

export const Health = z.strictObject({ ok: z.literal(true) });
export const Readiness = z.strictObject({
  ready: z.boolean().describe(
    "true when the store answered a ping within its deadline and its breaker is closed",
  ),
});

/** SPEC §2.6, loosely: the tool entries are detailed in the descriptor itself. */
export const ToolDescriptor = z.looseObject({
  ok: z.literal(true),
  version: z.string(),
  protocol_version: z.string(),
  transport: z.literal("streamable-http"),
  transport_url: z.url(),
  mcp_status: z.string(),
  mcp_endpoint_publicly_exposed: z.boolean(),
  tools: z.array(z.looseObject({
    name: z.string(),
    description: z.string(),
    input_schema: z.looseObject({}),
    output_schema: z.looseObject({}),
    http: z.looseObject({ method: z.string(), path: z.string() }),
  })),
  blocked_anonymous_actions: z.array(z.string()),
});

/** MCP Server Card (SEP-2127), loosely. */
export const ServerCard = z.looseObject({
  name: z.string(),
  version: z.string(),
  description: z.string(),
  remotes: z.array(z.looseObject({
    type: z.literal("streamable-http"),
    url: z.url(),
    supportedProtocolVersions: z.array(z.string()),
  })),
});

export const AiCatalog = z.looseObject({
  specVersion: z.string(),
  entries: z.array(z.looseObject({
    identifier: z.string(),
    displayName: z.string(),
    type: z.string(),
    url: z.url(),
  })),
});

const _rpc = { jsonrpc: z.literal("2.0") };
/** JSON-RPC 2.0 ids as MCP takes them: a string or a whole number, never null. */
const _rpcId = z.union([z.string(), z.int()]);
/** Params and `_meta` are open; the MCP specification defines their members. */
const _rpcParams = z.looseObject({
  _meta: z.looseObject({ progressToken: _rpcId.optional() }).optional(),
}).optional();

const _rpcRequest = z.strictObject({ ..._rpc, id: _rpcId, method: z.string(), params: _rpcParams })
  .describe("A request");
const _rpcNotification = z.strictObject({ ..._rpc, method: z.string(), params: _rpcParams })
  .describe("A notification");
const _rpcResult = z.strictObject({ ..._rpc, id: _rpcId, result: z.looseObject({}) })
  .describe("A result");
const _rpcError = (id: z.ZodType) =>
  z.strictObject({
    ..._rpc,
    id,
    error: z.strictObject({ code: z.int(), message: z.string(), data: z.unknown().optional() }),
  }).describe("An error");

/**
 * The envelope of a JSON-RPC 2.0 message as the MCP endpoint takes it (no other member; a
 * batch is refused): a request, a notification, a result or an error. What `params` and
 * `result` hold is the MCP specification's.
 */
export const JsonRpcMessage = z.union([
  _rpcRequest,
  _rpcNotification,
  _rpcResult,
  _rpcError(_rpcId.optional()),
]).describe("A JSON-RPC 2.0 message as the MCP endpoint takes it");

/**
 * A JSON-RPC 2.0 message as the MCP endpoint sends it: an error repeats the id of the
 * request it answers as it was sent (a string or any number), or is null where the request
 * had no id it could read (JSON-RPC 2.0 §5).
 */
export const JsonRpcAnswer = z.union([
  _rpcRequest,
  _rpcNotification,
  _rpcResult,
  _rpcError(z.union([z.string(), z.number(), z.null()])),
]).describe("A JSON-RPC 2.0 message as the MCP endpoint sends it");

/**
 * The MCP endpoint's `text/event-stream` answer, as its events (WHATWG HTML §9.2): each
 * event's `data` is one JSON-RPC message, the JSON of {@linkcode JsonRpcAnswer}.
 */
export const McpEventStream = z.array(
  z.strictObject({
    event: z.string().optional().describe("The event type: message"),
    id: z.string().optional(),
    data: z.string().meta({
      description: "One JSON-RPC message, as JSON",
      contentMediaType: "application/json",
      contentSchema: { $ref: "#/components/schemas/JsonRpcAnswer" },
    }),
  }).describe("One server-sent event"),
).min(1).describe(
  "A server-sent event stream: its events, in order, each carrying one JSON-RPC message " +
    "(the last one the response to the request)",
);

export const OpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/** `components.schemas`: the name, the zod schema, and which side of a transform to show. */
export type ComponentSchemas = Readonly<
  Record<string, { schema: z.ZodType; io: "input" | "output" }>
>;

/**
 * The component schemas of the document for a catalog (QuoteInput names its service ids) and
 * a base URL (the token request's resource).
 */
export function componentSchemas(catalog: Catalog, baseUrl: string): ComponentSchemas {
  return {
    OAuthError: { schema: OAuthErrorBody, io: "output" },
    ApiError: { schema: ApiErrorBody, io: "output" },
    RegistrationRequest: { schema: RegistrationInput, io: "input" },
    RegistrationResponse: { schema: RegistrationResponse, io: "output" },
    TokenRequest: { schema: tokenRequest(baseUrl), io: "input" },
    TokenResponse: { schema: TokenResponse, io: "output" },
    RevocationRequest: { schema: RevocationRequest, io: "input" },
    AuthorizationServerMetadata: { schema: AuthorizationServerMetadata, io: "output" },
    ProtectedResourceMetadata: { schema: ProtectedResourceMetadata, io: "output" },
    LeadInput: { schema: LeadInput, io: "input" },
    LeadOutput: { schema: LeadOutput, io: "output" },
    QuoteInput: { schema: quoteInput(catalog), io: "input" },
    QuoteOutput: { schema: QuoteOutput, io: "output" },
    ServicesOutput: { schema: ServicesOutput, io: "output" },
    CoverageOutput: { schema: CoverageOutput, io: "output" },
    LocationsOutput: { schema: LocationsOutput, io: "output" },
    Health: { schema: Health, io: "output" },
    Readiness: { schema: Readiness, io: "output" },
    ToolDescriptor: { schema: ToolDescriptor, io: "output" },
    ServerCard: { schema: ServerCard, io: "output" },
    AiCatalog: { schema: AiCatalog, io: "output" },
    JsonRpcMessage: { schema: JsonRpcMessage, io: "input" },
    JsonRpcAnswer: { schema: JsonRpcAnswer, io: "output" },
    McpEventStream: { schema: McpEventStream, io: "output" },
    OpenApiDocument: { schema: OpenApiDocument, io: "output" },
  };
}
