/**
 * @module
 * The four anonymous tools, defined once. The MCP server, the tool descriptor,
 * the WebMCP page (through the descriptor) and the REST mapping all come from
 * this list, and every tool calls the same functions as its REST endpoint.
 * No tool creates an order, dispatches, accepts a quote or touches tickets.
 */

import type { z } from "zod";
import type { Context } from "./context.ts";
import { checkCoverage } from "./coverage.ts";
import { CoverageQuerySchema } from "./coverage_query.ts";
import {
  CoverageOutput,
  LeadInput,
  LeadOutput,
  NoInput,
  QuoteInput,
  QuoteOutput,
  ServicesOutput,
} from "./schemas.ts";
import { enforceSubmitLimit, submitLead, submitQuote } from "./submissions.ts";

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
  run(ctx: Context, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

const REVIEW = "A human reviews every submission before anything happens; nothing is ordered, " +
  "scheduled or billed by this tool.";

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "check_coverage",
    title: "Check coverage",
    description: "Check whether a city is covered for on-site datacenter field services. " +
      "Names match ignoring case, accents and common aliases; give `country` (ISO 3166-1 " +
      "alpha-2) when a city name exists in several countries. Returns the matched location, " +
      "its services and response time, or the nearest covered cities.",
    input: CoverageQuerySchema,
    output: CoverageOutput,
    http: { method: "GET", path: "/api/v1/locations" },
    submits: false,
    run: (ctx, args) =>
      Promise.resolve({
        ok: true,
        coverage: checkCoverage(ctx.catalog, args as z.infer<typeof CoverageQuerySchema>),
      }),
  },
  {
    name: "list_services",
    title: "List services",
    description: "List the field services offered (remote hands, rack-and-stack, cabling, " +
      "hardware swaps, decommissioning, audits…) with their pricing inputs.",
    input: NoInput,
    output: ServicesOutput,
    http: { method: "GET", path: "/api/v1/services" },
    submits: false,
    run: (ctx) => Promise.resolve({ ok: true, services: [...ctx.catalog.services] }),
  },
  {
    name: "submit_lead",
    title: "Submit a lead",
    description: "Send a request for contact about datacenter field services. Requires an " +
      `email and a description. ${REVIEW} Returns a request id.`,
    input: LeadInput,
    output: LeadOutput,
    http: { method: "POST", path: "/api/v1/intake" },
    submits: true,
    run: async (ctx, args) => {
      await enforceSubmitLimit(ctx);
      return { ...(await submitLead(ctx, args)).result };
    },
  },
  {
    name: "request_quote",
    title: "Request a quote",
    description: "Request a quotation for a catalog service at a site. Returns a request id " +
      "and a non-binding budget estimate computed from published rates; the binding " +
      `quotation comes from a person. ${REVIEW}`,
    input: QuoteInput,
    output: QuoteOutput,
    http: { method: "POST", path: "/api/v1/quotes" },
    submits: true,
    run: async (ctx, args) => {
      await enforceSubmitLimit(ctx);
      return { ...(await submitQuote(ctx, args)).result };
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
