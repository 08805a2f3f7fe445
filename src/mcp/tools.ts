/**
 * @module
 * The four anonymous tools, defined once. The MCP server, the tool descriptor,
 * the WebMCP page (through the descriptor) and the REST mapping all come from
 * this list, and every tool calls the same functions as its REST endpoint.
 * No tool creates an order, dispatches, accepts a quote or touches tickets.
 */

import type { z } from "zod";
import type { Context } from "../context.ts";
import { checkCoverage } from "../catalog/coverage.ts";
import { COVERAGE_LENIENCY, CoverageQuerySchema } from "../catalog/coverage_query.ts";
import { lenientArguments } from "../intake/lenient.ts";
import { LeadInput, parseArguments, QuoteInput } from "../intake/schemas.ts";
import {
  CoverageOutput,
  LeadOutput,
  NoInput,
  QuoteOutput,
  ServicesOutput,
} from "./output_schemas.ts";
import { enforceSubmitLimit, submitLead, submitQuote } from "../intake/submissions.ts";

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  output: z.ZodType;
  /** The REST endpoint that does the same thing. */
  http: { method: "GET" | "POST"; path: string };
  /** True for tools that submit something a human must review. */
  submits: boolean;
  /**
   * Validates `args` itself, in one pass, and answers or throws an HttpError. The MCP
   * server hands arguments over unchecked, so every problem is reported at once, in the
   * service's format, whether the schema or the catalog finds it.
   */
  run(ctx: Context, args: unknown): Promise<Record<string, unknown>>;
}

const REVIEW = "A human reviews every submission before anything happens; nothing is ordered, " +
  "scheduled or billed by this tool. Submissions from one address are limited per minute " +
  "(20 by default), failed calls included; a rate_limited error says how long to wait.";

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "check_coverage",
    title: "Check coverage",
    description: "Use before request_quote, or when a user asks whether we work in a city. " +
      "Returns whether the city is covered, with its services and on-site response time, or " +
      "the nearest covered cities; a summary sentence says what to do next (for a name " +
      "several cities share, which one is covered and to ask again with country).",
    input: CoverageQuerySchema,
    output: CoverageOutput,
    http: { method: "GET", path: "/api/v1/locations" },
    submits: false,
    run: (ctx, args) =>
      Promise.resolve({
        ok: true,
        coverage: checkCoverage(
          ctx.catalog,
          parseArguments(CoverageQuerySchema, lenientArguments(args, COVERAGE_LENIENCY)),
        ),
      }),
  },
  {
    name: "list_services",
    title: "List services",
    description: "Use to learn what can be requested: every field service (remote hands, " +
      "rack and stack, cabling, hardware swaps, decommissioning, audits…) with its id, the " +
      "names and aliases service_type accepts, and its published rates.",
    input: NoInput,
    output: ServicesOutput,
    http: { method: "GET", path: "/api/v1/services" },
    submits: false,
    run: (ctx, args) => {
      parseArguments(NoInput, args);
      return Promise.resolve({ ok: true, services: [...ctx.catalog.services] });
    },
  },
  {
    name: "submit_lead",
    title: "Submit a lead",
    description: "Use when a user wants to be contacted about field services but is not " +
      "ready for a quote. Needs an email and a description. Returns a request id and what " +
      `happens next. ${REVIEW} Pass idempotency_key to make a retry safe.`,
    input: LeadInput,
    output: LeadOutput,
    http: { method: "POST", path: "/api/v1/intake" },
    submits: true,
    run: async (ctx, args) => {
      await enforceSubmitLimit(ctx);
      return { ...(await submitLead(ctx, args, "mcp")).result };
    },
  },
  {
    name: "request_quote",
    title: "Request a quote",
    description: "Use when a user wants a price for one catalog service at one site (check " +
      "the city with check_coverage first). Returns a request id and a non-binding budget " +
      "estimate from published rates; the binding quotation comes from a person. Every " +
      `problem with the arguments is listed in one answer. ${REVIEW} Pass idempotency_key ` +
      "to make a retry safe.",
    input: QuoteInput,
    output: QuoteOutput,
    http: { method: "POST", path: "/api/v1/quotes" },
    submits: true,
    run: async (ctx, args) => {
      await enforceSubmitLimit(ctx);
      return { ...(await submitQuote(ctx, args, "mcp")).result };
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
