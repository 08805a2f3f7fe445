/**
 * @module
 * zod schemas of what the submissions, the estimate and the status read answer (SPEC
 * §2.4–2.5), every field described: the MCP tools' output schemas and the OpenAPI responses.
 * Objects are loose: a client must ignore fields it does not know.
 */

import { z } from "zod";
import { CoverageOutput, moneyOutput } from "./output_schemas.ts";

/** When a person is expected to review a submission. */
const ExpectedReviewOutput = z.looseObject({
  within_hours: z.number().meta({ description: "Hours after it came in; fewer for emergency." }),
  by: z.string().meta({ description: "That instant, ISO 8601 (UTC)." }),
}).meta({ description: "When a person is expected to review it." });

/** What a submission or an estimate says of its site (intake/site.ts). */
const SiteAnswerOutput = z.looseObject({
  read_as: z.string().nullable().meta({
    description: "The place read, to relay; null for no one place.",
  }),
  covered: z.boolean().meta({ description: "Whether it is covered." }),
  summary: z.string().meta({ description: "How it was read, in a sentence." }),
  location_id: z.string().nullable().meta({ description: "The covered location, or null." }),
  facility: z.string().nullable().meta({ description: "The datacenter named, or null." }),
  site_address: z.looseObject({
    read_as: z.string().nullable().meta({ description: "The place it was read as." }),
    agrees: z.boolean().nullable().meta({ description: "Whether it is where the city is." }),
    summary: z.string().meta({ description: "What was read; a disagreement stated." }),
  }).nullable().meta({ description: "site_address read too; null when not sent." }),
}).meta({ description: "How the city was read: check read_as before relaying." });

/** SPEC §2.4 output: the four fields are required. */
export const LeadOutput = z.looseObject({
  ok: z.boolean().meta({ description: "true: the request was stored for review." }),
  request_id: z.string().meta({
    description: "Reference of the request; quote it when you write to us.",
    examples: ["lead_01KAKX2Q3M8Y6T0V5W9R4B7C1D"],
  }),
  requires_human_approval: z.boolean().meta({
    description: "Always true: a person reviews every request before anything happens.",
  }),
  billable_order_created: z.boolean().meta({
    description: "Always false: no order, booking or invoice is created.",
  }),
  status: z.literal("pending").optional().meta({
    description: "pending: waiting for a person, as get_request_status says until one decides.",
  }),
  next_step: z.string().optional().meta({
    description: "What happens next, in a sentence to relay to the user.",
  }),
  expected_review: ExpectedReviewOutput.optional(),
  service_id: z.string().nullable().optional().meta({
    description: "The catalog service service_type was understood as; null when it named " +
      "none (kept as free text) or was not given.",
  }),
  site: SiteAnswerOutput.nullable().optional(),
  ignored: z.array(
    z.looseObject({
      property: z.string().meta({ description: "The name as sent." }),
      did_you_mean: z.string().nullable().meta({
        description: "The field it probably means, or null.",
      }),
    }).meta({ description: "One argument kept as sent for the reviewer and read as no field." }),
  ).optional().meta({
    description: "Every argument the tool does not take, kept for the reviewer; next_step " +
      "names them too. One that probably means urgency or a price input is refused instead.",
  }),
  replayed: z.boolean().optional().meta({
    description: "true when this answers an earlier identical call (the same arguments within " +
      "10 minutes, or the key of a stored request within 24 h): nothing new was stored.",
  }),
}).meta({
  description: "The stored request, waiting for human review: request_id, to quote and to " +
    "follow up with get_request_status; ignored lists arguments kept unread; replayed is " +
    "true when an earlier identical call answered and nothing new was stored.",
});

