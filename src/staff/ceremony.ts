/**
 * @module
 * What the two passkey ceremonies (sign-in, enrolment) share on the wire. Each is two JSON
 * POSTs from passkey.js: the options, then the browser's answer.
 *
 * - **Checks.** Every ceremony POST checks `Origin` first (nothing is read or counted for a
 *   foreign page), then is rate limited per address (bucket `staff`, `RATE_LIMIT_STAFF`),
 *   then reads a bounded JSON body.
 * - **A cap on all callers together** (bucket `staff_all`, `RATE_LIMIT_STAFF_GLOBAL`) counts
 *   every ceremony begun (the two options POSTs), whatever it answers: in the commit that
 *   stores its challenge, or alone with its address's count when it fails (a wrong code, an
 *   unknown invite). It is the only door where a caller with many addresses can guess (an
 *   enrolment code, an invite token) or store anything (a challenge), and it bounds both: at
 *   most that many guesses a minute, and that many challenges begun a minute, each living
 *   {@linkcode CEREMONY_TTL_MS}, so at most six minutes' worth are live. It is checked
 *   before the address's limit, so a full cap refuses with 429 and writes nothing (from
 *   memory once this instance has seen it full, before the body is read). It counts every
 *   begin, not only failures: past the cap a right code must be refused too, or the answer
 *   would tell a right guess from a wrong one, so the count is owed before the code is
 *   compared; and begins are few (one per sign-in or enrolment a person makes). The price:
 *   a flood of begins from many addresses can shut sign-in and enrolment for the rest of a
 *   minute; signed-in staff are not affected.
 * - **The challenge** is stored under its digest with the options
 *   ({@linkcode beginCeremonyAnswer}), for {@linkcode CEREMONY_TTL_MS}. The answer names it
 *   in its `clientDataJSON` ({@linkcode takeCeremony}); what the ceremony makes (a member, a
 *   session) is committed with the ceremony's deletion, checked, so a replayed answer finds
 *   it spent.
 * - **A refusal** is logged with the ceremony's name, a fixed reason word (the error's code)
 *   and the request id: never a name, a credential id, an address or a code.
 */

import { Buffer } from "node:buffer";
import { z } from "zod";
import type { Context } from "../context.ts";
import { parseJson, readBody } from "../http/body.ts";
import { HttpError } from "../http/errors.ts";
import { json, NO_STORE } from "../http/json.ts";
import { STAFF_PATHS } from "../http/paths.ts";
import { commitCounted, rateLimited } from "../http/rate_limit.ts";
import { digest } from "../oauth/secrets.ts";
import { beginCeremony, type Ceremony, getCeremony } from "../store/staff.ts";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "./webauthn.ts";
import { checkOrigin } from "./session.ts";

export { CEREMONY_TTL_MS } from "./webauthn.ts";

/** A ceremony's largest POST: an answer with an attestation certificate chain fits easily. */
const CEREMONY_MAX_BYTES = 64 * 1024;

type CeremonyName = Ceremony["kind"];

/**
 * A ceremony endpoint: `Origin`, then the rate limits (the cap on all callers together for
 * a `begin`), then `work` with the parsed JSON body. A refusal is logged (see the module
 * documentation) and answered as JSON.
 */
export function ceremonyEndpoint(
  name: CeremonyName,
  step: "begin" | "answer",
  work: (body: unknown, ctx: Context) => Promise<Response>,
) {
  return async (req: Request, ctx: Context): Promise<Response> => {
    try {
      try {
        checkOrigin(req, ctx);
      } catch (err) {
        throw new HttpError(403, "origin", (err as HttpError).message);
      }
      const cap = step === "begin"
        ? { bucket: "staff_all", limit: ctx.config.rateLimits.staffGlobal }
        : undefined;
      return await rateLimited(ctx, "staff", ctx.config.rateLimits.staff, async () => {
        const body = await readBody(req, { maxBytes: CEREMONY_MAX_BYTES });
        return await work(parseJson(body), ctx);
      }, cap);
    } catch (err) {
      if (err instanceof HttpError) {
        ctx.log({
          level: "warn",
          msg: "staff ceremony refused",
          ceremony: name,
          reason: err.code,
          request_id: ctx.requestId,
        });
      }
      throw err;
    }
  };
}

