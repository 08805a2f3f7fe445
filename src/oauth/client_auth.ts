/**
 * @module
 * `client_secret_basic` client authentication (RFC 6749 §2.3.1), the only method.
 */

import type { Context } from "../context.ts";
import { decodeUtf8, formDecode } from "../http/body.ts";
import { HttpError } from "../http/errors.ts";
import type { ClientRecord } from "../store/credentials.ts";
import { cachedClient, type Freshness } from "../store/cache.ts";
import { digest, matchesDigest } from "./secrets.ts";

interface AuthenticatedClient {
  clientId: string;
  record: ClientRecord;
  /** The record as read, with its versionstamp, for writes checked against it. */
  entry: Deno.KvEntry<ClientRecord>;
}

// Compared against when the client id is unknown, so both paths cost the same.
const _DUMMY_DIGEST = digest("no such client");
const _B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Authenticates the client from the `Authorization: Basic` header. Every failure —
 * no header, another scheme, bad base64, unknown client, wrong secret — is the same
 * generic 401 `invalid_client`, so nobody can tell which client ids exist.
 * `freshness` says how current the client record must be (see store/cache.ts): a caller
 * whose commit is checked against `entry` may take any cached one.
 */
export async function authenticateClient(
  req: Request,
  ctx: Context,
  freshness: Freshness = "exact",
  form?: () => URLSearchParams,
): Promise<AuthenticatedClient> {
  const header = req.headers.get("authorization");
  const creds = decodeBasic(header);
  if (!creds) throw invalidClient(ctx, header === null ? _bodyOnly(form) : undefined);
  let entry = creds.id.length <= 128
    ? await cachedClient(ctx.kv, ctx.cache, creds.id, freshness)
    : null;
  // A cached record that has lapsed may have been extended on another instance since.
  if (entry && entry.value.expires_at <= ctx.now() && freshness !== "store") {
    entry = await cachedClient(ctx.kv, ctx.cache, creds.id, "store");
  }
  const record = entry?.value;
  const ok = matchesDigest(creds.secret, record?.secret_hash ?? _DUMMY_DIGEST);
  // KV may still return a lapsed registration after its expireIn. A disabled client
  // (`review disable-client`) fails like any other: no caller learns why.
  if (
    !entry || !record || !ok || record.expires_at <= ctx.now() || record.disabled_at !== undefined
  ) {
    throw invalidClient(ctx);
  }
  return { clientId: creds.id, record, entry };
}

/**
 * RFC 6749 §2.3: one authentication method per request, and Basic is the only one.
 * Credentials in the body as well, or a body `client_id` naming another client,
 * fail authentication.
 */
export function rejectBodyCredentials(
  params: URLSearchParams,
  client: AuthenticatedClient,
  ctx: Context,
): void {
  const id = params.get("client_id");
  if (
    params.has("client_secret") || params.has("client_assertion") ||
    params.has("client_assertion_type") || (id !== null && id !== client.clientId)
  ) {
    throw invalidClient(ctx, _BASIC_ONLY);
  }
}

const _BASIC_ONLY = "send the client credentials only as an Authorization: Basic header " +
  "(client_secret_basic, RFC 6749 section 2.3.1), not in the body";

/**
 * A request with no Authorization header whose body carries client credentials
 * (`client_secret_post`) is told how to send them. The hint depends on the request's
 * shape only, so it says nothing about which clients exist.
 */
function _bodyOnly(form: (() => URLSearchParams) | undefined): string | undefined {
  try {
    const params = form?.();
    return params?.has("client_secret") || params?.has("client_id") ? _BASIC_ONLY : undefined;
  } catch {
    return undefined; // a malformed body is reported after authentication
  }
}

/**
 * Decodes `Basic base64(urlencode(id):urlencode(secret))`: strict base64, split at the
 * first colon, then form-url-decode each half (RFC 6749 §2.3.1, `+` is a space).
 * Returns `null` for anything malformed.
 */
export function decodeBasic(header: string | null): { id: string; secret: string } | null {
  const m = header?.match(/^basic +([^ ]+) *$/i);
  if (!m || !_B64.test(m[1]!)) return null;
  let decoded: string;
  try {
    const binary = atob(m[1]!);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    decoded = decodeUtf8(bytes);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0) return null;
  try {
    const id = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    return id && secret ? { id, secret } : null;
  } catch {
    return null;
  }
}

/** 401 `invalid_client` with the Basic challenge (RFC 6749 §5.2), and how to fix the request. */
function invalidClient(ctx: Context, hint?: string): HttpError {
  const message = hint ? `client authentication failed: ${hint}` : "client authentication failed";
  return new HttpError(401, "invalid_client", message, {
    headers: { "WWW-Authenticate": `Basic realm="${ctx.config.baseUrl}", charset="UTF-8"` },
  });
}
