/**
 * @module
 * zod schemas of what the tools and their REST endpoints answer (SPEC §2.3–2.5), every
 * field described. They are the MCP tools' output schemas and the OpenAPI responses.
 * Objects are loose: a client must ignore fields it does not know.
 */

import { z } from "zod";

const _city = z.string().meta({ description: "City name as published." });
const _countryCode = () => z.string().meta({ description: "ISO 3166-1 alpha-2 country code." });
const _country = _countryCode();

const _money = (what: string) =>
  z.number().meta({ description: `${what}, in the service's currency (see currency).` });

const ServiceItem = z.looseObject({
  id: z.string().meta({
    description: "Stable identifier: what service_type takes.",
    examples: ["remote-hands"],
  }),
  name: z.string().meta({ description: "Display name; also accepted as service_type." }),
  aliases: z.array(z.string().meta({ description: "One alias." })).meta({
    description: "Other names accepted as service_type, such as cabling or RMA.",
  }),
  description: z.string().meta({ description: "What the service covers, in a sentence." }),
  category: z.string().meta({
    description: "Group of the service: operations, installation, cabling, hardware, " +
      "lifecycle or assurance.",
  }),
  minimum_notice_hours: z.number().meta({
    description: "Hours of notice needed before a start (at least the site's response time).",
  }),
  pricing: z.looseObject({
    currency: z.string().meta({ description: "ISO 4217 currency code.", examples: ["EUR"] }),
    hourly_rate: _money("Price of one engineer for one hour in business hours"),
    minimum_hours: z.number().meta({
      description: "Hours billed at least, per engineer and visit.",
    }),
    out_of_hours_multiplier: z.number().meta({
      description: "Factor on the hourly rate outside business hours (out_of_hours: true).",
    }),
    call_out_fee: _money("Fixed fee per visit, on top of the hours"),
  }).meta({ description: "Published rates; what a quote's budget estimate is computed from." }),
}).meta({ description: "One field service of the catalog." });

/** The commercial terms of every price (data/services.v1.json `terms`). */
const TermsOutput = z.looseObject({
  currency: z.string().meta({ description: "ISO 4217 code of every price, at every site." }),
  tax_included: z.boolean().meta({ description: "false: prices exclude tax." }),
  statement: z.string().meta({ description: "The terms in words, to relay." }),
  tax: z.array(
    z.looseObject({
      tax: z.string().meta({ description: "The tax a quotation adds there, such as VAT." }),
      countries: z.array(_countryCode()).meta({ description: "Where it applies." }),
    }).meta({ description: "One tax and its countries." }),
  ).meta({ description: "Which tax is added where; the quotation states the rate." }),
}).meta({ description: "Currency and tax of every price." });

/** SPEC §2.3: `ok` and `services`, both required. */
export const ServicesOutput = z.looseObject({
  ok: z.boolean().meta({ description: "true: the catalog follows." }),
  services: z.array(ServiceItem).meta({ description: "Every service offered." }),
  terms: TermsOutput.optional(),
}).meta({
  description: "The service catalog: services, each with id (what service_type takes), name, " +
    "aliases and pricing.",
});

/** The values of `coverage.match`, each explained where an agent reads the schema. */
const COVERAGE_MATCHES = {
  covered: "The name is one covered city: covered is true, location and services are set.",
  nearby: "The name is a place (a town, an airport code, a US ZIP code) within 40 km of a " +
    "covered city: covered is true, location is that city, place is what the name was read as.",
  known_uncovered: "The name is one known place outside coverage: covered is false, place " +
    "says which, nearest lists the closest covered cities. A quote can still be requested.",
  ambiguous: "The name fits several cities (candidates, each with covered): ask again with " +
    "country to choose one. covered is false until then.",
  other_country: "No city of that name is known in the given country, but there is one " +
    "elsewhere: candidates says where and whether it is covered.",
  country: "The name is a country or state alone: candidates lists its covered cities; ask " +
    "for the city or town of the site.",
  unknown: "The name is not a city we know: candidates holds close spellings, and summary " +
    "lists the covered cities.",
} as const;

/** How a site written as more than a place name was read (catalog/coverage_types.ts). */
const SiteOutput = z.looseObject({
  read_from: z.string().nullable().meta({ description: "The part read as the place." }),
  facility: z.looseObject({
    id: z.string().meta({ description: "The datacenter's identifier." }),
    operator: z.string().meta({ description: "Its operator." }),
    name: z.string().meta({ description: "Such as Equinix DC11." }),
    address: z.string().meta({ description: "Its address." }),
    location: z.string().meta({ description: "The location that serves it." }),
  }).nullable().meta({ description: "The datacenter named, if any." }),
  ignored: z.array(z.string()).meta({ description: "Parts read as no place (a street…)." }),
}).meta({ description: "How a site written as more than a name was read; else null." });

