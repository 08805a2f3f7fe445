/**
 * @module
 * `POST /oauth2/token`: the client-credentials grant (RFC 6749 §4.4) with a single
 * resource (RFC 8707). Issues opaque Bearer tokens stored only as digests.
 */

import { countToken } from "../telemetry/metrics.ts";
import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { json, NO_STORE } from "../http/json.ts";
import { type ClientRecord, newToken } from "../store/credentials.ts";
import type { Committed } from "../store/commits.ts";
import { commitCounted, rateLimited, readCounts } from "../http/rate_limit.ts";
import { authenticateClient, rejectBodyCredentials } from "./client_auth.ts";
import { CLIENT_IDLE_TTL_MS } from "./registration.ts";
import { readOAuthForm } from "./form.ts";
import { formatScope, parseScope, type Scope } from "./scopes.ts";
import { ACCESS_TOKEN_PREFIX, digest, randomCredential } from "./secrets.ts";
import { DAY_MS } from "../time.ts";

/** Access token lifetime (SPEC §2.2). */
export const TOKEN_LIFETIME_S = 900;

/**
 * Two sequential store round trips at most: the client record (unless cached) read beside the
 * rate counter (unless this instance counted this address last, or it is off), then one
 * commit of the token with the count (http/rate_limit.ts).
 */
export function issueToken(req: Request, ctx: Context): Promise<Response> {
  return rateLimited(ctx, "token", ctx.config.rateLimits.token, () => _issue(req, ctx));
}

async function _issue(req: Request, ctx: Context): Promise<Response> {
  const form = await readOAuthForm(req, ["resource"]);
  // The token commit is checked against the client record read here, so a cached record
  // needs no marker read: a disabled or changed client fails that check (see below).
  // The rate counter is read beside the client record: both start before either is awaited.
  const counted = readCounts(ctx);
  let client = await authenticateClient(req, ctx, "cached", form);
  await counted;
  let scopes: Scope[];
  try {
    scopes = _validate(form(), client, ctx);
  } catch (err) {
    // An error answer commits nothing, so no commit checks the cached client: confirm it
    // in the store first, so that a disabled client gets invalid_client, not this error.
    if (err instanceof HttpError) await authenticateClient(req, ctx, "store");
    throw err;
  }

  const token = randomCredential(ACCESS_TOKEN_PREFIX);
  const now = ctx.now();
  const record = {
    client_id: client.clientId,
    scopes,
    audience: ctx.config.baseUrl,
    issued_at: now,
    expires_at: now + TOKEN_LIFETIME_S * 1000,
  };
  const hash = digest(token);
  // Read before the commit, so the rule of store/cache.ts holds for the new record.
  const marker = ctx.cache.lastMarker();
  for (let attempt = 0;; attempt++) {
    const extended = _extension(client.record, now);
    // Checked against the client record read by authentication. It fails when the client
    // changed meanwhile (disabled, or extended by a concurrent request); then authenticate
    // again, which refuses a disabled client.
    const done = await commitCounted(ctx, newToken(hash, record, client.entry, extended));
    if (done.ok) {
      // The next token of this client on this instance then checks the record as it is now.
      if (extended) _cacheExtended(ctx, client, extended, done, marker);
      break;
    }
    if (attempt >= 5) throw new Error("token commit kept failing its client check");
    // The cached record may be older than the one in the store: read the store.
    client = await authenticateClient(req, ctx, "store");
  }
  // Its revocation, most often on this instance, then needs no read of the store.
  ctx.cache.tokens.set(hash, record, marker);
  countToken("issued");
  // RFC 6749 §5.1
  return json({
    access_token: token,
    token_type: "Bearer",
    expires_in: TOKEN_LIFETIME_S,
    scope: formatScope(scopes),
  }, { headers: NO_STORE });
}

/**
 * Caches the client record as a token's commit extended it (the rule of store/cache.ts holds:
 * this process wrote it after `marker`), or as read back when the commit's answer was lost.
 */
function _cacheExtended(
  ctx: Context,
  client: AuthenticatedClient,
  extended: ClientRecord,
  done: Extract<Committed, { ok: true }>,
  marker: Marker,
): void {
  const readBack = done.readBack?.[1] as Deno.KvEntryMaybe<ClientRecord> | undefined;
  const entry = readBack ??
    { key: client.entry.key, value: extended, versionstamp: done.versionstamp! };
  if (entry.value) {
    ctx.cache.clients.set(client.clientId, entry as Deno.KvEntry<ClientRecord>, marker);
  } else ctx.cache.clients.delete(client.clientId);
}

/**
 * The client record with its idle lifetime extended to 30 days from now, when it has
 * less than 29 days left (its first token, or a day since the last extension);
 * otherwise undefined, and the record is not rewritten.
 */
function _extension(client: ClientRecord, now: number): ClientRecord | undefined {
  if (client.expires_at - now > CLIENT_IDLE_TTL_MS - EXTEND_AFTER_MS) return undefined;
  return { ...client, expires_at: now + CLIENT_IDLE_TTL_MS };
}

/** A client record is rewritten to extend its lifetime at most this often. */
const EXTEND_AFTER_MS = DAY_MS;

function _isOurResource(resource: string, ctx: Context): boolean {
  // A trailing slash is tolerated: "https://api.example.com/" names the same origin.
  return resource === ctx.config.baseUrl || resource === `${ctx.config.baseUrl}/`;
}

type AuthenticatedClient = Awaited<ReturnType<typeof authenticateClient>>;
/** The revocation marker value a cached record is stored under (store/cache.ts). */
type Marker = ReturnType<Context["cache"]["lastMarker"]>;

/** The request's checks after authentication; returns the scopes to grant. */
function _validate(params: URLSearchParams, client: AuthenticatedClient, ctx: Context): Scope[] {
  rejectBodyCredentials(params, client, ctx);
  const grantType = params.get("grant_type");
  if (!grantType) throw new HttpError(400, "invalid_request", "grant_type is required");
  if (grantType !== "client_credentials") {
    throw new HttpError(
      400,
      "unsupported_grant_type",
      "the only supported grant_type is client_credentials",
    );
  }
  const resources = params.getAll("resource");
  if (resources.length > 1 || (resources[0] && !_isOurResource(resources[0], ctx))) {
    // RFC 8707 §2: invalid_target for a resource this server does not serve.
    throw new HttpError(
      400,
      "invalid_target",
      `the only supported resource is ${ctx.config.baseUrl}`,
    );
  }
  const requested = parseScope(params.get("scope") ?? undefined);
  const scopes = requested ?? client.record.scopes;
  const notGranted = scopes.filter((s) => !client.record.scopes.includes(s));
  if (notGranted.length > 0) {
    throw new HttpError(
      400,
      "invalid_scope",
      `scope ${notGranted.join(" ")} was not registered for this client`,
    );
  }
  return scopes;
}
