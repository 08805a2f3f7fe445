/**
 * @module
 * Owns every Deno KV key and every read and write of the store. Other modules
 * call these functions and never build keys themselves.
 *
 * Keys:
 * - `["clients", client_id]` → {@linkcode ClientRecord}
 * - `["tokens", sha256(token)]` → {@linkcode TokenRecord}, `expireIn` = lifetime (clean-up only)
 * - `["rate", bucket, address, window]` → request count, `expireIn` = two windows
 */

import type { Scope } from "./oauth/scopes.ts";

export interface ClientRecord {
  /** base64url SHA-256 of the client secret; the secret itself is never stored. */
  secret_hash: string;
  scopes: Scope[];
  /** ms since the epoch */
  created_at: number;
}

export interface TokenRecord {
  client_id: string;
  scopes: Scope[];
  audience: string;
  /** ms since the epoch */
  issued_at: number;
  /** ms since the epoch. Decides validity: KV may return a key after its `expireIn`. */
  expires_at: number;
}

export const clientKey = (clientId: string): Deno.KvKey => ["clients", clientId];
export const tokenKey = (tokenHash: string): Deno.KvKey => ["tokens", tokenHash];
export const rateKey = (bucket: string, address: string, window: number): Deno.KvKey => [
  "rate",
  bucket,
  address,
  window,
];

/** Stores a new client; fails if the id already exists (ids are random, so that is a bug). */
export async function createClient(
  kv: Deno.Kv,
  clientId: string,
  record: ClientRecord,
): Promise<void> {
  const key = clientKey(clientId);
  const res = await kv.atomic().check({ key, versionstamp: null }).set(key, record).commit();
  if (!res.ok) throw new Error("client id collision");
}

export async function getClient(kv: Deno.Kv, clientId: string): Promise<ClientRecord | null> {
  return (await kv.get<ClientRecord>(clientKey(clientId))).value;
}

/** Stores an issued token under its digest; `expireIn` lets KV clean it up after it expires. */
export async function storeToken(
  kv: Deno.Kv,
  tokenHash: string,
  record: TokenRecord,
): Promise<void> {
  const expireIn = Math.max(1, record.expires_at - record.issued_at);
  const res = await kv.atomic().set(tokenKey(tokenHash), record, { expireIn }).commit();
  if (!res.ok) throw new Error("token commit failed");
}

export async function getToken(kv: Deno.Kv, tokenHash: string): Promise<TokenRecord | null> {
  return (await kv.get<TokenRecord>(tokenKey(tokenHash))).value;
}

/** Revokes a token by deleting it; every later lookup, on any instance, misses. */
export async function deleteToken(kv: Deno.Kv, tokenHash: string): Promise<void> {
  await kv.delete(tokenKey(tokenHash));
}

/**
 * Counts one request in a fixed window and returns the count including it.
 * Read, then write guarded by the versionstamp: instances sharing the store never
 * lose an increment, and `expireIn` removes the window afterwards (`sum()` takes no
 * `expireIn`). After repeated contention the request counts as over any limit.
 */
export async function countRequest(
  kv: Deno.Kv,
  bucket: string,
  address: string,
  window: number,
  ttlMs: number,
): Promise<number> {
  const key = rateKey(bucket, address, window);
  for (let attempt = 0; attempt < 8; attempt++) {
    const entry = await kv.get<number>(key);
    const count = (entry.value ?? 0) + 1;
    const res = await kv.atomic().check(entry).set(key, count, { expireIn: ttlMs }).commit();
    if (res.ok) return count;
  }
  return Number.POSITIVE_INFINITY;
}

/** A cheap read that proves the store answers, for `GET /healthz`. */
export async function pingStore(kv: Deno.Kv): Promise<void> {
  await kv.get(["health"]);
}
