/**
 * @module
 * The OpenAPI 3.1 document at `GET /api/v1/openapi.json`, generated from the route
 * table itself: every route carries its {@linkcode OperationDoc}, whose zod schemas
 * are converted with the same `jsonSchema()` as the MCP descriptor. A route added
 * to the table without a `doc` makes the document, and its test, fail.
 */

import { z } from "zod";
import type { Config } from "../config.ts";
import { PATHS, templatePath } from "../http/paths.ts";
import { SERVICE_NAME } from "../oauth/discovery.ts";
import { jsonSchema } from "../mcp/json_schema.ts";
import { type Scope, SCOPES } from "../oauth/scopes.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { type ComponentSchemas, componentSchemas } from "./components.ts";
import type { Route } from "../http/router.ts";

/** The version of this REST API (`info.version`), not of the OpenAPI format. */
const API_VERSION = "1.0.0";

/** Names of `components.securitySchemes`, for the `security` of operations. */
export const SECURITY = {
  /** `client_secret_basic` on the token and revocation endpoints (RFC 6749 §2.3.1). */
  clientBasic: "clientBasic",
  /** Client credentials flow: what OAuth-aware tooling uses to fetch a token itself. */
  oauth2: "oauth2",
  /** The same opaque token, for tooling that is handed one (RFC 6750). */
  bearer: "bearer",
} as const;

/** Operation tags, in the order a reader meets them. */
const TAGS = [
  { name: "Discovery", description: "RFC 8414 and RFC 9728 metadata. Anonymous." },
  { name: "OAuth", description: "Agent registration, client credentials tokens, revocation." },
  { name: "Agent resource", description: "Read-only reads behind a Bearer token and a scope." },
  { name: "Public", description: "Anonymous reads, and lead and quote submissions." },
  { name: "MCP", description: "The anonymous MCP tool interface and its discovery documents." },
  { name: "Web", description: "The home page for people and browser agents (WebMCP)." },
  { name: "Operations", description: "Liveness and this document." },
] as const;

export interface ExampleDoc {
  summary: string;
  value: unknown;
}

/** A request or response header. */
export interface HeaderDoc {
  description: string;
  schema: z.ZodType;
  required?: boolean;
  example?: unknown;
}

export interface ResponseDoc {
  description: string;
  /** The body; omitted for a response without one. */
  schema?: z.ZodType;
  /** Defaults to `application/json`; several types share the schema and examples. */
  contentType?: string | readonly string[];
  examples?: Readonly<Record<string, ExampleDoc>>;
  headers?: Readonly<Record<string, HeaderDoc>>;
  /** Other media types of the same answer, each with a schema of its own (an HTML page). */
  alternatives?: Readonly<Record<string, z.ZodType>>;
}

interface RequestBodyDoc {
  contentType: string;
  schema: z.ZodType;
  description?: string;
  examples?: Readonly<Record<string, ExampleDoc>>;
  /** Other media types the operation takes, each with its schema (a form post). */
  alternatives?: Readonly<Record<string, z.ZodType>>;
}

/** What a route adds to the document; method and path come from the route itself. */
export interface OperationDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly (typeof TAGS)[number]["name"][];
  /** Alternatives, each naming a {@linkcode SECURITY} scheme and its scopes; none: anonymous. */
  security?: readonly Readonly<Record<string, readonly Scope[]>>[];
  /** The query string, as the zod object the handler validates it with. */
  query?: z.ZodObject;
  /** An optional query parameter sent empty is read as not given (`allowEmptyValue`). */
  emptyQueryValues?: boolean;
  /** Descriptions and examples of path (`:name`) and query parameters, by name. */
  params?: Readonly<Record<string, { description: string; example?: unknown }>>;
  /** Request headers the operation reads, such as `Idempotency-Key`. */
  headers?: Readonly<Record<string, HeaderDoc>>;
  requestBody?: RequestBodyDoc;
  /** By status code. */
  responses: Readonly<Record<string, ResponseDoc>>;
}

type Json = Record<string, unknown>;
type Convert = (schema: z.ZodType, io: "input" | "output") => Json;