/** SPEC §2.3: `ok` and `coverage`, both required. */
export const CoverageOutput = z.looseObject({
  ok: z.boolean().meta({ description: "true: the answer follows (even when not covered)." }),
  coverage: z.looseObject({
    query: z.looseObject({
      city: z.string().meta({ description: "The city as asked." }),
      country: z.string().nullable().meta({
        description: "The country as asked, upper case; null when none was given.",
      }),
    }).meta({ description: "What was asked." }),
    match: z.enum(Object.keys(COVERAGE_MATCHES) as [keyof typeof COVERAGE_MATCHES]).meta({
      description: "How the name was resolved: " +
        Object.entries(COVERAGE_MATCHES).map(([k, v]) => `${k}: ${v}`).join(" "),
    }),
    covered: z.boolean().meta({
      description: "true only when the name resolved to one covered city or a place near one.",
    }),
    summary: z.string().meta({
      description: "The answer in a sentence or two, naming the covered city or what to ask " +
        "next; fit to show a user as it is.",
    }),
    location: z.looseObject({
      id: z.string().meta({ description: "Location identifier." }),
      city: _city,
      country: _country,
      region: z.string().meta({ description: "World region, such as Europe." }),
      timezone: z.string().meta({
        description: "IANA time zone of the site; requested_time is in this local time.",
        examples: ["Europe/Zurich"],
      }),
    }).nullable().meta({ description: "The covered location, when match is covered or nearby." }),
    place: z.looseObject({
      name: z.string().meta({ description: "Its name (an airport's with its code)." }),
      country: _country,
      subdivision: z.string().nullable().meta({
        description: "ISO 3166-2 code, such as US-VA; null when unknown.",
      }),
      timezone: z.string().meta({ description: "IANA time zone of the place." }),
    }).nullable().optional().meta({
      description: "What the name was read as: a place near a city or outside coverage, or " +
        "a ZIP code or airport in a covered city.",
    }),
    services: z.array(
      z.looseObject({
        id: z.string().meta({ description: "Service id, for service_type." }),
        name: z.string().meta({ description: "Service name." }),
      }).meta({ description: "One service offered there." }),
    ).meta({
      description: "Services offered at the covered location; empty otherwise.",
    }),
    response_time_hours: z.number().nullable().meta({
      description: "Hours until an engineer can be on site, at the covered location.",
    }),
    nearest: z.array(
      z.looseObject({
        id: z.string().meta({ description: "Location identifier." }),
        city: _city,
        country: _country,
        distance_km: z.number().meta({ description: "Great-circle distance, in kilometres." }),
        response_time_hours: z.number().meta({
          description: "Hours until an engineer can be on site there.",
        }),
      }).meta({ description: "One covered city near the one asked for." }),
    ).meta({
      description: "For a known city outside coverage: the closest covered cities, nearest first.",
    }),
    candidates: z.array(
      z.looseObject({
        city: _city,
        country: _country,
        covered: z.boolean().meta({ description: "Whether this candidate is covered." }),
      }).meta({ description: "One city the name may mean." }),
    ).meta({
      description: "For ambiguous: every city the name may mean. For other_country: where a " +
        "city of that name is. For unknown: cities spelled almost the same. Ask again with one " +
        "of them.",
    }),
    site: SiteOutput.nullable().optional(),
  }).meta({ description: "Published coverage for the city asked for." }),
}).meta({
  description: "Whether a city is covered: coverage.covered and coverage.match, " +
    "coverage.summary (a sentence to relay), location, services, nearest and candidates.",
});

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
  status: z.literal("pending_review").optional().meta({
    description: "pending_review: waiting for a person.",
  }),
  next_steps: z.string().optional().meta({
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
    description: "Every argument the tool does not take, kept for the reviewer; next_steps " +
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
  low: _money("Lower end of the estimate"),
  high: _money("Upper end of the estimate, with a contingency for overruns"),
  non_binding: z.literal(true).meta({
    description: "Always true: the binding quotation comes from a person.",
  }),
  basis: z.looseObject({
    service_id: z.string().meta({ description: "The service quoted." }),
    hourly_rate: _money("Hourly rate used"),
    engineers: z.number().meta({ description: "Engineers assumed (engineer_count, or 1)." }),
    hours: z.number().meta({
      description: "Hours per engineer assumed: estimated_hours, at least the minimum.",
    }),
    hours_assumed: z.boolean().meta({
      description: "true when no estimated_hours was given and the minimum was used.",
    }),
    minimum_hours: z.number().meta({ description: "The service's minimum hours." }),
    out_of_hours: z.boolean().meta({ description: "Whether out-of-hours rates apply." }),
    hours_out_of_hours: z.number().optional().meta({
      description: "Hours per engineer priced at out-of-hours rates.",
    }),
    out_of_hours_multiplier: z.number().meta({
      description: "The service's out-of-hours multiplier; applied to hours_out_of_hours.",
    }),
    call_out_fee: _money("Call-out fee included"),
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
        description: "engineer_count, estimated_hours, out_of_hours, requested_date, " +
          "requested_time, time_zone or currency.",
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

/** The `list_services` input: nothing, and nothing else. */
export const NoInput = z.strictObject({}).meta({ description: "No arguments." });

/**
 * What a failed tool call carries as `structuredContent` (with `isError: true`): the
 * same `{ok: false, error, message, issues}` as a REST error body.
 */
export const ToolErrorOutput = z.looseObject({
  ok: z.literal(false).meta({ description: "false: the call failed; nothing was stored." }),
  error: z.string().meta({
    description: "Machine-readable code: validation_failed, idempotency_key_reused, " +
      "rate_limited, payload_too_large, invalid_idempotency_key or internal_error.",
    examples: ["validation_failed"],
  }),
  message: z.string().meta({ description: "What went wrong, in a sentence." }),
  issues: z.array(
    z.looseObject({
      path: z.string().meta({
        description: "The argument at fault, as a dotted path (attachments_optional.0), or " +
          "(body) for the arguments as a whole.",
      }),
      message: z.string().meta({ description: "What is wrong with it and what is accepted." }),
      did_you_mean: z.string().nullable().optional().meta({
        description: "For an argument the tool does not take: the one it probably means, or null.",
      }),
    }).meta({ description: "One problem." }),
  ).meta({
    description: "Every problem with the arguments, all found in one pass; empty for " +
      "errors that are not about the arguments.",
  }),
  retry_after_s: z.number().optional().meta({
    description: "For rate_limited: seconds to wait before trying again.",
  }),
}).meta({ description: "Why a tool call failed." });
