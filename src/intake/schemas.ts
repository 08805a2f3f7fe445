/**
 * @module
 * zod schemas of the public submissions (SPEC §2.4 lead, §2.5 quote) and their bounds,
 * each field described where it is defined. The single source of truth for REST
 * validation, the MCP tools' input schemas, the tool descriptor, WebMCP and OpenAPI:
 * every one of them carries these descriptions.
 */

import { z } from "zod";
import { clip, type FieldIssue, HttpError, MAX_ISSUES } from "../http/errors.ts";
import { namesPlace } from "../catalog/place_reading.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { LenientFields } from "./lenient.ts";
import { meantArguments, unknownArgumentIssue } from "./argument_names.ts";

/** Bounds of submitted fields; documented in docs/api.md. */
const LIMITS = {
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
    iss.input === undefined
      ? `${name} is required`
      : `${name} must be a string; got ${got(iss.input)}`,
});

/** What a caller sent, for an error message: `the number 2`, `an array`, `null`. */
export function got(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  if (typeof input === "string") {
    return `the string ${JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input)}`;
  }
  if (typeof input === "object") return "an object";
  return `the ${typeof input} ${String(input)}`;
}

/**
 * A trimmed, non-empty string of at most `max` characters. "Not blank" is a pattern checked
 * before the trim, so the schemas agents read say it (`\S`), where a length after the trim
 * would say `minLength: 1` and let "  " through.
 */
function text(name: string, max: number = LIMITS.shortText) {
  return z.string(_required(name))
    .regex(/\S/, `${name} must not be empty`)
    .trim()
    .max(max, `${name} must be at most ${max} characters`);
}

/** A city: text that names a place (a letter, or a postcode: catalog/coverage.ts). */
function cityText(max: number = LIMITS.shortText) {
  return text("city", max).refine(namesPlace, "city must name a place or a postcode");
}

const email = z.email({
  error: (iss) =>
    iss.input === undefined
      ? "email is required"
      : typeof iss.input === "string"
      ? "email must be a valid email address such as ops@example.com"
      : `email must be a string; got ${got(iss.input)}`,
}).max(LIMITS.email, `email must be at most ${LIMITS.email} characters`);

/** ISO 3166-1 alpha-2, any case in, upper case out. */
// A refinement, not a pattern: the advertised schema must not refuse "Germany", which the
// forgiving reading (lenient.ts) turns into DE before this check runs.
export const CountryCode = z.string({
  error: (iss) => `country must be a string; got ${got(iss.input)}`,
}).trim()
  .max(60, "country must be at most 60 characters")
  .refine(
    (c) => /^[A-Za-z]{2}$/.test(c),
    "country must be an ISO 3166-1 alpha-2 code such as DE, US or GB, or a country's English " +
      "name such as Germany",
  )
  .transform((c) => c.toUpperCase());

const _utf8 = new TextEncoder();

/** Any JSON object whose serialised form fits in 4 KiB. */
const agentContext = z.record(z.string(), z.unknown(), {
  error: "agent_context_optional must be a JSON object",
}).refine(
  (v) => _utf8.encode(JSON.stringify(v)).byteLength <= LIMITS.agentContextBytes,
  `agent_context_optional must be at most ${LIMITS.agentContextBytes} bytes as JSON`,
);

/** An idempotency key: 1 to 255 visible ASCII characters, in a header, body field or argument. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

/** An `Idempotency-Key` as a tool argument or body field; the header takes the same. */
const IdempotencyKey = z.string({ error: "idempotency_key must be a string" })
  .regex(IDEMPOTENCY_KEY_PATTERN, "idempotency_key must be 1 to 255 visible ASCII characters")
  .meta({
    description: "For 24 h, the same key and arguments return the answer of the request first " +
      "stored with it; other arguments are refused (idempotency_key_reused). 1 to 255 visible " +
      "ASCII characters, such as a UUID.",
    examples: ["3f1c9a52-6f0e-4c59-9b1e-2a7d4e8c1b10"],
  });

