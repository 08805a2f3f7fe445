/**
 * @module
 * The three read scopes (SPEC §5.3) and scope-string parsing. No write scope exists.
 */

import { HttpError } from "../http/errors.ts";

export const SCOPES = ["services:read", "locations:read", "coverage:read"] as const;
export type Scope = typeof SCOPES[number];

const _known: ReadonlySet<string> = new Set(SCOPES);

/**
 * Parses a space-separated scope string (RFC 6749 §3.3) into scopes in canonical
 * order. An absent or blank string gives `undefined` so the caller picks a default;
 * an unknown scope is `invalid_scope`.
 */
export function parseScope(raw: string | undefined): Scope[] | undefined {
  if (raw === undefined) return undefined;
  const names = raw.split(" ").filter((s) => s !== "");
  if (names.length === 0) return undefined;
  const unknown = names.filter((n) => !_known.has(n));
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      "invalid_scope",
      `unknown scope "${unknown[0]!.slice(0, 64)}"; supported: ${SCOPES.join(" ")}`,
    );
  }
  return SCOPES.filter((s) => names.includes(s));
}

/** Formats scopes as the space-separated string of RFC 6749 §3.3. */
export function formatScope(scopes: readonly Scope[]): string {
  return scopes.join(" ");
}