/**
 * Stores `ceremony` under the digest of the options' challenge, in the commit that counts
 * the request, and answers with the options (and `extra`) for the browser.
 */
export async function beginCeremonyAnswer(
  ctx: Context,
  ceremony: Ceremony,
  options: { challenge: string },
  extra: Record<string, unknown> = {},
): Promise<Response> {
  const now = ctx.now();
  const done = await commitCounted(ctx, beginCeremony(digest(options.challenge), ceremony, now));
  // The challenge is 32 random bytes: only a re-sent commit could find it taken.
  if (!done.ok) throw new Error("challenge collision");
  return json({ options, ...extra }, { headers: NO_STORE });
}

/**
 * The stored ceremony an answer names in its `clientDataJSON`, with that challenge; refused
 * when unknown (never begun, spent, or another kind) or past its time.
 */
export async function takeCeremony<K extends CeremonyName>(
  ctx: Context,
  answer: { response: { clientDataJSON: string } },
  kind: K,
): Promise<{ entry: Deno.KvEntry<Extract<Ceremony, { kind: K }>>; challenge: string }> {
  const challenge = _challengeOf(answer.response.clientDataJSON);
  const entry = await getCeremony(ctx.kv, digest(challenge));
  if (!entry.value || entry.value.kind !== kind) {
    throw new HttpError(
      400,
      "unknown_challenge",
      "this passkey answer is spent or unknown: start again",
    );
  }
  if (ctx.now() >= entry.value.expires_at) {
    throw new HttpError(
      400,
      "expired_challenge",
      "this passkey request took too long: start again",
    );
  }
  return { entry: entry as Deno.KvEntry<Extract<Ceremony, { kind: K }>>, challenge };
}

function _challengeOf(clientDataJSON: string): string {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8"));
    if (typeof data?.challenge === "string" && /^[A-Za-z0-9_-]{16,128}$/.test(data.challenge)) {
      return data.challenge;
    }
  } catch { /* refused below */ }
  throw new HttpError(400, "malformed", "the passkey answer holds no challenge");
}

/** The answer of a finished ceremony: the session cookie, and where the browser goes next. */
export function signedInAnswer(setCookie: string): Response {
  return json({ location: STAFF_PATHS.queue }, {
    headers: { ...NO_STORE, "Set-Cookie": setCookie },
  });
}

// The browser's answers (`PublicKeyCredential.toJSON()`), bounded; the library checks the rest.

const _b64 = z.string().max(16_384).regex(/^[A-Za-z0-9_-]*$/);
const _credential = {
  id: _b64.min(1).max(1_400),
  rawId: _b64.min(1).max(1_400),
  type: z.literal("public-key"),
  clientExtensionResults: z.looseObject({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
};

const _RegistrationAnswer = z.object({
  ..._credential,
  response: z.looseObject({
    clientDataJSON: _b64,
    attestationObject: _b64,
    transports: z.array(z.string().max(32)).max(16).optional(),
  }),
});

const _AuthenticationAnswer = z.object({
  ..._credential,
  response: z.looseObject({
    clientDataJSON: _b64,
    authenticatorData: _b64,
    signature: _b64,
    userHandle: _b64.max(128).optional(),
  }),
});

/** An enrolment's answer, checked for shape and size; 400 `malformed` otherwise. */
export function registrationAnswer(body: unknown): RegistrationResponseJSON {
  return _shaped(_RegistrationAnswer, body) as RegistrationResponseJSON;
}

/** A sign-in's answer, checked for shape and size; 400 `malformed` otherwise. */
export function authenticationAnswer(body: unknown): AuthenticationResponseJSON {
  return _shaped(_AuthenticationAnswer, body) as AuthenticationResponseJSON;
}

function _shaped(schema: z.ZodType, body: unknown): unknown {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new HttpError(
      400,
      "malformed",
      "the body is not a passkey answer (PublicKeyCredential.toJSON())",
    );
  }
  return parsed.data;
}
