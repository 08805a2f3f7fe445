/**
 * @module
 * The coverage query (`city`, optional `country`), validated with zod. Shared by the
 * protected and the public coverage endpoints and, later, the MCP tool.
 */

import { z } from "zod";
import type { CoverageQuery } from "./coverage.ts";
import { type FieldIssue, HttpError } from "./http.ts";

/** Longest accepted city name; the longest real ones are well under this. */
export const CITY_MAX = 100;

export const CoverageQuerySchema = z.strictObject({
  city: z.string().trim().min(1, "city must not be empty").max(
    CITY_MAX,
    `city must be at most ${CITY_MAX} characters`,
  ),
  country: z.string().trim().regex(
    /^[A-Za-z]{2}$/,
    "country must be an ISO 3166-1 alpha-2 code such as DE",
  ).transform((c) => c.toUpperCase()).optional(),
});

/** Validates `city` and `country` from a query string; 400 with every problem listed. */
export function parseCoverageQuery(search: URLSearchParams): CoverageQuery {
  const input: Record<string, string> = {};
  for (const name of ["city", "country"]) {
    const values = search.getAll(name);
    if (values.length > 1) {
      throw new HttpError(400, "invalid_query", `${name} must be given once`);
    }
    if (values[0] !== undefined) input[name] = values[0];
  }
  if (input.city === undefined) {
    throw new HttpError(400, "invalid_query", "city is required", {
      issues: [{ path: "city", message: "city is required" }],
    });
  }
  const res = CoverageQuerySchema.safeParse(input);
  if (!res.success) {
    const issues: FieldIssue[] = res.error.issues.map((i) => ({
      path: i.path.join("."),
      message: i.message,
    }));
    throw new HttpError(400, "invalid_query", issues.map((i) => i.message).join("; "), { issues });
  }
  return res.data;
}
