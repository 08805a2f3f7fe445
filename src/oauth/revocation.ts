/**
 * @module
 * `POST /oauth2/revoke` (RFC 7009): a client revokes its own access token.
 */

import { countToken } from "../telemetry/metrics.ts";
import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { json, NO_STORE } from "../http/json.ts";
import { type TokenRecord, tokenRevocation } from "../store/credentials.ts";
import { cachedToken } from "../store/cache.ts";
import { commitCounted, rateLimited, readCounts } from "../http/rate_limit.ts";
import { authenticateClient, rejectBodyCredentials } from "./client_auth.ts";
import { digest } from "./secrets.ts";
import { readOAuthForm } from "./form.ts";

/**
 * Two sequential store round trips at most: the client and the token (each unless cached)
 * read beside the rate counter, then one commit of the deletion with the count.
 */
export function revokeToken(req: Request, ctx: Context): Promise<Response> {
  return rateLimited(ctx, "revoke", ctx.config.rateLimits.revoke, () => _revoke(req, ctx));
}

async function _revoke(req: Request, ctx: Context): Promise<Response> {
  const form = await readOAuthForm(req);
  // Any cached client record will do: the delete below is checked against it, and the
  // answers that commit nothing authenticate against the store first. Any cached token
  // record will do as well: a token's client never changes, and deleting a token another
  // instance revoked a moment ago changes nothing. Both are read beside the counter.
  const lookup = _tokenLookup(ctx, form);
  const counted = readCounts(ctx);
  let [client, found] = await Promise.all([
    authenticateClient(req, ctx, "cached", form),
    lookup.found,
  ]);
  await counted;
  // The form as the lookup parsed it; parsed again only to report why it could not be.
  const params = lookup.params ?? form();
  rejectBodyCredentials(params, client, ctx);
  if (!lookup.hash) throw new HttpError(400, "invalid_request", "token is required");
  // token_type_hint is only a hint (RFC 7009 §2.1); access tokens are the only kind.

  // An expired token is as good as unknown (SPEC §3), whoever it was issued to.
  const record = found && found.expires_at > ctx.now() ? found : null;
  if (!record || record.client_id !== client.clientId) {
    // No commit checks the client here: a client disabled on another instance must still
    // get invalid_client, so authenticate against the store.
    client = await authenticateClient(req, ctx, "store");
  }
  if (record && record.client_id !== client.clientId) {
    // RFC 7009 §2.1: the token was not issued to this client; refuse, leave it valid.
    throw new HttpError(400, "unauthorized_client", "the token was not issued to this client");
  }
  if (record) {
    for (let attempt = 0;; attempt++) {
      if ((await commitCounted(ctx, tokenRevocation(lookup.hash, client.entry))).ok) break;
      if (attempt >= 5) throw new Error("revocation kept failing its client check");
      // The client changed (disabled, or its life extended): read it from the store.
      client = await authenticateClient(req, ctx, "store");
    }
    ctx.cache.tokens.delete(lookup.hash);
    countToken("revoked");
  }
  // RFC 7009 §2.2: 200 whether or not the token was valid or known. The body may be
  // anything; an empty JSON object keeps clients that parse every answer as JSON working
  // (simple-oauth2's revoke() threw on an empty body without a Content-Type).
  return json({}, { headers: NO_STORE });
}

/**
 * The digest of the token the form names and its record, looked up at once. A form that
 * cannot be read looks up nothing here: it is reported after authentication, as before.
 */
function _tokenLookup(
  ctx: Context,
  form: () => URLSearchParams,
): { params?: URLSearchParams; hash: string | null; found: Promise<TokenRecord | null> } {
  let params: URLSearchParams | undefined;
  try {
    params = form();
  } catch { /* reported after authentication */ }
  const token = params?.get("token");
  if (!token) return { params, hash: null, found: Promise.resolve(null) };
  const hash = digest(token);
  return { params, hash, found: cachedToken(ctx.kv, ctx.cache, hash, "cached") };
}
