/**
 * @module
 * The anonymous tools, defined once: the four of the SPEC and two read-only additions
 * (a price without a side effect, and a request's status). The MCP server, the tool descriptor,
 * the WebMCP page (through the descriptor) and the REST mapping all come from
 * this list, and every tool calls the same functions as its REST endpoint.
 * No tool creates an order, dispatches, accepts a quote or touches tickets.
 */

import type { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import type { Context } from "../context.ts";
import { PATHS, templatePath } from "../http/paths.ts";
import { checkCoverage } from "../catalog/coverage.ts";
import { COVERAGE_LENIENCY, CoverageQuerySchema } from "../catalog/coverage_query.ts";
import { lenientArguments } from "../intake/lenient.ts";
import { LeadInput, parseArguments, quoteInput } from "../intake/schemas.ts";
import { CoverageOutput, NoInput, ServicesOutput } from "./output_schemas.ts";
import { EstimateOutput, LeadOutput, QuoteOutput, StatusOutput } from "./intake_outputs.ts";
import { submitLead, submitLimited, submitQuote } from "../intake/submissions.ts";
import { EstimateInput, estimateLimited, estimateQuote } from "../pricing/estimate.ts";
import { QUERY_LIMITS } from "../http/query.ts";
import { SUBMISSION_MAX_PROPERTIES } from "../intake/bounds.ts";
import { requestStatus, StatusInput } from "../intake/status.ts";

interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** The input schema for the catalog served (request_quote's names its service ids). */
  input: (catalog: Catalog) => z.ZodType;
  output: z.ZodType;
  /** The REST endpoint that does the same thing. */
  http: { method: "GET" | "POST"; path: string };
  /** True for tools that submit something a human must review. */
  submits: boolean;
  /** True for the read-only tools whose answer the quote builder shows (mcp/app). */
  app?: true;
  /**
   * Most argument names a call may carry: past it the call is refused before the SDK or
   * the tool reads them (endpoint.ts), whatever they are. A read takes what a query takes
   * (http/query.ts); a submission its fields, 16 additional properties and some slack.
   */
  maxArguments: number;
  /**
   * Validates `args` itself, in one pass, and answers or throws an HttpError. The MCP
   * server hands arguments over unchecked, so every problem is reported at once, in the
   * service's format, whether the schema or the catalog finds it.
   */
  run(ctx: Context, args: unknown): Promise<Record<string, unknown>>;
}

const REVIEW = "A person reviews every submission; nothing is ordered, scheduled or billed. " +
  "Limited per address per minute (20 by default, failed calls too); rate_limited says how " +
  "long to wait.";

/** The de-duplication rule (intake/idempotency.ts), as docs/api.md and /llms.txt state it. */
export const RETRY = "An identical call from the same address within 10 minutes returns the " +
  "first answer (replayed: true), whatever its idempotency_key, over REST or MCP; a key that " +
  "stored a request replays its answer for 24 h.";

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "check_coverage",
    title: "Check coverage",
    description: "Use before request_quote, or when a user asks whether we work somewhere. " +
      "Returns whether the place is covered or near a covered city, with its services and " +
      "on-site response time, or the nearest covered cities; a summary sentence says how the " +
      "name or site was read and what to do next (a shared name: ask again with country).",
    input: () => CoverageQuerySchema,
    output: CoverageOutput,
    http: { method: "GET", path: PATHS.locations },
    submits: false,
    app: true,
    maxArguments: QUERY_LIMITS.parameters,
    run: (ctx, args) => {
      const query = parseArguments(CoverageQuerySchema, lenientArguments(args, COVERAGE_LENIENCY));
      const coverage = checkCoverage(ctx.catalog, query);
      ctx.demand.note(coverage);
      return Promise.resolve({ ok: true, coverage });
    },
  },
  {
    name: "list_services",
    title: "List services",
    description: "Use to learn what can be requested: every field service (remote hands, " +
      "rack and stack, cabling, hardware swaps, decommissioning, audits…) with its id, the " +
      "names and aliases service_type accepts, and its published rates.",
    input: () => NoInput,
    output: ServicesOutput,
    http: { method: "GET", path: PATHS.services },
    submits: false,
    maxArguments: QUERY_LIMITS.parameters,
    run: (ctx, args) => {
      parseArguments(NoInput, args);
      return Promise.resolve({
        ok: true,
        services: [...ctx.catalog.services],
        terms: ctx.catalog.terms,
      });
    },
  },
  {
    name: "submit_lead",
    title: "Submit a lead",
    description: "Use when a user wants to be contacted about field services but is not " +
      "ready for a quote. Needs an email and a description. Returns a request id and what " +
      `happens next. ${REVIEW} ${RETRY}`,
    input: () => LeadInput,
    output: LeadOutput,
    http: { method: "POST", path: PATHS.intake },
    submits: true,
    maxArguments: SUBMISSION_MAX_PROPERTIES,
    run: (ctx, args) =>
      submitLimited(ctx, async () => ({ ...(await submitLead(ctx, args, "mcp")).result })),
  },
  {
    name: "request_quote",
    title: "Request a quote",
    description: "Use when a user wants a quotation for one catalog service at one site; " +
      "for a price alone, call estimate_quote (it stores nothing; same pricing). Returns a " +
      "request id, the non-binding budget estimate with every assumption, and when a person " +
      "will review it (expected_review: sooner for urgency emergency); the binding quotation " +
      `comes from that person. Every problem with the arguments is listed in one answer. ${REVIEW} ` +
      RETRY,
    input: quoteInput,
    output: QuoteOutput,
    http: { method: "POST", path: PATHS.quotes },
    submits: true,
    maxArguments: SUBMISSION_MAX_PROPERTIES,
    run: (ctx, args) =>
      submitLimited(ctx, async () => ({ ...(await submitQuote(ctx, args, "mcp")).result })),
  },
  {
    name: "estimate_quote",
    title: "Estimate a price",
    description: "Use when a user wants to know what a job would cost, before any request. " +
      "Returns the non-binding estimate request_quote would give, the city's coverage and " +
      "every assumption. Prices are in EUR, tax excluded (the answer names the tax). " +
      "Times are the site's local time; each hour outside 08:00-18:00 Monday to " +
      "Friday, or on a public holiday there, is at the out-of-hours rate; a start sooner " +
      "than the service's notice is flagged. Stores nothing; limited per address.",
    input: () => EstimateInput,
    output: EstimateOutput,
    http: { method: "GET", path: PATHS.estimate },
    submits: false,
    app: true,
    maxArguments: QUERY_LIMITS.parameters,
    // Counted against RATE_LIMIT_ESTIMATE inside the MCP request's own charge.
    run: (ctx, args) => estimateLimited(ctx, () => Promise.resolve(estimateQuote(ctx, args))),
  },
  {
    name: "get_request_status",
    title: "Get a request's status",
    description: "Use to follow up on a request_id from submit_lead or request_quote: whether " +
      "a person has reviewed it (pending, approved, rejected), when, and what happens next. " +
      "Read-only; shows no personal data.",
    input: () => StatusInput,
    output: StatusOutput,
    http: { method: "GET", path: templatePath(PATHS.requestStatus) },
    submits: false,
    maxArguments: QUERY_LIMITS.parameters,
    run: (ctx, args) => {
      const { request_id } = parseArguments(StatusInput, args);
      return requestStatus(ctx, request_id);
    },
  },
];

