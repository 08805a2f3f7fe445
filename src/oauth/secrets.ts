/**
 * @module
 * Random credentials and their digests. Client secrets and access tokens are
 * 32 random bytes in base64url with a short type prefix (for secret scanners);
 * only their SHA-256 digests are stored.
 */

import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";

/** Prefixes make leaked credentials recognisable; the alphabet stays `[A-Za-z0-9_-]`. */
export const CLIENT_ID_PREFIX = "agt_";
export const CLIENT_SECRET_PREFIX = "dcfs_cs_";
export const ACCESS_TOKEN_PREFIX = "dcfs_at_";

/** `prefix` + base64url of `bytes` random bytes. */
export function randomCredential(prefix: string, bytes = 32): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return prefix + _base64url(raw);
}

/** base64url SHA-256 of a credential. Synchronous `node:crypto` is far cheaper than subtle here. */
export function digest(credential: string): string {
  return createHash("sha256").update(credential).digest("base64url");
}

/** Compares a presented credential with a stored digest in constant time. */
export function matchesDigest(credential: string, storedDigest: string): boolean {
  const a = createHash("sha256").update(credential).digest();
  const b = Buffer.from(storedDigest, "base64url");
  return a.length === b.length && timingSafeEqual(a, b);
}

function _base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}
