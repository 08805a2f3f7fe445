/**
 * @module
 * Example bodies of the OpenAPI document. Each one is checked by
 * `tests/openapi/document_test.ts` against the zod schema it illustrates, and the request
 * examples are sent to the real endpoints, so none of them can go stale.
 */

import type { ExampleDoc } from "./document.ts";

type Examples = Readonly<Record<string, ExampleDoc>>;

const _zurich = {
  query: { city: "zurich", country: null },
  match: "covered",
  covered: true,
  summary: "Zürich, CH is covered: 8 services, an engineer on site within 4 h.",
  location: {
    id: "zrh",
    city: "Zürich",
    country: "CH",
    region: "Europe",
    timezone: "Europe/Zurich",
  },
  services: [
    { id: "remote-hands", name: "Remote hands", notice_hours: 4 },
    { id: "rack-and-stack", name: "Rack and stack", notice_hours: 48 },
  ],
  response_time_hours: 4,
  nearest: [],
  candidates: [],
};

const _cologne = {
  query: { city: "Köln", country: null },
  match: "known_uncovered",
  covered: false,
  summary: "Cologne, DE is not covered. The nearest covered city is Düsseldorf, DE, 35 km away, " +
    "where an engineer is on site within 4 h of a request; a quote can still be requested.",
  location: null,
  services: [],
  response_time_hours: null,
  nearest: [
    { id: "dus", city: "Düsseldorf", country: "DE", distance_km: 35, response_time_hours: 4 },
    { id: "fra", city: "Frankfurt", country: "DE", distance_km: 153, response_time_hours: 2 },
  ],
  candidates: [],
};

const _sanJose = {
  query: { city: "San Jose", country: null },
  match: "ambiguous",
  covered: false,
  summary: '"San Jose" names 2 cities: San Jose, US (covered); San José, CR (not covered). ' +
    "Ask again with country to choose one.",
  location: null,
  services: [],
  response_time_hours: null,
  nearest: [],
  candidates: [
    { city: "San Jose", country: "US", covered: true },
    { city: "San José", country: "CR", covered: false },
  ],
};

export const COVERAGE_EXAMPLES: Examples = {
  covered: { summary: "A covered city (?city=zurich)", value: { ok: true, coverage: _zurich } },
  uncovered: {
    summary: "A known city outside coverage, with the nearest covered ones (?city=Köln)",
    value: { ok: true, coverage: _cologne },
  },
  ambiguous: {
    summary: "A name several cities share; add country (?city=San Jose)",
    value: { ok: true, coverage: _sanJose },
  },
  otherCountry: {
    summary: "A city asked for in a country where it is not (tool check_coverage with country US)",
    value: {
      ok: true,
      coverage: {
        query: { city: "Frankfurt", country: "US" },
        match: "other_country",
        covered: false,
        summary: 'No city "Frankfurt" is known in US, but Frankfurt, DE is covered: ask again ' +
          "with country DE if that is the one.",
        location: null,
        services: [],
        response_time_hours: null,
        nearest: [],
        candidates: [{ city: "Frankfurt", country: "DE", covered: true }],
      },
    },
  },
};

export const SERVICES_EXAMPLES: Examples = {
  catalog: {
    summary: "The catalog (one service shown, with four of its locations)",
    value: {
      ok: true,
      services: [{
        id: "remote-hands",
        name: "Remote hands",
        aliases: ["remote hand", "hands and eyes", "power cycle", "reboot", "reseat"],
        description: "On-site technician performs simple tasks on your behalf, such as power " +
          "cycling servers, checking status LEDs, reseating cables and reading out serial numbers.",
        category: "operations",
        minimum_notice_hours: 0,
        notice_hours_by_location: { fra: 2, zrh: 4, ams: 2, osl: 8 },
        pricing: {
          currency: "EUR",
          hourly_rate: 95,
          minimum_hours: 1,
          out_of_hours_multiplier: 1.5,
          call_out_fee: 0,
        },
      }],
      terms: {
        currency: "EUR",
        tax_included: false,
        statement: "Every rate, estimate and quotation is in euros (EUR), at every site " +
          "whatever its country, and excludes tax. …",
        tax: [
          { tax: "VAT", countries: ["AT", "CH", "DE", "FR", "GB", "NL"] },
          { tax: "sales tax", countries: ["US"] },
        ],
      },
    },
  },
};

export const LOCATIONS_EXAMPLES: Examples = {
  locations: {
    summary: "The published locations (one shown)",
    value: {
      ok: true,
      locations: [{
        id: "zrh",
        city: "Zürich",
        country: "CH",
        subdivision: "CH-ZH",
        region: "Europe",
        aliases: ["Zuerich"],
        latitude: 47.3769,
        longitude: 8.5417,
        timezone: "Europe/Zurich",
        response_time_hours: 4,
        services: ["remote-hands", "smart-hands", "rack-and-stack"],
      }],
    },
  },
};

export const LEAD_REQUEST_EXAMPLES: Examples = {
  minimal: {
    summary: "The two required fields",
    value: {
      email: "ops@example.com",
      description: "Two racks to install in Frankfurt next month",
    },
  },
  full: {
    summary: "Every documented field",
    value: {
      email: "ops@example.com",
      description: "Need remote hands in Paris to reseat two line cards",
      company: "Example SAS",
      contact_name: "Camille Example",
      city: "Paris",
      service_type: "remote-hands",
      agent_context_optional: { agent: "example-agent/1.0", conversation: "c-42" },
    },
  },
};