/** Actions no anonymous caller can perform, through any tool (SPEC §1.7). */
export const BLOCKED_ANONYMOUS_ACTIONS = [
  "accept_quotes",
  "create_billable_orders",
  "schedule_dispatch",
  "access_private_tickets",
  "access_attachments",
  "close_jobs",
] as const;

/**
 * What a caller asking for something this service does not offer is told: that no one can
 * order, dispatch or accept a quote through it (there is no such tool or endpoint for any
 * caller, with a token or without: SPEC §1.5–1.6), and what to use instead. The
 * unknown-tool error of MCP and the 404 under /api/v1/ both say it.
 */
export function notOfferedText(): string {
  return "No one can order work, dispatch engineers or accept quotes through this service, " +
    `with or without a token: none of ${BLOCKED_ANONYMOUS_ACTIONS.join(", ")} exists here. ` +
    "To ask for work, use request_quote (a quotation a person reviews) or submit_lead; for a " +
    "price alone, estimate_quote; to follow up, get_request_status.";
}

/** MCP tool annotations: reads are read-only; submissions write but destroy nothing. */
export function toolAnnotations(tool: ToolDefinition): Record<string, boolean | string> {
  return {
    title: tool.title,
    readOnlyHint: !tool.submits,
    destructiveHint: false,
    idempotentHint: !tool.submits,
    openWorldHint: false,
  };
}
