/**
 * A software passkey authenticator for in-process tests: it answers the console's
 * WebAuthn options as a browser and a platform authenticator would (`none` attestation,
 * ES256 keys, discoverable credentials with user verification, a signature counter that
 * goes up by one per assertion), producing the JSON of `PublicKeyCredential.toJSON()`. The
 * browser tests use Chromium's own virtual authenticator instead.
 */

import { Buffer } from "node:buffer";

/** What the console's options hold that an authenticator reads (WebAuthn's JSON forms). */
export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}
export interface RequestOptions {
  challenge: string;
  rpId?: string;
}

/** A credential the authenticator holds. */
interface Held {
  id: Uint8Array;
  rpId: string;
  userHandle: Uint8Array;
  keys: CryptoKeyPair;
  counter: number;
}

/**
 * How an answer is made: from which origin, and (to test refusals) with which user handle,
 * or, for a new passkey, under which credential id (base64url) instead of a random one.
 */
export interface AnswerOptions {
  origin?: string;
  userHandle?: string;
  credentialId?: string;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const utf8 = (text: string) => new TextEncoder().encode(text);

export class SoftAuthenticator {
  readonly #held: Held[] = [];
  constructor(readonly origin: string) {}

  /** The credentials held, as ids (base64url). */
  get credentialIds(): string[] {
    return this.#held.map((h) => b64url(h.id));
  }

  /** `navigator.credentials.create()` then `.toJSON()`. */
  async create(options: CreationOptions, answer: AnswerOptions = {}) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
      "sign",
      "verify",
    ]) as CryptoKeyPair;
    const id = answer.credentialId
      ? new Uint8Array(Buffer.from(answer.credentialId, "base64url"))
      : crypto.getRandomValues(new Uint8Array(32));
    const held: Held = {
      id,
      rpId,
      userHandle: new Uint8Array(Buffer.from(options.user.id, "base64url")),
      keys,
      counter: 0,
    };
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
    // COSE_Key of an ES256 key (RFC 9053 §7.1.1): kty EC2, alg ES256, crv P-256, x, y.
    const cose = cbor(
      new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, raw.slice(1, 33)], [
        -3,
        raw.slice(33),
      ]]),
    );
    const attested = concat(new Uint8Array(16), u16(id.length), id, cose);
    // Flags: user present, user verified, attested credential data.
    const authData = concat(await sha256(utf8(rpId)), [0x45], u32(0), attested);
    const clientData = this.#clientData("webauthn.create", options.challenge, answer);
    this.#held.push(held);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        attestationObject: b64url(
          cbor(
            new Map<string, unknown>([["fmt", "none"], ["attStmt", new Map()], [
              "authData",
              authData,
            ]]),
          ),
        ),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** `navigator.credentials.get()` with no credential listed (discoverable), then `.toJSON()`. */
  async get(options: RequestOptions, answer: AnswerOptions = {}) {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const held = this.#held.findLast((h) => h.rpId === rpId);
    if (!held) throw new Error(`no passkey for ${rpId}`);
    held.counter++;
    const authData = concat(await sha256(utf8(rpId)), [0x05], u32(held.counter));
    const clientData = this.#clientData("webauthn.get", options.challenge, answer);
    const signed = concat(authData, await sha256(clientData));
    const raw = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        held.keys.privateKey,
        signed as Uint8Array<ArrayBuffer>,
      ),
    );
    return {
      id: b64url(held.id),
      rawId: b64url(held.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(derSignature(raw)),
        userHandle: answer.userHandle ?? b64url(held.userHandle),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  #clientData(type: string, challenge: string, answer: AnswerOptions): Uint8Array {
    const origin = answer.origin ?? this.origin;
    return utf8(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

function concat(...parts: ArrayLike<number>[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const u16 = (n: number) => [n >> 8, n & 0xff];
const u32 = (n: number) => [n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];

/** The little CBOR (RFC 8949) an attestation needs: integers, text, bytes and maps. */
function cbor(value: unknown): Uint8Array {
  const head = (major: number, n: number): number[] => {
    if (n < 24) return [(major << 5) | n];
    if (n < 0x100) return [(major << 5) | 24, n];
    if (n < 0x10000) return [(major << 5) | 25, ...u16(n)];
    return [(major << 5) | 26, ...u32(n)];
  };
  if (typeof value === "number") {
    return new Uint8Array(value < 0 ? head(1, -1 - value) : head(0, value));
  }
  if (typeof value === "string") {
    const bytes = utf8(value);
    return concat(head(3, bytes.length), bytes);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  if (value instanceof Map) {
    return concat(head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)]));
  }
  throw new Error(`cbor: cannot encode ${typeof value}`);
}

/** An ECDSA signature as WebAuthn sends it: DER (RFC 3279 §2.2.3), not WebCrypto's r ‖ s. */
function derSignature(raw: Uint8Array): Uint8Array {
  const int = (half: Uint8Array) => {
    let i = 0;
    while (i < half.length - 1 && half[i] === 0) i++;
    const body = half[i]! & 0x80 ? concat([0], half.slice(i)) : half.slice(i);
    return concat([0x02, body.length], body);
  };
  const r = int(raw.slice(0, 32));
  const s = int(raw.slice(32));
  return concat([0x30, r.length + s.length], r, s);
}
