/**
 * @module
 * The OpenAPI operations tagged "Public".
 */

import { z } from "zod";
import { DEFAULT_RATE_LIMITS } from "../../config.ts";
import { CoverageQuerySchema } from "../../catalog/coverage_query.ts";
import type { OperationDoc } from "../document.ts";
import { LocationsOutput } from "../components.ts";
import * as ex from "../examples.ts";
import { COVERAGE_PARAMS, invalidQuery, queryTooBig } from "./coverage_params.ts";
import { QUERY_LIMITS } from "../../http/query.ts";
import { apiError, bodyLimits, forbiddenOrigin, RATE_HEADERS, rateLimited } from "../responses.ts";
import type { Catalog } from "../../catalog/catalog.ts";
import { LeadInput, quoteInput } from "../../intake/schemas.ts";
import { CoverageOutput, ServicesOutput } from "../../mcp/output_schemas.ts";
import { EstimateOutput, LeadOutput, QuoteOutput, StatusOutput } from "../../mcp/intake_outputs.ts";
import { EstimateInput } from "../../pricing/estimate.ts";
import { SUBMISSION_MAX_BODY } from "../../intake/submissions.ts";
import { TOOLS } from "../../mcp/tools.ts";

/** The operations tagged "Public", by route; see routes.ts. */
export function publicOperations(catalog: Catalog) {
  return {
    estimateQuote: {
      operationId: "estimateQuote",
      summary: "Estimate a job's price, storing nothing",
      description: _withTool(
        "Anonymous and read-only: nothing is stored or sent, and no submission limit is " +
          `spent; limited per address (RATE_LIMIT_ESTIMATE, ${DEFAULT_RATE_LIMITS.estimate} a ` +
          `minute by default, REST and MCP together). A query of more than ` +
          `${QUERY_LIMITS.parameters} parameters or ${QUERY_LIMITS.bytes} bytes is refused ` +
          "before any other work, and not counted. An empty parameter is not given. Never " +
          "cached (no-store).",
        "estimate_quote",
      ),
      tags: ["Public"],
      query: EstimateInput,
      emptyQueryValues: true,
      responses: {
        "200": {
          description: "The estimate and the city's coverage",
          schema: EstimateOutput,
          headers: RATE_HEADERS,
        },
        "400": apiError(
          "A job field is missing or invalid, the service is unknown, the city is a likely " +
            "typo of a covered one, a parameter is given twice, or the query is over " +
            `${QUERY_LIMITS.parameters} parameters or ${QUERY_LIMITS.bytes} bytes`,
          ["validation_failed", "1 field failed validation: service_type", [{
            path: "service_type",
            message: "service_type is required",
          }]],
          ["invalid_query", "city must be given once", [{
            path: "city",
            message: "city must be given once",
          }]],
          queryTooBig(Object.keys(EstimateInput.shape)),
        ),
        ...rateLimited("api", "estimate", DEFAULT_RATE_LIMITS.estimate),
      },
    },
    requestStatus: {
      operationId: "getRequestStatus",
      summary: "Where a submitted request stands",
      description: _withTool(
        "Anonymous; the request id is the key. Never cached.",
        "get_request_status",
      ),
      tags: ["Public"],
      params: {
        request_id: {
          description: "The request_id a lead or quote submission answered.",
          example: "quote_01KAKX2Q3M8Y6T0V5W9R4B7C1D",
        },
      },
      responses: {
        "200": { description: "The request's status", schema: StatusOutput },
        "404": apiError("No request has this id", [
          "not_found",
          "no request has this id: use the request_id exactly as submit_lead or request_quote " +
          "answered it (lead_… or quote_… and 26 characters); an erased request is gone",
        ]),
      },
    },
    publicServices: {
      operationId: "listServices",
      summary: "The service catalog",
      description: _withTool("Anonymous, cacheable 5 minutes.", "list_services"),
      tags: ["Public"],
      responses: {
        "200": {
          description: "The catalog",
          schema: ServicesOutput,
          examples: ex.SERVICES_EXAMPLES,
        },
      },
    },
    publicLocations: {
      operationId: "checkCoverage",
      summary: "Coverage for a city, or the published locations",
      description: _withTool(
        "With `city`: the coverage check; without: the published locations, only " +
          "`country`'s when given. Anonymous, cacheable 5 minutes.",
        "check_coverage",
      ),
      tags: ["Public"],
      query: CoverageQuerySchema.partial(),
      params: COVERAGE_PARAMS,
      responses: {
        "200": {
          description: "The coverage (with `city`) or the locations (without)",
          schema: z.union([CoverageOutput, LocationsOutput]),
          examples: { ...ex.COVERAGE_EXAMPLES, ...ex.LOCATIONS_EXAMPLES },
        },
        "400": invalidQuery(),
      },
    },
    submitLead: _submission({
      operationId: "submitLead",
      summary: "Submit a lead",
      description: _withTool(
        "Anonymous. Stored durably and reviewed by a human; nothing is ordered, scheduled or " +
          `billed. ${_OTHER_MEMBERS("urgency")}`,
        "submit_lead",
      ),
      requestBody: {
        contentType: "application/json",
        schema: LeadInput,
        examples: ex.LEAD_REQUEST_EXAMPLES,
      },
      responses: {
        "202": {
          description: "Accepted for human review",
          schema: LeadOutput,
          examples: ex.LEAD_RESPONSE_EXAMPLES,
        },
        "400": apiError(
          "The body is not JSON, a field is invalid, or the Idempotency-Key is malformed",
          ["validation_failed", "2 fields failed validation: email, description", [
            { path: "email", message: "email must be a valid email address" },
            { path: "description", message: "description is required" },
          ]],
          ["invalid_json", "request body is not valid JSON"],
          [
            "invalid_idempotency_key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
          ],
        ),
      },
    }),
    requestQuote: _submission({
      operationId: "requestQuote",
      summary: "Request a quote",
      description: _withTool(
        "Anonymous. Stored durably and reviewed by a human; nothing is ordered, scheduled or " +
          `billed. ${_OTHER_MEMBERS("urgency or a field the price depends on")}`,
        "request_quote",
      ),
      requestBody: {
        contentType: "application/json",
        schema: quoteInput(catalog),
        examples: ex.QUOTE_REQUEST_EXAMPLES,
      },
      responses: {
        "202": {
          description: "Accepted for human review, with a non-binding estimate",
          schema: QuoteOutput,
          examples: ex.QUOTE_RESPONSE_EXAMPLES,
        },
        "400": apiError(
          "The body is not JSON, a field is invalid, or the Idempotency-Key is malformed",
          ["validation_failed", "1 field failed validation: service_type", [{
            path: "service_type",
            message: "service_type must name a catalog service; valid ids: remote-hands, ...",
          }]],
          ["invalid_json", "request body is not valid JSON"],
          [
            "invalid_idempotency_key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
          ],
        ),
      },
    }),
  } satisfies Record<string, OperationDoc>;
}

