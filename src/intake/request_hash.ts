/**
 * @module
 * The hash that tells whether two submissions are the same request, for the idempotency
 * key's replay (or 409) and the key-less same-request replay. Differences a person would
 * not call a change are left out before hashing: key order, whitespace at the ends of a
 * text and runs of it inside, Unicode composition (NFC), and the letter case of `email`,
 * `country` and `currency` (stored upper case). (`null` for an optional field, `"2"` for a
 * number and a country's name are read before this, in lenient.ts.) docs/api.md
 * ("Idempotent submissions") says so.
 */

import { createHash } from "node:crypto";

/** Top-level fields whose letter case carries no meaning. */
const CASELESS = new Set(["email", "country", "currency"]);

/** SHA-256 (base64url) of the request as compared: see the module documentation. */
export function requestHash(request: Record<string, unknown>): string {
  const compared: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request)) {
    const v = _normalised(value);
    compared[name] = CASELESS.has(name) && typeof v === "string" ? v.toLowerCase() : v;
  }
  return createHash("sha256").update(_canonicalJson(compared)).digest("base64url");
}

/** `value` with every text in it NFC, trimmed, and each run of whitespace one space. */
function _normalised(value: unknown): unknown {
  if (typeof value === "string") return value.normalize("NFC").trim().replace(/\s+/g, " ");
  if (Array.isArray(value)) return value.map(_normalised);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, _normalised(v)]));
  }
  return value;
}

/** JSON with object keys sorted at every level: equal documents give equal text. */
function _canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(_canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${_canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
