/**
 * @module
 * What the coverage reads' operations share (agent and public): the query parameters,
 * described in the tool's own words, and the 400 of a bad query.
 */

import { z } from "zod";
import { CoverageQuerySchema } from "../../catalog/coverage_query.ts";
import type { ResponseDoc } from "../document.ts";
import type { FieldIssue } from "../../http/errors.ts";
import { apiError } from "../responses.ts";
import { QUERY_LIMITS } from "../../http/query.ts";

/** The query parameters carry the descriptions of the tool's arguments, word for word. */
export const COVERAGE_PARAMS = {
  city: { description: _described(CoverageQuerySchema.shape.city), example: "Zurich" },
  country: { description: _described(CoverageQuerySchema.shape.country), example: "CH" },
} as const;

function _described(schema: z.ZodType): string {
  return String(schema.meta()?.description ?? "");
}

/** The example of a query over {@linkcode QUERY_LIMITS}, for an endpoint reading `fields`. */
export function queryTooBig(fields: readonly string[]): [string, string, FieldIssue[]] {
  const { parameters, bytes } = QUERY_LIMITS;
  const message = `the query has more than ${parameters} parameters; this endpoint reads ` +
    `${fields.join(", ")}, each once, and takes at most ${parameters} parameters in ${bytes} bytes`;
  return ["invalid_query", message, [{ path: "(query)", message }]];
}

export function invalidQuery(): ResponseDoc {
  return apiError(
    "A missing, empty or over-long city, a malformed country, a parameter given twice, or " +
      `a query of more than ${QUERY_LIMITS.parameters} parameters or ${QUERY_LIMITS.bytes} bytes`,
    ["invalid_query", "city is required", [{ path: "city", message: "city is required" }]],
    ["invalid_query", "country must be an ISO 3166-1 alpha-2 code such as DE", [{
      path: "country",
      message: "country must be an ISO 3166-1 alpha-2 code such as DE",
    }]],
    queryTooBig(["city", "country"]),
  );
}