const _email = email.meta({
  description: "Where our team replies.",
  examples: ["ops@example.com"],
});
const _company = (required: boolean) =>
  (required ? text("company") : text("company").optional()).meta({
    description: "The company or organisation the work is for.",
  });
const _contactName = (required: boolean) =>
  (required ? text("contact_name") : text("contact_name").optional()).meta({
    description: "The person our team should address.",
  });
const _description = text("description", LIMITS.description).meta({
  description: "What is needed, in plain words: the equipment, the task, any constraints.",
  examples: ["Install 4 servers in cage 12 and cable them to the top-of-rack switch"],
});
const _agentContext = agentContext.meta({
  description: "For the reviewers: the agent's name, the user's words, a conversation id. " +
    "At most 4 KiB as JSON; only staff see it.",
  examples: [{ agent: "procurement-assistant", user_request: "quote for rack work in Zurich" }],
});

/** How soon the work is needed, as the submitter says. */
const URGENCIES = ["emergency", "asap", "scheduled"] as const;
const _urgency = z.enum(URGENCIES, {
  error: (iss) => `urgency must be one of emergency, asap, scheduled; got ${got(iss.input)}`,
}).optional().meta({
  description: "How soon: emergency (something is down now), asap (within days) or " +
    "scheduled (a planned date). Reviewers see urgent requests first.",
  examples: ["asap"],
});

/**
 * A phone number as sent: once trimmed, `^\+?[0-9 ()./-]{5,40}$`. Written for the untrimmed
 * text, so that the schemas agents read take exactly what is accepted: spaces around it, and
 * 5 to 40 characters inside that neither start (without a `+`) nor end with a space.
 */
const _PHONE = /^\s*(?:\+[0-9 ()./-]{4,39}|[0-9()./-][0-9 ()./-]{3,38})[0-9()./-]\s*$/;

const _phone = z.string(_required("phone"))
  .regex(_PHONE, "phone must be 5 to 40 digits, spaces or + ( ) . / -")
  .trim()
  .optional().meta({
    description: "A phone number to reach the contact.",
    examples: ["+49 69 1234 5678"],
  });
const _country = CountryCode.optional().meta({
  description: "The site's country: ISO 3166-1 alpha-2 code or English name (Germany); " +
    "tells apart cities sharing a name.",
  examples: ["CH", "US"],
});

/** SPEC §2.4. Additional properties are allowed and kept (at most 16, 4 KiB together). */
export const LeadInput = z.looseObject({
  email: _email,
  description: _description,
  company: _company(false),
  contact_name: _contactName(false),
  city: cityText().optional().meta({
    description: "City of the site, or the site as written (site.read_as: how it was read).",
    examples: ["Frankfurt"],
  }),
  service_type: text("service_type").optional().meta({
    description: "The service of interest, if known: a catalog id, name or alias (see " +
      "request_quote), or free text for a person.",
    examples: ["remote-hands", "Rack and stack"],
  }),
  country: _country,
  phone: _phone,
  urgency: _urgency,
  agent_context_optional: _agentContext.optional(),
  idempotency_key: IdempotencyKey.optional(),
}).meta({
  description: "A request to be contacted about datacenter field services.",
});
export type LeadInput = z.infer<typeof LeadInput>;

const _CURRENCY = "currency must be a three-letter ISO 4217 code such as EUR or USD (prices " +
  "are in EUR; another code gets the estimate in EUR, noted for the reviewer)";

/**
 * The fields of a quote that its price depends on (SPEC §2.5), `service_type` aside: its
 * description names the catalog's ids ({@linkcode serviceTypeField}). estimate_quote takes
 * exactly these.
 */
