/**
 * @module
 * Bearer token verification for the protected agent resource (RFC 6750), with the
 * RFC 9728 `resource_metadata` discovery hint on every challenge.
 */

import { PATHS } from "../http/paths.ts";
import type { Context } from "../context.ts";

import { HttpError } from "../http/errors.ts";
import type { TokenRecord } from "../store/credentials.ts";
import { exactToken } from "../store/cache.ts";
import type { Scope } from "./scopes.ts";
import { digest } from "./secrets.ts";

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive.
const _BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The URL of the protected resource metadata document (RFC 9728 §3). */
function resourceMetadataUrl(ctx: Context): string {
  return ctx.config.baseUrl + PATHS.protectedResourceMetadata;
}

/**
 * Verifies the `Authorization: Bearer` token and the scope the endpoint needs.
 * Tokens are never read from the query or the body (RFC 6750 §2.2–2.3 not supported).
 * Validity is decided by `expires_at` against the injected clock, because KV may
 * still return a key after its `expireIn`.
 */
export async function verifyBearer(
  req: Request,
  ctx: Context,
  scope: Scope,
): Promise<TokenRecord> {
  const header = req.headers.get("authorization");
  // RFC 6750 §3.1: a request without credentials gets a challenge with no error code.
  if (!header || !/^bearer(?: |$)/i.test(header)) {
    throw _challenge(ctx, 401, "missing_token", "a Bearer token is required", {});
  }
  const token = header.match(_BEARER)?.[1];
  const found = token ? await exactToken(ctx.kv, ctx.cache, digest(token)) : null;
  const record = found?.token;
  // A disabled client's tokens are refused at once, wherever they are (store/cache.ts).
  const client = found?.client;
  if (
    !record || record.expires_at <= ctx.now() || record.audience !== ctx.config.baseUrl ||
    !client || client.disabled_at !== undefined
  ) {
    throw _challenge(ctx, 401, "invalid_token", "the access token is invalid, expired or revoked", {
      error: "invalid_token",
    });
  }
  if (!record.scopes.includes(scope)) {
    // RFC 6750 §3.1: 403 insufficient_scope, naming the scope needed.
    throw _challenge(ctx, 403, "insufficient_scope", `this endpoint requires scope ${scope}`, {
      error: "insufficient_scope",
      scope,
    });
  }
  return record;
}

function _challenge(
  ctx: Context,
  status: number,
  code: string,
  message: string,
  params: Record<string, string>,
): HttpError {
  const attrs = {
    realm: ctx.config.baseUrl,
    ...params,
    resource_metadata: resourceMetadataUrl(ctx),
  };
  const value = "Bearer " + Object.entries(attrs).map(([k, v]) => `${k}="${v}"`).join(", ");
  return new HttpError(status, code, message, { headers: { "WWW-Authenticate": value } });
}