export const QUOTE_REQUEST_EXAMPLES: Examples = {
  rackAndStack: {
    summary: "Rack and stack in Frankfurt",
    value: {
      company: "Example GmbH",
      contact_name: "Alex Example",
      email: "alex@example.com",
      city: "Frankfurt am Main",
      country: "DE",
      service_type: "rack-and-stack",
      description: "Rack and cable 12 servers",
      engineer_count: 2,
      estimated_hours: 6,
    },
  },
  outOfHours: {
    summary: "Out of hours, with a date, a time, an attachment reference and another currency",
    value: {
      company: "Acme",
      contact_name: "Jo Doe",
      email: "jo@acme.example",
      phone: "+41 44 555 01 23",
      city: "Zurich",
      site_address: "Example Street 1, 8000 Zürich",
      service_type: "Rack and stack",
      description: "Install 4 servers",
      requested_date: "2026-12-03",
      requested_time: "22:00",
      engineer_count: 2,
      estimated_hours: 3,
      out_of_hours: true,
      currency: "CHF",
      attachments_optional: ["https://files.acme.example/rack-elevation.pdf"],
    },
  },
};

const _accepted = {
  ok: true,
  status: "pending",
  requires_human_approval: true,
  billable_order_created: false,
  ignored: [],
  replayed: false,
};

export const LEAD_RESPONSE_EXAMPLES: Examples = {
  accepted: {
    summary: "Stored, waiting for a human review",
    value: {
      ..._accepted,
      request_id: "lead_01KAKX2Q3M8Y6T0V5W9R4B7C1D",
      next_step: "A member of our team will review your request and reply by email, expected " +
        "within 24 hours, by 2026-11-23 09:30 UTC; nothing has been ordered or scheduled.",
      expected_review: { within_hours: 24, by: "2026-11-23T09:30:00.000Z" },
      service_id: "structured-cabling",
    },
  },
};

export const QUOTE_RESPONSE_EXAMPLES: Examples = {
  accepted: {
    summary: "Stored with a non-binding budget estimate, waiting for a human review",
    value: {
      ..._accepted,
      request_id: "quote_01KAKX2Q3M8Y6T0V5W9R4B7C1D",
      next_step: "A member of our team will review this request and reply by email with a " +
        "quotation, expected as an emergency within 2 hours, by 2026-11-22 11:30 UTC; the " +
        "budget estimate is non-binding and nothing has been ordered or scheduled.",
      expected_review: { within_hours: 2, by: "2026-11-22T11:30:00.000Z" },
      service_id: "rack-and-stack",
      budget_estimate: {
        currency: "EUR",
        tax_included: false,
        tax: "Excludes tax: the quotation adds VAT where it applies in the site's country " +
          "(Switzerland).",
        low: 1065,
        high: 1312.5,
        non_binding: true,
        basis: {
          service_id: "rack-and-stack",
          hourly_rate: 110,
          engineers: 2,
          hours: 3,
          hours_assumed: false,
          minimum_hours: 2,
          work_days: 1,
          hours_per_day: 3,
          out_of_hours: true,
          hours_out_of_hours: 3,
          out_of_hours_multiplier: 1.5,
          call_out_fee: 75,
          contingency: 0.25,
          time_zone: "Europe/Zurich",
          notice_hours: 48,
          short_notice: false,
        },
        assumptions: [{
          field: "work_days",
          value: 1,
          why: "hours per engineer, in days of at most 10 h: one shift of 3 h, 22:00 to 01:00 " +
            "local time on 2026-12-03",
        }],
        note: "A person reviews an emergency within 2 h (by 2026-11-22 11:30 UTC, 12:30 at the " +
          "site, if sent now); no one is dispatched before that review.",
      },
    },
  },
};

export const REGISTRATION_EXAMPLES: Examples = {
  allScopes: {
    summary: "All three read scopes",
    value: { type: "anonymous", scope: "services:read locations:read coverage:read" },
  },
  defaults: { summary: "Scope omitted: all three", value: { type: "anonymous" } },
};

export const REGISTERED_EXAMPLES: Examples = {
  registered: {
    summary: "The secret is shown once",
    value: {
      client_id: "agt_mdTMkCPurR5KaVdTYCnEnA",
      client_secret: "dcfs_cs_sN2lK2ZOv72U8Azf5uCP6GYWiMXrjH233BQam8phARY",
      client_id_issued_at: 1795316770,
      client_secret_expires_at: 0,
      scope: "services:read locations:read coverage:read",
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  },
};

export const TOKEN_REQUEST_EXAMPLES: Examples = {
  someScopes: {
    summary: "Two of the registered scopes",
    value: { grant_type: "client_credentials", scope: "services:read coverage:read" },
  },
  registeredScopes: {
    summary: "Scope omitted: every registered scope",
    value: { grant_type: "client_credentials" },
  },
};

export const TOKEN_EXAMPLES: Examples = {
  issued: {
    summary: "An opaque Bearer token for 900 s",
    value: {
      access_token: "dcfs_at_3q2-7wEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      token_type: "Bearer",
      expires_in: 900,
      scope: "services:read coverage:read",
    },
  },
};

export const REVOCATION_EXAMPLES: Examples = {
  revoke: {
    summary: "Revoke an access token",
    value: {
      token: "dcfs_at_3q2-7wEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      token_type_hint: "access_token",
    },
  },
};

export const MCP_EXAMPLES: Examples = {
  toolsList: {
    summary: "List the tools",
    value: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  },
  callTool: {
    summary: "Check coverage for a city",
    value: {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "check_coverage", arguments: { city: "Zurich" } },
    },
  },
};
