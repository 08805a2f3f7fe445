/**
 * @module
 * zod schemas of the public submissions (SPEC §2.4 lead, §2.5 quote) and their
 * bounds. The single source of truth for REST validation and, later, MCP and OpenAPI.
 */

import { z } from "zod";
import type { FieldIssue } from "./http.ts";

/** Bounds of submitted fields; documented in the README. */
export const LIMITS = {
  shortText: 200,
  description: 5000,
  email: 254,
  phone: 40,
  siteAddress: 500,
  engineers: 50,
  hours: 1000,
  attachments: 10,
  attachmentRef: 2048,
  agentContextBytes: 4 * 1024,
} as const;

const _required = (name: string) => ({
  error: (iss: { input: unknown }) =>
    iss.input === undefined ? `${name} is required` : `${name} must be a string`,
});

/** A trimmed, non-empty string of at most `max` characters. */
function text(name: string, max: number = LIMITS.shortText) {
  return z.string(_required(name)).trim()
    .min(1, `${name} must not be empty`)
    .max(max, `${name} must be at most ${max} characters`);
}

const email = z.email({
  error: (iss) =>
    iss.input === undefined ? "email is required" : "email must be a valid email address",
}).max(LIMITS.email, `email must be at most ${LIMITS.email} characters`);

/** ISO 3166-1 alpha-2, any case in, upper case out. */
export const CountryCode = z.string({ error: "country must be a string" }).trim()
  .regex(/^[A-Za-z]{2}$/, "country must be an ISO 3166-1 alpha-2 code such as DE")
  .transform((c) => c.toUpperCase());

const _utf8 = new TextEncoder();

/** Any JSON object whose serialised form fits in 4 KiB. */
const agentContext = z.record(z.string(), z.unknown(), {
  error: "agent_context_optional must be a JSON object",
}).refine(
  (v) => _utf8.encode(JSON.stringify(v)).byteLength <= LIMITS.agentContextBytes,
  `agent_context_optional must be at most ${LIMITS.agentContextBytes} bytes as JSON`,
);

/** SPEC §2.4. Additional properties are allowed and kept. */
export const LeadInput = z.looseObject({
  email,
  description: text("description", LIMITS.description),
  company: text("company").optional(),
  contact_name: text("contact_name").optional(),
  city: text("city").optional(),
  service_type: text("service_type").optional(),
  agent_context_optional: agentContext.optional(),
});
export type LeadInput = z.infer<typeof LeadInput>;

/** SPEC §2.5. Additional properties are allowed and kept. */
export const QuoteInput = z.looseObject({
  company: text("company"),
  contact_name: text("contact_name"),
  email,
  city: text("city"),
  service_type: text("service_type"),
  description: text("description", LIMITS.description),
  phone: z.string(_required("phone")).trim()
    .regex(/^\+?[0-9 ()./-]{5,40}$/, "phone must be 5 to 40 digits, spaces or + ( ) . / -")
    .optional(),
  country: CountryCode.optional(),
  site_address: text("site_address", LIMITS.siteAddress).optional(),
  requested_date: z.iso.date({ error: "requested_date must be an ISO 8601 date (YYYY-MM-DD)" })
    .optional(),
  requested_time: z.string(_required("requested_time"))
    .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "requested_time must be HH:MM, 00:00 to 23:59")
    .optional(),
  engineer_count: z.number({ error: "engineer_count must be a whole number" })
    .int("engineer_count must be a whole number")
    .min(1, "engineer_count must be at least 1")
    .max(LIMITS.engineers, `engineer_count must be at most ${LIMITS.engineers}`)
    .optional(),
  estimated_hours: z.number({ error: "estimated_hours must be a number" })
    .gt(0, "estimated_hours must be greater than 0")
    .max(LIMITS.hours, `estimated_hours must be at most ${LIMITS.hours}`)
    .optional(),
  out_of_hours: z.boolean({ error: "out_of_hours must be true or false" }).optional(),
  attachments_optional: z.array(
    z.string({ error: "each attachment must be a string reference" })
      .min(1, "an attachment reference must not be empty")
      .max(
        LIMITS.attachmentRef,
        `an attachment reference is at most ${LIMITS.attachmentRef} characters`,
      ),
    { error: "attachments_optional must be an array of strings" },
  ).max(LIMITS.attachments, `attachments_optional holds at most ${LIMITS.attachments} references`)
    .optional(),
  agent_context_optional: agentContext.optional(),
});
export type QuoteInput = z.infer<typeof QuoteInput>;

/** zod issues → the `issues` list of an error body, one entry per problem. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({
    path: i.path.join(".") || "(body)",
    message: i.path.length === 0 && i.code === "invalid_type"
      ? "the body must be a JSON object"
      : i.message,
  }));
}

// ---- Outputs (SPEC §2.3–2.5): the REST answers and the MCP structuredContent ----

const ServiceItem = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  pricing: z.looseObject({
    currency: z.string(),
    hourly_rate: z.number(),
    minimum_hours: z.number(),
    out_of_hours_multiplier: z.number(),
    call_out_fee: z.number(),
  }),
});

/** SPEC §2.3: `ok` and `services`, both required. */
export const ServicesOutput = z.looseObject({
  ok: z.boolean(),
  services: z.array(ServiceItem),
});

/** SPEC §2.3: `ok` and `coverage`, both required. */
export const CoverageOutput = z.looseObject({
  ok: z.boolean(),
  coverage: z.looseObject({
    query: z.looseObject({ city: z.string(), country: z.string().nullable() }),
    match: z.enum(["covered", "reference_place", "ambiguous", "unknown"]),
    covered: z.boolean(),
    location: z.looseObject({
      id: z.string(),
      city: z.string(),
      country: z.string(),
      region: z.string(),
      timezone: z.string(),
    }).nullable(),
    services: z.array(z.looseObject({ id: z.string(), name: z.string() })),
    response_time_hours: z.number().nullable(),
    nearest: z.array(z.looseObject({
      id: z.string(),
      city: z.string(),
      country: z.string(),
      distance_km: z.number(),
      response_time_hours: z.number(),
    })),
    candidates: z.array(
      z.looseObject({ city: z.string(), country: z.string(), covered: z.boolean() }),
    ),
  }),
});

/** SPEC §2.4 output: the four fields are required. */
export const LeadOutput = z.looseObject({
  ok: z.boolean(),
  request_id: z.string(),
  requires_human_approval: z.boolean(),
  billable_order_created: z.boolean(),
  status: z.literal("pending_review").optional(),
  next_steps: z.string().optional(),
});

/** SPEC §2.5 output: the lead's fields plus the non-binding `budget_estimate`. */
export const QuoteOutput = LeadOutput.extend({
  budget_estimate: z.looseObject({
    currency: z.string(),
    low: z.number(),
    high: z.number(),
    non_binding: z.literal(true),
    basis: z.looseObject({}),
    note: z.string().nullable(),
  }),
});

/** The `list_services` input: nothing, and nothing else. */
export const NoInput = z.strictObject({});