const _SCOPE_GRANTS: Record<Scope, string> = {
  "services:read": `GET ${PATHS.agentServices}`,
  "locations:read": `GET ${PATHS.agentLocations}`,
  "coverage:read": `GET ${PATHS.agentCoverage}`,
};

const _DESCRIPTION = `Field services for datacenters (remote hands, rack-and-stack, cabling,
hardware swaps, audits…), for AI agents and people. Nothing here creates an order, accepts a
quote, bills or dispatches: every lead and quote request waits for a human review, and budget
estimates are non-binding.

- **Anonymous:** discovery documents, the catalog and coverage check, lead and quote submissions,
  and the MCP tool interface.
- **Agent resource:** register at \`POST /agent/identity\` (no human involved), get a token with the
  client credentials grant and \`client_secret_basic\`, then read \`/api/v1/agent/*\` with
  \`Authorization: Bearer\` and the matching read scope. Tokens are opaque and live 900 s.

Errors: the OAuth endpoints answer \`{error, error_description}\` (RFC 6749 §5.2), every other
endpoint \`{ok: false, error, message, issues?}\`. Besides the responses listed per operation, any
request may get \`500 internal_error\`, \`503 unavailable\` with \`Retry-After\` while the service
shuts down, \`503 overloaded\` with \`Retry-After\` when MAX_IN_FLIGHT requests are already being
handled, or \`503 temporarily_unavailable\` with \`Retry-After\` when the store does not answer within
its deadline (2.5 s a call); a method a path does not serve is \`405\` with \`Allow\`; a \`Host\` header that is not a host
name is \`400 invalid_request\`. \`HEAD\` works wherever \`GET\`
does, and \`OPTIONS\` answers CORS preflights.`;

/**
 * Builds the document from the route table, in table order. Throws when a route has
 * no `doc` or the table maps one method and path twice.
 */
export function openApiDocument<C>(
  routes: readonly Route<C, OperationDoc>[],
  config: Config,
  catalog: Catalog,
): Json {
  const components = componentSchemas(catalog, config.baseUrl);
  const convert = _converter(components);
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const where = `${r.method} ${r.pattern.pathname}`;
    if (!r.doc) throw new Error(`route ${where} has no OpenAPI doc`);
    const item = paths[templatePath(r.pattern.pathname)] ??= {};
    const method = r.method.toLowerCase();
    if (item[method]) throw new Error(`route ${where} is in the table twice`);
    item[method] = _operation(r.pattern.pathname, r.doc, convert);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: `${SERVICE_NAME} API`,
      version: API_VERSION,
      summary: "Agent-ready API of a datacenter field-services provider.",
      description: _DESCRIPTION,
    },
    servers: [{ url: config.baseUrl }],
    tags: TAGS,
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(components).map(([name, c]) => [name, jsonSchema(c.schema, c.io)]),
      ),
      securitySchemes: _securitySchemes(config),
    },
  };
}

/** The names of a URLPattern's path parameters, in order. */
export function pathParameters(pathname: string): string[] {
  return [...pathname.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

/**
 * zod → JSON Schema, with a `$ref` for a schema listed in `components.schemas` (by
 * identity, so an operation that names the shared schema object points to it) and
 * `oneOf` for a union of such schemas.
 */
function _converter(components: ComponentSchemas): Convert {
  const names = new Map<z.ZodType, string>(
    Object.entries(components).map(([name, c]) => [c.schema, name]),
  );
  const convert: Convert = (schema, io) => {
    const name = names.get(schema);
    if (name) return { $ref: `#/components/schemas/${name}` };
    const options = schema instanceof z.ZodUnion ? schema.options as readonly z.ZodType[] : [];
    if (options.length > 0 && options.every((o) => names.has(o))) {
      return { oneOf: options.map((o) => convert(o, io)) };
    }
    return jsonSchema(schema, io);
  };
  return convert;
}

function _operation(pathname: string, doc: OperationDoc, convert: Convert): Json {
  const parameters = [
    ...pathParameters(pathname).map((name) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
      ..._paramText(doc, name),
    })),
    ..._queryParameters(doc, convert),
    ...Object.entries(doc.headers ?? {}).map(([name, h]) => ({
      name,
      in: "header",
      ..._header(h, convert),
    })),
  ];
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    ...(parameters.length ? { parameters } : {}),
    ...(doc.requestBody ? { requestBody: _requestBody(doc.requestBody, convert) } : {}),
    responses: Object.fromEntries(
      Object.entries(doc.responses).map(([status, r]) => [status, _response(r, convert)]),
    ),
    // OpenAPI 3.1 §4.8.10: an operation without `security` inherits the (empty) root one.
    ...(doc.security ? { security: doc.security } : {}),
  };
}

