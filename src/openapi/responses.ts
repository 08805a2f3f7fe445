/**
 * @module
 * Response documentation shared by many operations: the two error layouts with
 * examples, and the responses of body limits, rate limits and client authentication.
 */

import { z } from "zod";
import type { FieldIssue } from "../http/errors.ts";
import { encodedBodyRefused } from "../http/body.ts";
import type { ExampleDoc, HeaderDoc, ResponseDoc } from "./document.ts";
import { ApiErrorBody, OAuthErrorBody } from "./components.ts";

/** One documented error: its code, its message, and the field issues of a 400. */
type ErrorCase = readonly [code: string, message: string, issues?: FieldIssue[]];

export const RATE_HEADERS: Readonly<Record<string, HeaderDoc>> = {
  "RateLimit-Policy": {
    description: "The endpoint's limit per client address (IETF httpapi RateLimit draft): " +
      "q requests per w seconds",
    schema: z.string(),
    example: '"token";q=60;w=60',
  },
  "RateLimit": {
    description: "Requests left in this window (r) and seconds until it resets (t)",
    schema: z.string(),
    example: '"token";r=59;t=42',
  },
};

/** Documented examples, keyed by error code (a second case of one code gets a suffix). */
function _examples(
  body: (c: ErrorCase) => unknown,
  cases: ErrorCase[],
): Record<string, ExampleDoc> {
  const out: Record<string, ExampleDoc> = {};
  for (const c of cases) {
    let key = c[0];
    for (let n = 2; key in out; n++) key = `${c[0]}_${n}`;
    out[key] = { summary: c[1], value: body(c) };
  }
  return out;
}

export function apiError(description: string, ...cases: ErrorCase[]): ResponseDoc {
  const body = ([error, message, issues]: ErrorCase) => ({
    ok: false,
    error,
    message,
    ...(issues ? { issues } : {}),
  });
  return { description, schema: ApiErrorBody, examples: _examples(body, cases) };
}

export function oauthError(description: string, ...cases: ErrorCase[]): ResponseDoc {
  const body = ([error, message]: ErrorCase) => ({ error, error_description: message });
  return { description, schema: OAuthErrorBody, examples: _examples(body, cases) };
}

function _error(style: "oauth" | "api", description: string, c: ErrorCase): ResponseDoc {
  return style === "oauth" ? oauthError(description, c) : apiError(description, c);
}

export function tooLarge(style: "oauth" | "api", maxBytes: number): ResponseDoc {
  return _error(style, `The body is over ${maxBytes / 1024} KiB (refused while it streams)`, [
    "payload_too_large",
    `request body exceeds ${maxBytes} bytes`,
  ]);
}

/**
 * 408, 413 and 415, the limits of reading a body: a 415 for any `Content-Encoding`, and for
 * `mediaTypes`, the route's own refusals of a `Content-Type`.
 */
export function bodyLimits(
  style: "oauth" | "api",
  maxBytes: number,
  ...mediaTypes: ErrorCase[]
): Record<string, ResponseDoc> {
  return {
    "408": _error(style, "The body did not arrive within 10 s", [
      "request_timeout",
      "request body not received in time",
    ]),
    "413": tooLarge(style, maxBytes),
    "415": unsupportedBody(style, ...mediaTypes),
  };
}

/** The `Accept-Encoding` of a 415 for a content coding (RFC 9110 §12.5.3). */
const _ACCEPT_ENCODING: Readonly<Record<string, HeaderDoc>> = {
  "Accept-Encoding": {
    description: "identity: no content coding is accepted on a request body (RFC 9110 " +
      "§12.5.3); only on the 415 for a Content-Encoding",
    schema: z.literal("identity"),
    example: "identity",
  },
};

/**
 * 415 for a body sent with a `Content-Encoding` (any, `identity` included: http/body.ts), and
 * for `mediaTypes`, the route's refusals of a `Content-Type`.
 */
export function unsupportedBody(style: "oauth" | "api", ...mediaTypes: ErrorCase[]): ResponseDoc {
  const encoded = encodedBodyRefused();
  const cases: ErrorCase[] = [[encoded.code, encoded.message], ...mediaTypes];
  const description = "The body has a Content-Encoding (none is accepted; send it " +
    `uncompressed)${mediaTypes.length ? ", or is not of the media type the route takes" : ""}`;
  const response = style === "oauth"
    ? oauthError(description, ...cases)
    : apiError(description, ...cases);
  return { ...response, headers: _ACCEPT_ENCODING };
}

/**
 * RFC 6585 §4: 429 with `Retry-After` (RFC 9110 §10.2.3) and the RateLimit headers.
 * `global` is the cap on all callers together, where the endpoint has one.
 */
export function rateLimited(
  style: "oauth" | "api",
  bucket: string,
  limit: number,
  global?: number,
): Record<string, ResponseDoc> {
  const cases: ErrorCase[] = [[
    "rate_limited",
    `too many requests: at most ${limit} per minute from one address; retry in 42 s`,
  ]];
  let description = `Too many requests from one address (default ${limit}/min)`;
  if (global !== undefined) {
    description += `, or too many valid ones about to be stored from all callers together ` +
      `(default ${global}/min; invalid requests do not count towards it)`;
    cases.push([
      "rate_limited",
      `too many requests: at most ${global} per minute from all callers together; retry in 42 s`,
    ]);
  }
  const response = style === "oauth"
    ? oauthError(description, ...cases)
    : apiError(description, ...cases);
  return {
    "429": {
      ...response,
      headers: {
        "Retry-After": {
          description: "Seconds until the window resets",
          schema: z.int().min(1),
          example: 42,
        },
        "RateLimit-Policy": {
          ...RATE_HEADERS["RateLimit-Policy"]!,
          example: `"${bucket}";q=${limit};w=60`,
        },
        "RateLimit": { ...RATE_HEADERS["RateLimit"]!, example: `"${bucket}";r=0;t=42` },
      },
    },
  };
}

/** 403 `forbidden_origin`: a browser page from an origin the route does not allow. */
export function forbiddenOrigin(style: "oauth" | "api"): Record<string, ResponseDoc> {
  return {
    "403": _error(
      style,
      "A browser Origin other than the service's own or one in ALLOWED_ORIGINS; " +
        "nothing is stored and no budget is spent",
      ["forbidden_origin", "this Origin may not call this resource"],
    ),
  };
}

/** RFC 6749 §5.2: every client authentication failure is the same 401. */
export function invalidClient(base: string): ResponseDoc {
  return {
    ...oauthError("Client authentication failed (always the same description)", [
      "invalid_client",
      "client authentication failed",
    ]),
    headers: {
      "WWW-Authenticate": {
        description: "The Basic challenge",
        schema: z.string(),
        example: `Basic realm="${base}", charset="UTF-8"`,
      },
    },
  };
}
