/**
 * @module
 * `/llms.txt` (llmstxt.org) and `/robots.txt`, written once per handler from what the
 * service serves: its paths, its configured base URL and limits, and the tool list itself,
 * so neither can name a tool, a document or a limit the service does not have.
 *
 * llms.txt is Markdown (an H1, a `>` summary, notes, then `## Section` lists of
 * `- [title](url): note`); llmstxt.org names no media type, so it is served as
 * `text/markdown` (RFC 7763). robots.txt (RFC 9309) has no field for llms.txt and no
 * convention names one, so it does not mention it.
 */

import type { Config } from "../config.ts";
import { PATHS, STAFF_PATHS, templatePath } from "../http/paths.ts";
import { TOOLS } from "../mcp/tools.ts";
import { SERVICE_NAME } from "../oauth/discovery.ts";
import { SCOPES } from "../oauth/scopes.ts";
import { TOKEN_LIFETIME_S } from "../oauth/token.ts";

/** The media types of the two files. */
export const LLMS_TXT_TYPE = "text/markdown; charset=utf-8";
export const ROBOTS_TXT_TYPE = "text/plain; charset=utf-8";

/** `/llms.txt`: what the service is, where its documents are, its tools and its rules. */
export function llmsTxt(config: Config): string {
  const url = (path: string) => config.baseUrl + templatePath(path);
  return [
    `# ${SERVICE_NAME}`,
    "",
    "> On-site field services for datacenters (remote hands, installation, cabling and more) " +
    "in the covered cities. Agents can read the catalog, check coverage, price a job and send " +
    "a lead or a quote request, anonymously, over REST or MCP. A person reviews every " +
    "submission; nothing is ordered, scheduled or billed here.",
    "",
    "Rules an agent must know:",
    "",
    "- No account is needed: the public reads, the estimate, the submissions and the MCP " +
    "tools are anonymous. Nothing this service does is billable, and no call creates an " +
    "order, dispatches an engineer, accepts a quote or touches a ticket.",
    `- Every submission (lead or quote request) waits for human review; its answer says ` +
    `when to expect it (within ${config.reviewHours.standard} h, ` +
    `${config.reviewHours.emergency} h for an emergency). Its status is at ` +
    `\`GET ${templatePath(PATHS.requestStatus)}\`, in the answer's words: \`status\` is ` +
    "`pending` until a person decides (then `approved` or `rejected`), and `next_step` says " +
    "what happens next.",
    "- Estimates and quote prices are non-binding: the team replies with a written quotation.",
    "- Notice: a service needs at a site the larger of its own `minimum_notice_hours` and the " +
    "site's response time; the catalog gives it per location (`notice_hours_by_location`), a " +
    "coverage answer per service (`notice_hours`). A sooner start is accepted, and a person " +
    "confirms it.",
    "- `estimated_hours` is per engineer, not the total; more than 10 h is priced as days of " +
    "at most 10 h, stated in the answer. An emergency with no date or time is priced from now " +
    "at the site.",
    `- Rate limits per client address per minute: ${_limits(config)}. Past one, the answer ` +
    "is `429 rate_limited` with `Retry-After` (seconds): wait that long before retrying.",
    "- Retries are safe. An identical submission from the same address within 10 minutes " +
    "returns the first answer (`replayed: true`) and stores nothing new, whatever key it " +
    "carries (the same, another or none) and over REST or MCP alike. A key (`Idempotency-Key` " +
    "on REST, `idempotency_key` on MCP) that stored a submission replays its answer for 24 h; " +
    "the same key with a different body is `409`.",
    "- The agent reads (`/api/v1/agent/*`) take an OAuth 2 Bearer token from the client " +
    `credentials grant: register at \`POST ${PATHS.identity}\` with ` +
    '`{"type":"anonymous"}`, then `POST ' + PATHS.token + "` with HTTP Basic " +
    `(client_id:client_secret) and \`grant_type=client_credentials\`. Scopes: ` +
    `${SCOPES.join(", ")}; tokens last ${TOKEN_LIFETIME_S} s. The same data is public ` +
    "without a token.",
    "- Large answers are sent gzip or Brotli compressed when `Accept-Encoding` allows.",
    "",
    "## Discovery",
    "",
    `- [OpenAPI 3.1 document](${url(PATHS.openApi)}): every endpoint, its inputs, answers ` +
    "and errors",
    `- [MCP tool descriptor](${url(PATHS.toolDescriptor)}): the tools with their input and ` +
    "output schemas and REST equivalents",
    `- [MCP endpoint](${url(PATHS.mcp)}): Streamable HTTP (POST JSON-RPC), anonymous`,
    `- [MCP server card](${url(PATHS.serverCard)}): identity, protocol versions, how to connect`,
    `- [AI catalog](${url(PATHS.aiCatalog)}): this service's entry (also at ` +
    `${url(PATHS.mcpCatalog)})`,
    `- [OAuth authorization server metadata](${url(PATHS.authorizationServerMetadata)}): ` +
    "RFC 8414; token, revocation and registration endpoints",
    `- [OAuth protected resource metadata](${url(PATHS.protectedResourceMetadata)}): ` +
    "RFC 9728; the agent resource and its scopes",
    "",
    "## Tools",
    "",
    ...TOOLS.map((t) =>
      `- [${t.name}](${url(t.http.path)}): ${t.title} (MCP tool; REST \`${t.http.method} ` +
      `${templatePath(t.http.path)}\`${
        t.submits ? "; a submission, reviewed by a person" : ""
      }). ` +
      t.description
    ),
    "",
    "## Optional",
    "",
    `- [Home page](${config.baseUrl}/): the same catalog, coverage check and forms for people, ` +
    "with the tools registered for browser agents (WebMCP)",
    "",
  ].join("\n");
}

/** The per-address limits as a phrase; a limit set to 0 is off and not named. */
function _limits(config: Config): string {
  const l = config.rateLimits;
  const named: [number, string][] = [
    [l.submit, "submissions"],
    [l.estimate, "estimates"],
    [l.mcp, "MCP requests"],
    [l.register, "client registrations"],
    [l.token, "token requests"],
  ];
  const on = named.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return on.length ? on.join(", ") : "none set";
}

/**
 * `/robots.txt`: crawlers may read the pages and documents, not the endpoints that write,
 * spend a rate limit or need a credential, nor the staff console.
 */
export function robotsTxt(): string {
  const disallowed = [
    PATHS.mcp,
    PATHS.identity,
    "/oauth2/",
    "/api/v1/agent/",
    PATHS.intake,
    PATHS.quotes,
    PATHS.estimate,
    "/api/v1/requests/",
    "/forms/",
    STAFF_PATHS.prefix,
  ];
  return [
    "User-agent: *",
    ...disallowed.map((path) => `Disallow: ${path}`),
    // Longest match wins (RFC 9309 §2.2.2): the MCP discovery document under /api/v1/mcp.
    `Allow: ${PATHS.serverCard}`,
    "Allow: /",
    "",
  ].join("\n");
}