/** One query parameter per property of the zod object, `required` as the schema says. */
function _queryParameters(doc: OperationDoc, convert: Convert): Json[] {
  if (!doc.query) return [];
  const schema = convert(doc.query, "input") as {
    properties?: Record<string, Json>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const required = schema.required?.includes(name) ?? false;
    return {
      name,
      in: "query",
      required,
      ...(doc.emptyQueryValues && !required ? { allowEmptyValue: true } : {}),
      schema: property,
      ..._paramText(doc, name),
    };
  });
}

function _paramText(doc: OperationDoc, name: string): Json {
  const p = doc.params?.[name];
  if (!p) return {};
  return { description: p.description, ...(p.example !== undefined ? { example: p.example } : {}) };
}

function _header(h: HeaderDoc, convert: Convert): Json {
  return {
    description: h.description,
    ...(h.required ? { required: true } : {}),
    schema: convert(h.schema, "output"),
    ...(h.example !== undefined ? { example: h.example } : {}),
  };
}

function _requestBody(body: RequestBodyDoc, convert: Convert): Json {
  return {
    required: true,
    ...(body.description ? { description: body.description } : {}),
    content: {
      [body.contentType]: {
        schema: convert(body.schema, "input"),
        ...(body.examples ? { examples: body.examples } : {}),
      },
      ..._alternatives(body.alternatives, "input", convert),
    },
  };
}

function _alternatives(
  alternatives: Readonly<Record<string, z.ZodType>> | undefined,
  io: "input" | "output",
  convert: Convert,
): Json {
  return Object.fromEntries(
    Object.entries(alternatives ?? {}).map(([type, schema]) => [type, {
      schema: convert(schema, io),
    }]),
  );
}

function _response(r: ResponseDoc, convert: Convert): Json {
  const types = typeof r.contentType === "string"
    ? [r.contentType]
    : r.contentType ?? ["application/json"];
  const media = r.schema
    ? { schema: convert(r.schema, "output"), ...(r.examples ? { examples: r.examples } : {}) }
    : undefined;
  return {
    description: r.description,
    ...(r.headers
      ? {
        headers: Object.fromEntries(
          Object.entries(r.headers).map(([name, h]) => [name, _header(h, convert)]),
        ),
      }
      : {}),
    ...(media
      ? {
        content: {
          ...Object.fromEntries(types.map((t) => [t, media])),
          ..._alternatives(r.alternatives, "output", convert),
        },
      }
      : {}),
  };
}

function _securitySchemes(config: Config): Json {
  const scopes = Object.fromEntries(
    SCOPES.map((s) => [s, `read-only: ${_SCOPE_GRANTS[s]}`]),
  );
  return {
    [SECURITY.clientBasic]: {
      type: "http",
      scheme: "basic",
      description: "client_secret_basic (RFC 6749 §2.3.1): the client_id and client_secret " +
        "from `POST /agent/identity`, each form-url-encoded, joined by a colon, base64.",
    },
    [SECURITY.oauth2]: {
      type: "oauth2",
      description: "OAuth 2.0 client credentials. Register first at `POST /agent/identity` " +
        `(anonymous); the token is opaque, lives 900 s and is for the audience ${config.baseUrl}.`,
      flows: {
        clientCredentials: { tokenUrl: config.baseUrl + PATHS.token, scopes },
      },
    },
    [SECURITY.bearer]: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "opaque",
      description: "An access token from `POST /oauth2/token`, in the Authorization header only " +
        "(RFC 6750 §2.1). The operation's scopes (OpenAPI 3.1 role names) are the ones it needs.",
    },
  };
}
