/**
 * @module
 * The WebAuthn relying party of the staff console, through `@simplewebauthn/server`: the
 * options a ceremony begins with and the check of the browser's answer. The relying party
 * is `BASE_URL`: its host name is the RP ID, and its origin the only origin an answer may
 * come from (so a console reached at another host name cannot sign in: tests open
 * `http://localhost:PORT`, not `127.0.0.1`).
 *
 * The library is imported on the first ceremony, not with the service: it is 25 npm
 * packages and 80–150 ms to load, which a start-up that serves no staff would pay for
 * nothing (docs/performance.md). Every check it makes that fails becomes the one fixed
 * refusal `not_verified`; its message (which may quote what the browser sent) is not kept.
 */

import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { HttpError } from "../http/errors.ts";
import type { StaffPasskey } from "../store/staff.ts";
import { MINUTE_MS } from "../time.ts";

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

/** How long a ceremony may take, from its options to its answer (the challenge's life). */
export const CEREMONY_TTL_MS = 5 * MINUTE_MS;

/** The name an authenticator shows beside the member's name. */
const RP_NAME = "DC Field Services staff";

/** What a verified enrolment yields: the new passkey, less its owner and date. */
type NewPasskey = Pick<
  StaffPasskey,
  "credential_id" | "public_key" | "counter" | "transports"
>;

function _lib() {
  return import("@simplewebauthn/server");
}

function _rp(baseUrl: string): { rpID: string; origin: string } {
  return { rpID: new URL(baseUrl).hostname, origin: baseUrl };
}

/**
 * The options of an enrolment: a discoverable credential (so sign-in needs no name) with
 * user verification (a PIN or biometric), and the member id as the user handle.
 */
export async function enrolmentOptions(
  baseUrl: string,
  member: { member_id: string; name: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await _lib();
  return await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: _rp(baseUrl).rpID,
    userName: member.name,
    userDisplayName: member.name,
    userID: new TextEncoder().encode(member.member_id),
    attestationType: "none",
    timeout: CEREMONY_TTL_MS,
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
}

/** Checks an enrolment's answer against its challenge; the new passkey, or `not_verified`. */
export async function verifyEnrolment(
  baseUrl: string,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<NewPasskey> {
  const { verifyRegistrationResponse } = await _lib();
  const { rpID, origin } = _rp(baseUrl);
  try {
    const v = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
    if (v.verified) {
      const { credential } = v.registrationInfo;
      return {
        credential_id: credential.id,
        public_key: credential.publicKey,
        counter: credential.counter,
        transports: [...(credential.transports ?? [])],
      };
    }
  } catch { /* the library's message may quote the answer: refused below, by a fixed word */ }
  throw notVerified();
}

/** The options of a sign-in: no credential listed, the browser offers the member's passkeys. */
export async function signInOptions(
  baseUrl: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await _lib();
  return await generateAuthenticationOptions({
    rpID: _rp(baseUrl).rpID,
    allowCredentials: [],
    userVerification: "required",
    timeout: CEREMONY_TTL_MS,
  });
}

/**
 * Checks a sign-in's answer against its challenge and the stored passkey, its signature
 * counter included (a counter that did not go up is a cloned authenticator); the new
 * counter, or `not_verified`.
 */
export async function verifySignIn(
  baseUrl: string,
  response: AuthenticationResponseJSON,
  challenge: string,
  passkey: StaffPasskey,
): Promise<number> {
  const { verifyAuthenticationResponse } = await _lib();
  const { rpID, origin } = _rp(baseUrl);
  try {
    const v = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: passkey.counter,
      },
    });
    if (v.verified) return v.authenticationInfo.newCounter;
  } catch { /* as in verifyEnrolment */ }
  throw notVerified();
}

function notVerified(): HttpError {
  return new HttpError(400, "not_verified", "the passkey's answer did not verify; try again");
}
