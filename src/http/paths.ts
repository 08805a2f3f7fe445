/**
 * @module
 * Every path the service answers, written once: the route table (routes.ts), the metadata
 * documents, the tool descriptor and the OpenAPI document all take their paths from here.
 * Paths with parameters are URLPattern pathnames (`:name`); {@linkcode templatePath} gives
 * the `{name}` form that OpenAPI and the tool descriptor write.
 */

export const PATHS = {
  liveness: "/healthz",
  readiness: "/readyz",
  // Discovery (RFC 8414, RFC 9728) and the OAuth endpoints
  authorizationServerMetadata: "/.well-known/oauth-authorization-server",
  protectedResourceMetadata: "/.well-known/oauth-protected-resource",
  identity: "/agent/identity",
  token: "/oauth2/token",
  revoke: "/oauth2/revoke",
  // The protected agent resource
  agentServices: "/api/v1/agent/services",
  agentLocations: "/api/v1/agent/locations",
  agentCoverage: "/api/v1/agent/coverage",
  // Anonymous public endpoints
  services: "/api/v1/services",
  locations: "/api/v1/locations",
  intake: "/api/v1/intake",
  quotes: "/api/v1/quotes",
  estimate: "/api/v1/estimate",
  requestStatus: "/api/v1/requests/:request_id",
  // The tool interface and its discovery documents
  mcp: "/api/v1/mcp",
  serverCard: "/api/v1/mcp/server-card",
  toolDescriptor: "/.well-known/mcp.json",
  aiCatalog: "/.well-known/ai-catalog.json",
  mcpCatalog: "/.well-known/mcp/catalog.json",
  // The home page, its assets and its forms
  home: "/",
  asset: "/assets/:name",
  leadForm: "/forms/lead",
  quoteForm: "/forms/quote",
  openApi: "/api/v1/openapi.json",
  // For language models (llmstxt.org) and crawlers (RFC 9309)
  llmsTxt: "/llms.txt",
  robotsTxt: "/robots.txt",
} as const;

/**
 * The staff console's paths, all under `/staff/` (robots.txt keeps crawlers out; the console
 * is not part of the API, so the OpenAPI document leaves it out).
 */
export const STAFF_PATHS = {
  prefix: "/staff/",
  queue: "/staff/",
  submission: "/staff/submissions/:request_id",
  decide: "/staff/submissions/:request_id/decision",
  erase: "/staff/submissions/:request_id/erase",
  eraseEmail: "/staff/erase-email",
  clients: "/staff/clients",
  members: "/staff/members",
  removeMember: "/staff/members/:member_id/remove",
  invites: "/staff/invites",
  audit: "/staff/audit",
  demand: "/staff/demand",
  signIn: "/staff/sign-in",
  signInOptions: "/staff/sign-in/options",
  signOut: "/staff/sign-out",
  enrol: "/staff/enrol",
  enrolOptions: "/staff/enrol/options",
  assets: "/staff/assets/",
  asset: "/staff/assets/:name",
} as const;

/** Where the versioned REST API lives (SPEC §9). */
export const API_PREFIX = "/api/v1/";

/**
 * A URLPattern pathname as a URI template, `/a/:id` → `/a/{id}`, as OpenAPI and the tool
 * descriptor write it. Throws on URLPattern syntax a template cannot say (`*`, `?`, groups).
 */
export function templatePath(pathname: string): string {
  const path = pathname.replace(/:(\w+)/g, "{$1}");
  if (/[*?+()]/.test(path)) throw new Error(`${pathname}: unsupported URLPattern syntax`);
  return path;
}