/**
 * The `Idempotency-Key` header the submissions take (intake/handlers.ts): 1–255 visible ASCII
 * characters, bare or in one pair of quotes. Spelled without a lookahead, which generators
 * of test data lack: quoted; bare, not starting with a quote; or starting with one and not
 * ending with one (a bare `""` is a quoted empty key, refused).
 */
const IDEMPOTENCY_HEADER_PATTERN =
  /^(?:"[\x21-\x7E]{1,255}"|[\x21\x23-\x7E][\x21-\x7E]{0,254}|"(?:[\x21-\x7E]{0,253}[\x21\x23-\x7E])?)$/;

/** What a submission does with a member it does not take (intake/bounds.ts). */
const _OTHER_MEMBERS = (refused: string) =>
  "Other members are kept as sent for the reviewer and listed in `ignored` (each with the " +
  `field it probably means, \`did_you_mean\`, or null), except one that probably means ${refused}, ` +
  "which is refused (400, its issue naming `did_you_mean`).";

/** An operation's description: what the REST endpoint adds, then its MCP tool's words. */
function _withTool(rest: string, toolName: string): string {
  const tool = TOOLS.find((t) => t.name === toolName)!;
  return `${rest} As the MCP tool \`${toolName}\`: ${tool.description}`;
}

/** A lead or quote submission: Idempotency-Key, JSON only, 64 KiB, rate limited. */
function _submission(
  doc: Pick<OperationDoc, "operationId" | "summary" | "description" | "requestBody" | "responses">,
): OperationDoc {
  const accepted = doc.responses["202"]!;
  return {
    ...doc,
    tags: ["Public"],
    headers: {
      "Idempotency-Key": {
        description: "1–255 visible ASCII characters, optionally quoted. For 24 h, the same " +
          "key with the same body replays the answer of the request first stored with it, and " +
          "stores nothing new; with another body it is 409. Whatever the key, or without one, " +
          "the same body from the same address within 10 minutes (REST or MCP) replays the " +
          "first answer",
        schema: z.string().regex(IDEMPOTENCY_HEADER_PATTERN),
        example: "5f0c2d4e-quote-1",
      },
    },
    responses: {
      ...doc.responses,
      "202": {
        ...accepted,
        headers: {
          ...RATE_HEADERS,
          "Idempotent-Replayed": {
            description: "`true` when this is the stored answer to an earlier identical request",
            schema: z.literal("true"),
          },
        },
      },
      "409": apiError("The Idempotency-Key was used with a different body", [
        "idempotency_key_reused",
        "this idempotency key was already used with other arguments: send the same arguments " +
        "to get the first answer again, or a new key for a new request",
        [{
          path: "idempotency_key",
          message: "this idempotency key was already used with other arguments: send the same " +
            "arguments to get the first answer again, or a new key for a new request",
        }],
      ]),
      ...bodyLimits("api", SUBMISSION_MAX_BODY, [
        "unsupported_media_type",
        "Content-Type must be application/json",
      ]),
      ...forbiddenOrigin("api"),
      ...rateLimited("api", "submit", DEFAULT_RATE_LIMITS.submit, DEFAULT_RATE_LIMITS.submitGlobal),
    },
  };
}
