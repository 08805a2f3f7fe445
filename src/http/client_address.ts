/**
 * @module
 * The address a request counts against for rate limits and idempotency scopes:
 * parsed as an IP address, never taken as text, and grouped the way one subscriber
 * holds addresses. An IPv4 address counts alone; an IPv6 address counts per /64;
 * an IPv6 address that carries an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo)
 * counts as that IPv4 address.
 */

/**
 * The rate-limit address of a request. Behind a trusted proxy it is the last
 * `X-Forwarded-For` entry, the one the proxy itself appended; earlier entries are
 * client-supplied and could be forged, and are never read (one search from the end). An
 * entry that is not an IP address (RFC 7239 `unknown`, an obfuscated `_name`, or one longer
 * than any address) falls back to the socket address.
 */
export function clientAddress(
  req: Request,
  info: Deno.ServeHandlerInfo | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = req.headers.get("x-forwarded-for");
    const last = forwarded?.slice(forwarded.lastIndexOf(",") + 1);
    const bucket = last ? addressBucket(last) : undefined;
    if (bucket) return bucket;
  }
  const addr = info?.remoteAddr;
  const socket = addr && "hostname" in addr ? addressBucket(addr.hostname) : undefined;
  return socket ?? "unknown";
}

/** Longer than any address a proxy writes (`[ffff:…:ffff%zone]:65535`), spaces around it too. */
const _LONGEST_ENTRY = 100;

/**
 * The bucket of one address as a proxy or socket writes it: `203.0.113.7`,
 * `203.0.113.7:40001`, `2001:db8::1`, `[2001:db8::1]:443`, `fe80::1%eth0`. IPv4 gives
 * the dotted address, IPv6 its /64 as `2001:db8:1:2::/64`. `undefined` when the text
 * is not an IP address, or longer than any address (a 58 KB `X-Forwarded-For` entry is
 * not trimmed or matched).
 */
export function addressBucket(text: string): string | undefined {
  if (text.length > _LONGEST_ENTRY) return undefined;
  // A dotted IPv4 address, the common case, is its own bucket: _IPV4 admits no leading
  // zeros, so it is the text that parsing and joining its bytes would give, without the
  // typed array (which costs more than the rest of the request's admission together).
  const trimmed = text.trim();
  if (_IPV4.test(trimmed)) return trimmed;
  const bytes = parseAddress(text);
  if (!bytes) return undefined;
  const v4 = bytes.length === 4 ? bytes : embeddedIpv4(bytes);
  if (v4) return v4.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}

/**
 * Parses an address with an optional port, brackets and zone into its 4 or 16 bytes.
 * Strict: no leading zeros in IPv4 parts (they read as octal elsewhere), at most 4 hex
 * digits per IPv6 group, one `::` at most.
 */
export function parseAddress(text: string): Uint8Array | undefined {
  let s = text.trim();
  if (s.length > 64) return undefined;
  if (s.startsWith('"') && s.endsWith('"') && s.length > 1) s = s.slice(1, -1); // RFC 7239 quoting
  const bracketed = s.match(/^\[([^\]]+)\](?::\d{1,5})?$/);
  if (bracketed) return parseIpv6(bracketed[1]!);
  const v4WithPort = s.match(/^([0-9.]+):\d{1,5}$/);
  if (v4WithPort) return parseIpv4(v4WithPort[1]!);
  return s.includes(":") ? parseIpv6(s) : parseIpv4(s);
}

const _OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const _IPV4 = new RegExp(`^${_OCTET}\\.${_OCTET}\\.${_OCTET}\\.${_OCTET}$`);

function parseIpv4(s: string): Uint8Array | undefined {
  const m = s.match(_IPV4);
  return m ? Uint8Array.from(m.slice(1, 5), Number) : undefined;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const s = text.replace(/%[A-Za-z0-9._~-]+$/, ""); // a zone index names a local interface
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const words = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    const parts = half.split(":");
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1 && part.includes(".")) {
        const v4 = parseIpv4(part);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9A-Fa-f]{1,4}$/.test(part)) {
        out.push(parseInt(part, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // An embedded IPv4 address may only end the address, never precede a `::`.
  if (halves.length === 2 && halves[0]!.includes(".")) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => (bytes[2 * i] = w >> 8, bytes[2 * i + 1] = w & 0xff));
  return bytes;
}

/**
 * The IPv4 address an IPv6 address stands for, where the mapping is fixed: IPv4-mapped
 * `::ffff:0:0/96` (RFC 4291 §2.5.5.2) and its SIIT form `::ffff:0:0:0/96`, NAT64
 * `64:ff9b::/96` (RFC 6052), 6to4 `2002::/16` (RFC 3056: the whole /48 is one IPv4
 * site) and Teredo `2001::/32` (RFC 4380: the client's public address, inverted).
 */
function embeddedIpv4(b: Uint8Array): Uint8Array | undefined {
  const zeros = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12);
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return b.slice(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) {
    return b.slice(12);
  }
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6);
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) {
    return b.slice(12).map((x) => x ^ 0xff);
  }
  return undefined;
}