export const JOB_FIELDS = {
  city: cityText().meta({
    description: 'City of the site ("Ashburn VA") or the site as written ("Equinix DC11, ' +
      'Ashburn"); site.read_as says how it was read. Check it with check_coverage first.',
    examples: ["Zurich"],
  }),
  country: _country,
  requested_date: z.iso.date({ error: "requested_date must be an ISO 8601 date (YYYY-MM-DD)" })
    .optional().meta({
      description: "Preferred date, YYYY-MM-DD, at the site. A wish, not a booking.",
      examples: ["2026-12-01"],
    }),
  requested_time: z.string(_required("requested_time"))
    .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "requested_time must be HH:MM, 00:00 to 23:59")
    .optional().meta({
      description: "Start, HH:MM (24-hour), local time at the site.",
      examples: ["09:30"],
    }),
  engineer_count: z.number({
    error: (iss) => `engineer_count must be a whole number such as 2; got ${got(iss.input)}`,
  })
    .int("engineer_count must be a whole number such as 2")
    .min(1, "engineer_count must be at least 1")
    .max(LIMITS.engineers, `engineer_count must be at most ${LIMITS.engineers}`)
    .optional().meta({
      description: "Engineers on site together, 1 to 50; 1 when absent.",
      examples: [2],
    }),
  estimated_hours: z.number({
    error: (iss) => `estimated_hours must be a number of hours such as 3; got ${got(iss.input)}`,
  })
    .gt(0, "estimated_hours must be greater than 0")
    .max(LIMITS.hours, `estimated_hours must be at most ${LIMITS.hours}`)
    .optional().meta({
      description: "Hours per engineer, not the total; days of at most 10 h; at least the " +
        "service's minimum.",
      examples: [3],
    }),
  out_of_hours: z.boolean({
    error: (iss) => `out_of_hours must be true or false; got ${got(iss.input)}`,
  }).optional().meta({
    description: "true/false: every hour at out-of-hours/business rates; absent: each hour " +
      "by when it falls at the site.",
  }),
  urgency: _urgency.meta({
    description: "emergency (down now; with no date or time, priced from now at the site), " +
      "asap (within days) or scheduled (a planned date); urgent ones are reviewed first.",
    examples: ["asap"],
  }),
  // The shape only, in any case and with spaces around ("usd " is taken), since any other
  // code gets the estimate in the catalog's currency with a note (pricing/terms.ts); the
  // pattern says so in the schemas agents read.
  currency: z.string({ error: (iss) => `${_CURRENCY}; got ${got(iss.input)}` })
    .regex(/^\s*[A-Za-z]{3}\s*$/, { error: (iss) => `${_CURRENCY}; got ${got(iss.input)}` })
    .trim()
    .transform((c) => c.toUpperCase())
    .optional().meta({ description: "ISO 4217; prices are in EUR." }),
};

/** `service_type` as a quote takes it: a catalog id, name or alias, described by `description`. */
export function serviceTypeField(description: string) {
  return text("service_type").meta({
    description,
    examples: ["remote-hands", "rack and stack"],
  });
}

/** SPEC §2.5, its `service_type` naming `serviceIds`. */
function _quoteInput(serviceIds: string) {
  return z.looseObject({
    company: _company(true),
    contact_name: _contactName(true),
    email: _email,
    city: JOB_FIELDS.city,
    service_type: serviceTypeField(
      `The catalog service: one of ${serviceIds}; names and aliases (rack & stack, decom, ` +
        "RMA…) match in any case. An unknown one is refused with the closest id.",
    ),
    description: _description,
    phone: _phone,
    country: JOB_FIELDS.country,
    site_address: text("site_address", LIMITS.siteAddress).optional().meta({
      description: "Street address of the site or datacenter.",
      examples: ["Hardturmstrasse 161, 8005 Zürich"],
    }),
    requested_date: JOB_FIELDS.requested_date,
    requested_time: JOB_FIELDS.requested_time,
    engineer_count: JOB_FIELDS.engineer_count,
    estimated_hours: JOB_FIELDS.estimated_hours,
    out_of_hours: JOB_FIELDS.out_of_hours,
    currency: JOB_FIELDS.currency,
    attachments_optional: z.array(
      z.string({ error: "each attachment must be a string reference" })
        .min(1, "an attachment reference must not be empty")
        .max(
          LIMITS.attachmentRef,
          `an attachment reference is at most ${LIMITS.attachmentRef} characters`,
        ).meta({ description: "One reference: a URL or a document or ticket id." }),
      { error: "attachments_optional must be an array of strings" },
    ).max(LIMITS.attachments, `attachments_optional holds at most ${LIMITS.attachments} references`)
      .optional().meta({
        description: "Up to 10 references (URLs, document or ticket ids) for the reviewer, such " +
          "as a rack diagram; nothing is fetched.",
        examples: [["https://example.com/rack-12-elevation.pdf"]],
      }),
    urgency: JOB_FIELDS.urgency,
    agent_context_optional: _agentContext.optional(),
    idempotency_key: IdempotencyKey.optional(),
  }).meta({
    description: "A quotation request for one catalog service at one site; a person reviews it.",
  });
}

