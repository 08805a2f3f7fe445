/**
 * @module
 * What one KV row costs as KV counts it: its key as the tuple encoding writes it (denokv
 * `proto/codec.rs`, FoundationDB's tuple layer), and its value as bytes when it is a
 * `Uint8Array`, else V8-serialised, where a string holding any character beyond Latin-1
 * takes two bytes per UTF-16 code unit. A JSON length would undercount such a string by half.
 */

import { serialize } from "node:v8";

const _utf8 = new TextEncoder();

/** Bytes of a key as KV encodes it. */
export function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) {
    if (typeof part === "string" || part instanceof Uint8Array) {
      const bytes = typeof part === "string" ? _utf8.encode(part) : part;
      n += 2 + bytes.length; // a type byte and a terminating zero
      for (const b of bytes) if (b === 0) n++; // a zero byte is escaped as 0x00 0xff
    } else if (typeof part === "number") n += 9;
    else if (typeof part === "boolean") n += 1;
    else if (typeof part !== "bigint") n += 12; // the versionstamp a suffix key gets
    else if (part === 0n) n += 1;
    else {
      // A bigint: a type byte with its length, then its bytes (a length byte past 8).
      const len = Math.ceil((part < 0n ? -part : part).toString(16).length / 2);
      n += len <= 8 ? 1 + len : 2 + len;
    }
  }
  return n;
}

/** Bytes of a value as KV stores it (its limit is 64 KiB of these). */
export function valueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Deno.KvU64) return 8;
  return serialize(value).byteLength;
}

/** Bytes one row adds to the store: its key and its value, as KV counts them. */
export function rowBytes(key: Deno.KvKey, value: unknown): number {
  return keyBytes(key) + valueBytes(value);
}
