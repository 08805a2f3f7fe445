/**
 * @module
 * zod schemas of what the catalog tools and their REST endpoints answer (SPEC §2.3), every
 * field described, and of a failed call; intake_outputs.ts holds the submissions' and the
 * estimate's. They are the MCP tools' output schemas and the OpenAPI responses. Objects are
 * loose: a client must ignore fields it does not know.
 */

import { z } from "zod";

const _city = z.string().meta({ description: "City name as published." });
const _countryCode = () => z.string().meta({ description: "ISO 3166-1 alpha-2 country code." });
const _country = _countryCode();

export const moneyOutput = (what: string) =>
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
    description: "The service's own hours of notice. At a covered site the notice is at " +
      "least the site's response time: notice_hours_by_location says it.",
  }),
  notice_hours_by_location: z.record(z.string(), z.number()).meta({
    description: "Location id → hours of notice the service needs there, the larger of " +
      "minimum_notice_hours and the location's response_time_hours. A sooner start is not " +
      "refused: a person confirms it.",
    examples: [{ fra: 2, zrh: 4 }],
  }),
  pricing: z.looseObject({
    currency: z.string().meta({ description: "ISO 4217 currency code.", examples: ["EUR"] }),
    hourly_rate: moneyOutput("Price of one engineer for one hour in business hours"),
    minimum_hours: z.number().meta({
      description: "Hours billed at least, per engineer and visit.",
    }),
    out_of_hours_multiplier: z.number().meta({
      description: "Factor on the hourly rate outside business hours (out_of_hours: true).",
    }),
    call_out_fee: moneyOutput("Fixed fee per visit, on top of the hours"),
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
        notice_hours: z.number().meta({
          description: "Hours of notice it needs there (notice_hours_by_location).",
        }),
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
