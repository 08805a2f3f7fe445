/**
 * @module
 * Registered clients and the access tokens issued to them, with the revocation marker
 * that both bump.
 *
 * Keys:
 * - `["clients", client_id]` → {@linkcode ClientRecord}
 * - `["tokens", sha256(token)]` → {@linkcode TokenRecord}, `expireIn` = lifetime (clean-up only)
 * - `["revocations"]` → a count, bumped in the same commit as every token deleted and every
 *   client disabled: its versionstamp tells a cache that a record may be gone (cache.ts)
 */

import type { Atomic, Kv } from "./store.ts";
import type { Scope } from "../oauth/scopes.ts";
import { commitWrite, type Write } from "./commits.ts";
import { clientKey, revocationKey, tokenKey } from "./keys.ts";

export interface ClientRecord {
  /** base64url SHA-256 of the client secret; the secret itself is never stored. */
  secret_hash: string;
  scopes: Scope[];
  /** ms since the epoch */
  created_at: number;
  /**
   * ms since the epoch: an unused registration lapses then. Token issuance extends it,
   * at most once a day (a write per issuance would cost a commit each).
   */
  expires_at: number;
  /** ms since the epoch: set by `review disable-client`; the client can no longer authenticate. */
  disabled_at?: number;
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

/**
 * The write of a new client: checked to be new (ids are random, so only a re-sent commit
 * finds it taken); its proof is the record holding this secret's digest.
 */
export function newClient(clientId: string, record: ClientRecord): Write & { key: Deno.KvKey } {
  const key = clientKey(clientId);
  return {
    key,
    write(op) {
      const expireIn = _ttl(record.expires_at, record.created_at);
      op.check({ key, versionstamp: null }).set(key, record, { expireIn });
    },
    proof: {
      keys: [key],
      landed: ([e]) => (e?.value as ClientRecord | null)?.secret_hash === record.secret_hash,
    },
  };
}

/** Stores a new client alone (the service commits it with its rate counts: registration.ts). */
export async function createClient(
  kv: Kv,
  clientId: string,
  record: ClientRecord,
): Promise<void> {
  if (!(await commitWrite(kv, newClient(clientId, record))).ok) {
    throw new Error("client id collision");
  }
}

export function getClient(kv: Kv, clientId: string): Promise<Deno.KvEntryMaybe<ClientRecord>> {
  return kv.get<ClientRecord>(clientKey(clientId));
}

/**
 * The write of an issued token under its digest, checked against the client record as
 * authentication read it: if the client was disabled (or changed) meanwhile, nothing is
 * written, and the caller reads the client again. `extended`, when given, replaces the client
 * record in the same commit. A re-sent commit writes the same record again, which changes
 * nothing, or fails its client check when the first send extended the client: the proof is
 * the token key holding this record. (Checking the key to be new costs the store a read per
 * token: 10 % more CPU a token, measured with bench:ab.) One key per token: a second one (an index by
 * client) nearly halved issuance under group commit, and disabling a client needs none: the
 * Bearer check reads the token's client (see disableClient). `expireIn` lets KV clean up
 * once a token lapses.
 */
export function newToken(
  tokenHash: string,
  record: TokenRecord,
  client: Deno.KvEntry<ClientRecord>,
  extended?: ClientRecord,
): Write {
  const key = tokenKey(tokenHash);
  return {
    write(op) {
      const expireIn = _ttl(record.expires_at, record.issued_at);
      op.check(client).set(key, record, { expireIn });
      if (extended) {
        op.set(client.key, extended, { expireIn: _ttl(extended.expires_at, record.issued_at) });
      }
    },
    proof: { keys: [key, client.key], landed: ([e]) => _sameToken(e?.value, record) },
  };
}

function _sameToken(value: unknown, record: TokenRecord): boolean {
  const found = value as TokenRecord | null;
  return !!found && found.client_id === record.client_id && found.issued_at === record.issued_at &&
    found.expires_at === record.expires_at;
}

/** Stores a token alone (the service commits it with its rate counts: token.ts). */
export async function storeToken(
  kv: Kv,
  tokenHash: string,
  record: TokenRecord,
  client: Deno.KvEntry<ClientRecord>,
  extended?: ClientRecord,
): Promise<boolean> {
  return (await commitWrite(kv, newToken(tokenHash, record, client, extended))).ok;
}

function _ttl(expiresAt: number, now: number): number {
  return Math.max(1, expiresAt - now);
}

export async function getToken(kv: Kv, tokenHash: string): Promise<TokenRecord | null> {
  return (await kv.get<TokenRecord>(tokenKey(tokenHash))).value;
}

/**
 * The revocation of a token: deleted, with the revocation marker bumped in the same commit
 * so that no instance serves it from a cache afterwards; every later lookup misses. Checked
 * against the revoking client's record as authentication read it: the caller reads it again
 * when the client changed meanwhile (disabled, or extended). A re-sent commit deletes
 * nothing more and bumps the marker again, which only moves its versionstamp. It has no
 * proof: the token gone may be another request's revocation, and a request counted on that
 * proof would be admitted uncounted; a commit that comes back `ok: false` is committed again.
 */
export function tokenRevocation(tokenHash: string, client: Deno.KvEntry<ClientRecord>): Write {
  const key = tokenKey(tokenHash);
  return {
    write: (op) => void op.check(client).delete(key).sum(revocationKey(), 1n),
    proof: { keys: [], landed: () => false },
  };
}

/**
 * Disables a client: marks its record, checked (a token issued meanwhile either commits
 * first or fails its check against the record and is refused), and bumps the revocation
 * marker in the same commit. That is all it takes: a Bearer check reads a token's client
 * under the same exact rule as the token (`exactToken` in cache.ts), so every token of the
 * client is refused from this commit on, on every instance, however many there are. They
 * lapse within the token lifetime; nothing has to find them, so no index of a client's
 * tokens is needed. `extra` joins that commit (a staff action's audit entry), and is not
 * written when the client was disabled already. Returns the record as it now is and
 * whether it was disabled already; null when there is no such client.
 */
export async function disableClient(
  kv: Kv,
  clientId: string,
  now: number,
  extra?: (op: Atomic) => void,
): Promise<{ record: ClientRecord; already: boolean } | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await getClient(kv, clientId);
    if (!entry.value) return null;
    if (entry.value.disabled_at !== undefined) {
      // Our own commit, its answer lost and the re-send refused, or someone else's earlier.
      const ours = attempt > 0 && entry.value.disabled_at === now;
      return { record: entry.value, already: !ours };
    }
    const next = { ...entry.value, disabled_at: now };
    const op = kv.atomic().check(entry)
      .set(entry.key, next, { expireIn: _ttl(next.expires_at, now) })
      .sum(revocationKey(), 1n);
    extra?.(op);
    const res = await op.commit();
    if (res.ok) return { record: next, already: false };
  }
  throw new Error(`${clientId} kept changing while it was being disabled`);
}
