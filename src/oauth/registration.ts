/**
 * @module
 * `POST /agent/identity`: anonymous agents register themselves and receive a
 * client id and a one-time client secret. The same endpoint takes an RFC 7591 dynamic
 * registration request (`grant_types`, `token_endpoint_auth_method`, `scope`,
 * `client_name`; `type` defaults to `anonymous`) and answers with the RFC 7591 fields, so
 * generic OAuth tooling registers from the metadata's `registration_endpoint` alone.
 */

import { countClientRegistered } from "../telemetry/metrics.ts";
import { z } from "zod";
import type { Context } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { json, NO_STORE } from "../http/json.ts";
import { mediaType, parseJson, readBody } from "../http/body.ts";
import { type ClientRecord, newClient } from "../store/credentials.ts";
import { OAUTH_MAX_BODY } from "./form.ts";
import { commitCounted, rateLimited, reserveGlobal } from "../http/rate_limit.ts";
import { formatScope, parseScope, SCOPES } from "./scopes.ts";
import { CLIENT_ID_PREFIX, CLIENT_SECRET_PREFIX, digest, randomCredential } from "./secrets.ts";
import { DAY_MS } from "../time.ts";

/** A registration lapses this long after its last token; every token issued extends it. */
export const CLIENT_IDLE_TTL_MS = 30 * DAY_MS;
/**
 * A registration that never obtains a token lapses after a day: an agent registers to
 * use the service, and registrations nobody uses are how the store would fill up.
 */
const CLIENT_UNUSED_TTL_MS = DAY_MS;

/** The only identity type; identity assertions and verified email are not implemented. */
export const IDENTITY_TYPES = ["anonymous"] as const;

const _ONLY_TYPE = `the only identity type is ${IDENTITY_TYPES.join(", ")}`;

/**
 * SPEC §4.2 and RFC 7591 §2 in one schema. Other RFC 7591 members (`client_name`,
 * `redirect_uris`, `software_id`…) are allowed and not registered: only
 * client credentials with `client_secret_basic` exist, so none of them changes anything.
 */
export const RegistrationRequest = z.looseObject({
  type: z.string({ error: `type must be a string; ${_ONLY_TYPE}` }).max(64).optional(),
  scope: z.string({ error: "scope must be a string" }).max(512).optional(),
  grant_types: z.array(z.string().max(64), {
    error: 'grant_types must be an array of strings, such as ["client_credentials"]',
  }).max(8).optional(),
  token_endpoint_auth_method: z.string({
    error: "token_endpoint_auth_method must be a string: client_secret_basic",
  }).max(64).optional(),
  client_name: z.string({ error: "client_name must be a string" }).max(200).optional(),
});

/**
 * Two sequential store round trips: one eventual read of the rate counters this instance
 * does not know (none when it counted this address last), then one commit of the client with
 * both counts (http/rate_limit.ts).
 */
export function registerClient(req: Request, ctx: Context): Promise<Response> {
  return rateLimited(ctx, "register", ctx.config.rateLimits.register, () => _register(req, ctx));
}

async function _register(req: Request, ctx: Context): Promise<Response> {
  const body = await readBody(req, { maxBytes: OAUTH_MAX_BODY });
  if (mediaType(req) !== "application/json") {
    throw new HttpError(415, "invalid_request", "Content-Type must be application/json");
  }
  const parsed = RegistrationRequest.safeParse(parseJson(body));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const message = issue.path.length ? issue.message : "body must be a JSON object";
    throw new HttpError(400, "invalid_request", message);
  }
  const { type = "anonymous", grant_types, token_endpoint_auth_method } = parsed.data;
  if (type !== "anonymous") {
    throw new HttpError(
      400,
      "unsupported_identity_type",
      `identity type must be one of: ${IDENTITY_TYPES.join(", ")}`,
    );
  }
  // RFC 7591 §3.2.2: metadata this server cannot honour is invalid_client_metadata.
  const grants = grant_types?.filter((g) => g !== "client_credentials") ?? [];
  if (grants.length) {
    throw new HttpError(
      400,
      "invalid_client_metadata",
      `grant_types may only hold client_credentials; not supported: ${grants.join(", ")}`,
    );
  }
  if (
    token_endpoint_auth_method !== undefined && token_endpoint_auth_method !== "client_secret_basic"
  ) {
    throw new HttpError(
      400,
      "invalid_client_metadata",
      "token_endpoint_auth_method must be client_secret_basic (HTTP Basic at the token and " +
        "revocation endpoints)",
    );
  }
  const scopes = parseScope(parsed.data.scope) ?? [...SCOPES];
  // Only a registration about to be stored counts towards the cap on all callers
  // together: with CLIENT_UNUSED_TTL_MS this bounds what unused registrations can occupy.
  reserveGlobal(ctx, "register_all", ctx.config.rateLimits.registerGlobal);

  const clientId = randomCredential(CLIENT_ID_PREFIX, 16);
  const clientSecret = randomCredential(CLIENT_SECRET_PREFIX);
  const now = ctx.now();
  const record = {
    secret_hash: digest(clientSecret),
    scopes,
    created_at: now,
    expires_at: now + CLIENT_UNUSED_TTL_MS,
  };
  // Read before the commit, so the rule of store/cache.ts holds for the new record.
  const marker = ctx.cache.lastMarker();
  const write = newClient(clientId, record);
  const done = await commitCounted(ctx, write);
  // The id is random: only a re-sent commit could find it taken, and that one is ours.
  if (!done.ok) throw new Error("client id collision");
  // Its first token, most often on this instance, then needs no read of the store.
  const entry = done.readBack?.[0] as Deno.KvEntry<ClientRecord> | undefined ??
    { key: write.key, value: record, versionstamp: done.versionstamp! };
  ctx.cache.clients.set(clientId, entry, marker);
  countClientRegistered();
  return json({
    client_id: clientId,
    client_secret: clientSecret,
    client_id_issued_at: Math.floor(now / 1000),
    client_secret_expires_at: 0,
    scope: formatScope(scopes),
    grant_types: ["client_credentials"],
    token_endpoint_auth_method: "client_secret_basic",
  }, { status: 201, headers: NO_STORE });
}
