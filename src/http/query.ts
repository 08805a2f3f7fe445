/**
 * @module
 * A request's query string, bounded before anything parses it. Every endpoint that reads its
 * query (the estimate, the coverage checks) takes at most {@linkcode QUERY_LIMITS}: past
 * them, `400 invalid_query` stating the limit, after a scan of the raw string that stops at
 * the first parameter too many, with no decoding, no field matching and no schema.
 *
 * The limits come from the largest query the service reads, the estimate's. Its fields
 * (`city`, `country`, `service_type`, `engineer_count`, `estimated_hours`, `out_of_hours`,
 * `requested_date`, `requested_time`, and `currency`: 9) and up to 16 other names (synonyms,
 * or unknown names a refusal lists) make 25 parameters, rounded up to 32. Its bytes, each
 * character percent-encoded UTF-8 at up to 9 bytes (`%E2%82%AC`): `city` and `service_type`
 * at their 200 characters, 3,600; a country's name at 60, 540; the other values and the
 * fields' names, under 300; 16 other names of up to 64 characters, 1,024: about 5,500,
 * rounded up to 8 KiB.
 */

import { HttpError } from "./errors.ts";

/** The most a query string may hold, on every endpoint that reads one. */
export const QUERY_LIMITS = { parameters: 32, bytes: 8 * 1024 } as const;

/**
 * The query of `req`, parsed, once it is known to be within {@linkcode QUERY_LIMITS}; else
 * `400 invalid_query` naming the limit and the parameters the endpoint reads (`fields`).
 */
export function boundedQuery(req: Request, fields: readonly string[]): URLSearchParams {
  const url = req.url;
  const start = url.indexOf("?");
  if (start < 0) return new URLSearchParams();
  const hash = url.indexOf("#", start);
  const query = url.slice(start + 1, hash < 0 ? url.length : hash);
  // The server hands the query percent-encoded: one character is one byte.
  if (query.length > QUERY_LIMITS.bytes) {
    _refuse(
      `the query string is ${query.length} bytes; at most ${QUERY_LIMITS.bytes} are read`,
      fields,
    );
  }
  if (_moreParametersThan(query, QUERY_LIMITS.parameters)) {
    _refuse(`the query has more than ${QUERY_LIMITS.parameters} parameters`, fields);
  }
  return new URLSearchParams(query);
}

/**
 * True when `query` holds more than `max` parameters, counted as URLSearchParams counts
 * them (empty pieces between `&`s are none); the scan stops at the one too many.
 */
function _moreParametersThan(query: string, max: number): boolean {
  let count = 0;
  for (let at = 0; at <= query.length;) {
    const end = query.indexOf("&", at);
    const stop = end < 0 ? query.length : end;
    if (stop > at && ++count > max) return true;
    if (end < 0) break;
    at = end + 1;
  }
  return false;
}

function _refuse(what: string, fields: readonly string[]): never {
  const message = `${what}; this endpoint reads ${fields.join(", ")}, each once, and ` +
    `takes at most ${QUERY_LIMITS.parameters} parameters in ${QUERY_LIMITS.bytes} bytes`;
  throw new HttpError(400, "invalid_query", message, { issues: [{ path: "(query)", message }] });
}