/** The non-binding estimate of a job, as `request_quote` stores it and `estimate_quote` answers. */
const BudgetEstimateOutput = z.looseObject({
  currency: z.string().meta({ description: "ISO 4217 currency code of the amounts." }),
  tax_included: z.boolean().optional().meta({ description: "false: the amounts exclude tax." }),
  tax: z.string().optional().meta({ description: "Which tax the quotation adds at the site." }),
  low: moneyOutput("Lower end of the estimate"),
  high: moneyOutput("Upper end of the estimate, with a contingency for overruns"),
  non_binding: z.literal(true).meta({
    description: "Always true: the binding quotation comes from a person.",
  }),
  basis: z.looseObject({
    service_id: z.string().meta({ description: "The service quoted." }),
    hourly_rate: moneyOutput("Hourly rate used"),
    engineers: z.number().meta({ description: "Engineers assumed (engineer_count, or 1)." }),
    hours: z.number().meta({
      description: "Hours per engineer (not in total): estimated_hours, at least the minimum.",
    }),
    hours_assumed: z.boolean().meta({
      description: "true when no estimated_hours was given and the minimum was used.",
    }),
    minimum_hours: z.number().meta({ description: "The service's minimum hours." }),
    work_days: z.number().optional().meta({
      description: "Days the hours are laid out on: 1 up to 10 h, else the fewest of at most 10 h.",
    }),
    hours_per_day: z.number().optional().meta({
      description: "Hours per engineer each day, from the start's local time.",
    }),
    out_of_hours: z.boolean().meta({ description: "Whether out-of-hours rates apply." }),
    hours_out_of_hours: z.number().optional().meta({
      description: "Hours per engineer priced at out-of-hours rates.",
    }),
    out_of_hours_multiplier: z.number().meta({
      description: "The service's out-of-hours multiplier; applied to hours_out_of_hours.",
    }),
    call_out_fee: moneyOutput("Call-out fee included"),
    contingency: z.number().meta({
      description: "Share added to the labour cost for high, such as 0.25.",
    }),
    time_zone: z.string().nullable().optional().meta({
      description: "IANA zone the date and time were read in; null if unknown.",
    }),
    notice_hours: z.number().optional().meta({ description: "Notice the service needs there." }),
    short_notice: z.boolean().optional().meta({ description: "Start sooner than that." }),
  }).meta({ description: "The inputs the estimate was computed from." }),
  assumptions: z.array(
    z.looseObject({
      field: z.string().meta({
        description: "engineer_count, estimated_hours, work_days, out_of_hours, " +
          "requested_date, requested_time, time_zone or currency.",
      }),
      value: z.union([z.number(), z.boolean(), z.string(), z.null()]).meta({
        description: "The value used.",
      }),
      why: z.string().meta({
        description: "not given (a default), read from another argument name, or inferred " +
          "(out_of_hours from requested_date and requested_time at the site).",
      }),
    }).meta({ description: "One input the caller did not give as such." }),
  ).meta({
    description: "Every price input that was assumed: check these before relaying the price; " +
      "send the field to replace an assumption.",
  }),
  note: z.string().nullable().meta({
    description: "Why the estimate is less certain (hours assumed, city not covered or " +
      "ambiguous), or null.",
  }),
}).meta({
  description: "A non-binding budget range computed from published rates: rate × engineers " +
    "× (hours + hours_out_of_hours × (multiplier − 1)) + call-out fee.",
});

/** SPEC §2.5 output: the lead's fields plus the non-binding `budget_estimate`. */
export const QuoteOutput = LeadOutput.extend({
  budget_estimate: BudgetEstimateOutput,
}).meta({
  description: "The stored quote request (request_id, replayed, ignored: arguments kept " +
    "unread) and its non-binding budget_estimate: low, high, currency, and assumptions " +
    "listing every input not given as such.",
});

/** The `estimate_quote` answer: a price, the city's coverage, and nothing stored. */
export const EstimateOutput = z.looseObject({
  ok: z.boolean().meta({ description: "true: the estimate follows." }),
  stored: z.literal(false).meta({
    description: "Always false: nothing was stored, sent or counted against a submission limit.",
  }),
  service_id: z.string().meta({ description: "The catalog service service_type named." }),
  budget_estimate: BudgetEstimateOutput,
  site: SiteAnswerOutput.optional(),
  coverage: CoverageOutput.shape.coverage,
}).meta({
  description: "A non-binding price; stored is false. budget_estimate: low, high, currency, " +
    "and assumptions listing every input not given as such; coverage: the city's, as " +
    "check_coverage answers it.",
});

/** The `get_request_status` answer: where a submission stands, without personal data. */
export const StatusOutput = z.looseObject({
  ok: z.boolean().meta({ description: "true: the request exists." }),
  request_id: z.string().meta({ description: "The reference asked for." }),
  kind: z.enum(["lead", "quote"]).meta({ description: "lead or quote." }),
  status: z.enum(["pending", "approved", "rejected"]).meta({
    description: "pending: waiting for a person; approved or rejected: a person decided.",
  }),
  urgency: z.enum(["emergency", "asap", "scheduled"]).nullable().meta({
    description: "The urgency given with the request, or null.",
  }),
  created_at: z.string().meta({ description: "When it was received (ISO 8601)." }),
  decided_at: z.string().nullable().meta({ description: "When a person decided, or null." }),
  expected_review: ExpectedReviewOutput.nullable().meta({
    description: "While pending: when a person is expected to review it; else null.",
  }),
  next_step: z.string().meta({ description: "What happens next, to relay to the user." }),
}).meta({ description: "Where a submitted request stands. Personal data is never shown." });
