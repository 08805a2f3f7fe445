/**
 * @module
 * Request ids: a kind prefix, then a ULID-style body (48-bit millisecond time and
 * 80 random bits in Crockford base32), so ids sort by creation time and cannot be guessed.
 */

const _CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** `lead_01JDBX…` or `quote_01JDBX…`: 26 characters after the prefix. */
export function newRequestId(kind: string, now: number): string {
  let time = "";
  let t = Math.floor(now);
  for (let i = 0; i < 10; i++) {
    time = _CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = crypto.getRandomValues(new Uint8Array(16));
  let rand = "";
  for (const b of random) rand += _CROCKFORD[b % 32];
  return `${kind}_${time}${rand}`;
}

/** The creation time (ms) an id from {@linkcode newRequestId} carries in its first 10 characters. */
export function requestIdTime(id: string): number {
  let t = 0;
  for (const c of id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11)) {
    t = t * 32 + _CROCKFORD.indexOf(c);
  }
  return t;
}

/** True for a string shaped like an id from {@linkcode newRequestId}. */
export function isRequestId(value: string): boolean {
  return /^(lead|quote)_[0-9A-HJKMNP-TV-Z]{26}$/.test(value);
}

/** True for a client id as registration issues them (`agt_` and base64url). */
export function isClientId(value: string): boolean {
  return /^agt_[A-Za-z0-9_-]{1,124}$/.test(value);
}
