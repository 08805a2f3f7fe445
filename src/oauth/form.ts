/**
 * @module
 * Request bodies of the OAuth endpoints: bounded, form-encoded, parsed strictly.
 */

import { HttpError } from "../http/errors.ts";
import { mediaType, parseForm, readBody } from "../http/body.ts";

/** Largest accepted body on the registration, token and revocation endpoints. */
export const OAUTH_MAX_BODY = 8 * 1024;

/**
 * Reads a bounded form body now (so 413 comes before anything else) and returns a
 * parser to call after client authentication, so that any request from an
 * unauthenticated caller is answered `invalid_client` whatever its body.
 */
export async function readOAuthForm(
  req: Request,
  repeatable: readonly string[] = [],
): Promise<() => URLSearchParams> {
  const body = await readBody(req, { maxBytes: OAUTH_MAX_BODY });
  return () => {
    if (mediaType(req) !== "application/x-www-form-urlencoded") {
      throw new HttpError(
        400,
        "invalid_request",
        "Content-Type must be application/x-www-form-urlencoded",
      );
    }
    return parseForm(body, repeatable);
  };
}