const _quoteInputs = new WeakMap<Catalog, ReturnType<typeof _quoteInput>>();

/**
 * The quote request schema of a catalog (SPEC §2.5): additional properties are allowed and
 * kept (at most 16, 4 KiB together), and `service_type`'s description names the catalog's
 * service ids. Built once per catalog.
 */
export function quoteInput(catalog: Catalog): ReturnType<typeof _quoteInput> {
  let schema = _quoteInputs.get(catalog);
  if (!schema) {
    schema = _quoteInput(catalog.services.map((s) => s.id).join(", "));
    _quoteInputs.set(catalog, schema);
  }
  return schema;
}
type QuoteInput = z.infer<ReturnType<typeof _quoteInput>>;

/** The fields of an object schema that may be left out. */
function _optional(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => (field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
}

/** How leniently a lead's fields are read before validation (see lenient.ts). */
export const LEAD_LENIENCY: LenientFields = {
  optional: _optional(LeadInput),
  countries: ["country"],
};

/** How leniently a quote's fields are read before validation (see lenient.ts). */
export const QUOTE_LENIENCY: LenientFields = {
  optional: _optional(_quoteInput("")),
  numbers: ["engineer_count", "estimated_hours"],
  booleans: ["out_of_hours"],
  countries: ["country"],
};

/** 400 `validation_failed` listing every problem, the one answer to bad input. */
export function validationFailed(issues: FieldIssue[]): HttpError {
  const n = issues.length;
  const listed = issues.slice(0, MAX_ISSUES).map((i) => clip(i.path, 80)).join(", ");
  const more = n > MAX_ISSUES
    ? ` and ${n - MAX_ISSUES} more (the first ${MAX_ISSUES} are listed)`
    : "";
  return new HttpError(
    400,
    "validation_failed",
    `${n} field${n === 1 ? "" : "s"} failed validation: ${listed}${more}`,
    { issues },
  );
}

/** Parses tool arguments with a zod schema, or throws {@linkcode validationFailed}. */
export function parseArguments<T>(schema: z.ZodType<T>, raw: unknown): T {
  const res = schema.safeParse(raw);
  if (!res.success) throw validationFailed(fieldIssues(res.error, argumentNames(schema)));
  return res.data;
}

/** The arguments an object schema takes (none for another schema). */
export function argumentNames(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/**
 * zod issues → the `issues` list of an error body, one entry per problem. An unknown
 * argument's issue names the one of `known` it probably stands for (argument_names.ts),
 * for the first {@linkcode MAX_ISSUES} of them: each guess costs a little.
 */
export function fieldIssues(error: z.ZodError, known: readonly string[] = []): FieldIssue[] {
  let guesses = 0;
  return error.issues.flatMap((i): FieldIssue[] => {
    // A strict object names every key it does not take; one issue each, at that key.
    if (i.code === "unrecognized_keys") {
      const at = i.path.length ? `${i.path.join(".")}.` : "";
      return i.keys.map((key) => {
        const meant = guesses++ < MAX_ISSUES ? meantArguments(key, known) : [];
        return { ...unknownArgumentIssue(key, meant), path: `${at}${key}` };
      });
    }
    return [{
      path: i.path.join(".") || "(body)",
      message: i.path.length === 0 && i.code === "invalid_type"
        ? "the body must be a JSON object"
        : i.message,
    }];
  });
}
