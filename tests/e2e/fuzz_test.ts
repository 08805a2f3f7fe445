/**
 * A seeded fuzz loop over every POST endpoint and every path of the route table:
 * random and mutated bodies, headers and content types, in-process for speed plus a
 * slice against the real process (`deno task start`, a temporary KV file) over HTTP
 * and over raw sockets. No request may get a 5xx, throw, or
 * take longer than 5 s. A failure names the seed and the request; `FUZZ_SEED` replays
 * another seed.
 */

import assert from "node:assert/strict";
import { buildRoutes } from "../../src/routes.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import {
  basic,
  catalog,
  type Client,
  createApp,
  issueToken,
  overHttp,
  registerClient,
  type Requester,
  type TestApp,
} from "../_helpers.ts";
import { mulberry32, RATE_LIMITS_OFF as NO_LIMITS } from "../_fixtures.ts";
import { type Service, startServiceOnTempKv } from "../_service.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") || 0x5eed_2026);
const REQUEST_TIMEOUT_MS = 5_000;
const POST_PATHS = [
  "/agent/identity",
  "/oauth2/token",
  "/oauth2/revoke",
  "/api/v1/intake",
  "/api/v1/quotes",
  "/api/v1/mcp",
] as const;
type PostPath = typeof POST_PATHS[number];
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND", "fuzz"];
const utf8 = new TextEncoder();
type Bytes = Uint8Array<ArrayBuffer>;
/** Percent-encodes any string, lone surrogates included (as U+FFFD). */
const enc = (s: string) => encodeURIComponent(s.toWellFormed());

// ---- a small seeded PRNG ----

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  bytes(n: number): Bytes {
    return Uint8Array.from({ length: n }, () => this.int(256));
  }
  /** A string from a mix of ASCII, Latin-1, BMP and astral code points (lone surrogates too). */
  text(max: number): string {
    const n = this.int(max + 1);
    let s = "";
    for (let i = 0; i < n; i++) {
      const kind = this.int(10);
      const cp = kind < 6
        ? 0x20 + this.int(0x5f)
        : kind < 7
        ? this.int(0x20)
        : kind < 8
        ? 0xa0 + this.int(0x60)
        : kind < 9
        ? this.int(0xffff)
        : 0x10000 + this.int(0x10ffff - 0x10000);
      s += cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
    }
    return s;
  }
  /** Characters a header value may hold: Latin-1 without NUL, CR, LF. */
  headerText(max: number): string {
    return Array.from({ length: this.int(max + 1) }, () => {
      const c = this.chance(0.9) ? 0x20 + this.int(0x5f) : 1 + this.int(0xfe);
      return c === 10 || c === 13 ? " " : String.fromCharCode(c);
    }).join("");
  }
  json(depth = 3): unknown {
    const k = this.int(depth > 0 ? 9 : 6);
    switch (k) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -0, 1, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 1e21, 42]);
      case 3:
        return this.text(20);
      case 4:
        return this.pick(["", " ", "a@b.co", "Zurich", "remote-hands", "__proto__", "null"]);
      case 5:
        return this.int(1000) - 500;
      case 6:
      case 7: {
        const o: Record<string, unknown> = {};
        for (let i = this.int(5); i > 0; i--) {
          const key = this.chance(0.3)
            ? this.pick(["__proto__", "constructor", "toString", "email", "id", ""])
            : this.text(8);
          Object.defineProperty(o, key, {
            value: this.json(depth - 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return o;
      }
      default:
        return Array.from({ length: this.int(4) }, () => this.json(depth - 1));
    }
  }
}

// ---- requests ----

interface Spec {
  method: string;
  path: string;
  headers: [string, string][];
  body?: Bytes;
  /** Send the body as a stream without Content-Length, in chunks of at most this many bytes. */
  streamChunk?: number;
}

function describe(spec: Spec): string {
  const body = spec.body ? new TextDecoder().decode(spec.body) : undefined;
  return JSON.stringify({
    method: spec.method,
    path: spec.path.length > 300 ? `${spec.path.slice(0, 300)}…(${spec.path.length})` : spec.path,
    headers: spec.headers.map(([k, v]) => [k, v.length > 200 ? `${v.slice(0, 200)}…` : v]),
    streamChunk: spec.streamChunk,
    body: body && body.length > 600 ? `${body.slice(0, 600)}…(${body.length} chars)` : body,
  });
}

interface Fixtures {
  baseUrl: string;
  clients: Client[];
  tokens: string[];
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;;;",
  "application/json, text/html",
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=ISO-8859-1",
  "text/plain",
  "multipart/form-data; boundary=xyz",
  "application/merge-patch+json",
  "",
  ";",
];

const MCP_METHODS = [
  "initialize",
  "notifications/initialized",
  "tools/list",
  "tools/call",
  "tools/call",
  "tools/call",
  "ping",
  "resources/list",
  "prompts/list",
  "logging/setLevel",
  "completion/complete",
  "rpc.discover",
  "",
];
const HUGE_IDS = [
  "123456789012345678901234567890",
  "1e999",
  "-1e999",
  "9007199254740993",
  "0.0000000000000000000001",
  JSON.stringify("x".repeat(20_000)),
  "{}",
  "[]",
  "true",
  "null",
];

const validLead = () => ({ email: "ops@example.com", description: "Two racks in Frankfurt" });
const validQuote = () => ({
  company: "Example GmbH",
  contact_name: "Alex Example",
  email: "alex@example.com",
  city: "Zurich",
  service_type: "rack-and-stack",
  description: "Install 4 servers",
  engineer_count: 2,
  estimated_hours: 3,
});

function toolArgs(rng: Rng, name: string): unknown {
  if (rng.chance(0.25)) return rng.json(3);
  const base: Record<string, unknown> = name === "submit_lead"
    ? validLead()
    : name === "request_quote"
    ? validQuote()
    : name === "check_coverage"
    ? { city: rng.pick(["Zurich", "Köln", "frankfurt", rng.text(20), ""]) }
    : {};
  for (let i = rng.int(3); i > 0; i--) {
    const key = rng.pick([...Object.keys(base), "country", "phone", "extra", rng.text(6)]);
    if (key === undefined) continue;
    if (rng.chance(0.3)) delete base[key];
    else base[key] = rng.json(2);
  }
  return base;
}

/** Which protocol revision a request speaks: a coherent era, or a random mix. */
type Era = "legacy" | "modern" | "mixed";

/** One JSON-RPC message as text: valid, wrong types, or with odd ids. */
function mcpMessage(rng: Rng, era: Era): string {
  const method = rng.pick(MCP_METHODS);
  const msg: Record<string, unknown> = { jsonrpc: rng.chance(0.95) ? "2.0" : rng.json(1) };
  if (!method.startsWith("notifications/") || rng.chance(0.1)) msg.id = rng.int(1000);
  msg.method = rng.chance(0.95) ? method : rng.json(1);
  const modern = era === "modern" || (era === "mixed" && rng.chance(0.5));
  let params: unknown;
  if (method === "initialize") {
    params = {
      protocolVersion: rng.pick(["2025-11-25", "2026-07-28", "2025-06-18", "1999-01-01", 7]),
      capabilities: rng.chance(0.9) ? {} : rng.json(2),
      clientInfo: { name: "fuzz", version: "1" },
    };
  } else if (method === "tools/call") {
    const name = rng.pick([
      "check_coverage",
      "list_services",
      "submit_lead",
      "request_quote",
      "create_billable_order",
      rng.text(10),
    ]);
    params = { name, arguments: toolArgs(rng, name) };
  } else if (rng.chance(0.5)) {
    params = rng.chance(0.7) ? {} : rng.json(2);
  }
  if (modern && params === undefined) params = {};
  if (modern && params !== null && typeof params === "object" && !Array.isArray(params)) {
    (params as Record<string, unknown>)._meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": rng.chance(0.9) ? {} : rng.json(1),
    };
  }
  if (params !== undefined) msg.params = rng.chance(0.95) ? params : rng.json(2);
  let text = JSON.stringify(msg);
  if (method === "tools/call" && rng.chance(0.05)) {
    text = text.replace('"arguments":{', `"arguments":{${deepMember(rng)},`);
  }
  if (rng.chance(0.1) && "id" in msg) {
    text = text.replace(/"id":\d+/, `"id":${rng.pick(HUGE_IDS)}`);
  }
  return text;
}

function mcpBody(rng: Rng, era: Era): string {
  const r = rng.int(10);
  if (r < 7) return mcpMessage(rng, era);
  if (r < 8) {
    return `[${Array.from({ length: rng.int(6) }, () => mcpMessage(rng, era)).join(",")}]`;
  }
  if (r < 9) {
    const s = mcpMessage(rng, era);
    return s.slice(0, rng.int(s.length));
  }
  return JSON.stringify(rng.json(3));
}

/**
 * A deeply nested member, sometimes after a member whose name is outside Latin-1 (which
 * takes V8's JSON.stringify off its iterative fast path).
 */
function deepMember(rng: Rng): string {
  return `${rng.chance(0.5) ? '"備考":[1],' : ""}"nested":${deep(rng)}`;
}

function deep(rng: Rng): string {
  const n = 1 + rng.int(30_000);
  return rng.chance(0.5) ? "[".repeat(n) + "]".repeat(n) : '{"a":'.repeat(n) + "1" + "}".repeat(n);
}

/** A body meant for one endpoint: well-formed and then sometimes broken. */
function bodyFor(rng: Rng, path: PostPath, fx: Fixtures, era: Era): string {
  const client = rng.pick(fx.clients);
  switch (path) {
    case "/agent/identity": {
      const o: Record<string, unknown> = { type: rng.pick(["anonymous", "anonymous", "verified"]) };
      if (rng.chance(0.5)) {
        o.scope = rng.pick(["services:read", "coverage:read locations:read", "admin", ""]);
      }
      if (rng.chance(0.3)) o[rng.text(8)] = rng.json(2);
      return rng.chance(0.9) ? JSON.stringify(o) : JSON.stringify(rng.json(3));
    }
    case "/oauth2/token": {
      const parts = [`grant_type=${rng.pick(["client_credentials", "password", ""])}`];
      if (rng.chance(0.4)) parts.push(`scope=${enc(rng.pick(["services:read", "x"]))}`);
      if (rng.chance(0.3)) parts.push(`resource=${enc(fx.baseUrl)}`);
      if (rng.chance(0.1)) parts.push(`resource=${enc(rng.text(10))}`);
      if (rng.chance(0.1)) parts.push(`client_id=${client.client_id}`);
      if (rng.chance(0.05)) parts.push(`client_secret=${client.client_secret}`);
      return parts.join("&");
    }
    case "/oauth2/revoke": {
      const token = rng.chance(0.5) ? rng.pick(fx.tokens) : rng.text(30);
      const parts = [`token=${enc(token)}`];
      if (rng.chance(0.5)) parts.push(`token_type_hint=${rng.pick(["access_token", "x"])}`);
      return parts.join("&");
    }
    case "/api/v1/intake":
    case "/api/v1/quotes": {
      const o: Record<string, unknown> = path === "/api/v1/intake" ? validLead() : validQuote();
      for (let i = rng.int(4); i > 0; i--) {
        const key = rng.pick([...Object.keys(o), "phone", "agent_context_optional", rng.text(6)]);
        if (rng.chance(0.3)) delete o[key];
        else o[key] = rng.json(3);
      }
      const text = JSON.stringify(o);
      // Deeply nested members are well-formed JSON far below the size limit.
      return rng.chance(0.15) ? text.replace(/}$/, `,${deepMember(rng)}}`) : text;
    }
    case "/api/v1/mcp":
      return mcpBody(rng, era);
  }
}

/** Byte-level mutations: flips, cuts, splices, repeats, junk. */
function mutate(rng: Rng, bytes: Bytes): Bytes {
  let b = bytes;
  for (let i = 1 + rng.int(3); i > 0; i--) {
    const at = rng.int(b.length + 1);
    switch (rng.int(7)) {
      case 0: // flip a bit
        if (b.length) {
          b = b.slice();
          b[at % b.length]! ^= 1 << rng.int(8);
        }
        break;
      case 1: // cut
        b = b.slice(0, at);
        break;
      case 2: // delete a run
        b = new Uint8Array([...b.slice(0, at), ...b.slice(at + rng.int(8))]);
        break;
      case 3: // insert junk bytes
        b = new Uint8Array([...b.slice(0, at), ...rng.bytes(1 + rng.int(8)), ...b.slice(at)]);
        break;
      case 4: // insert a special token
        b = new Uint8Array([
          ...b.slice(0, at),
          ...utf8.encode(
            rng.pick(['"', "\\", "%", "%zz", "&", "=", "\u0000", "\uFFFF", "😀", "{"]),
          ),
          ...b.slice(at),
        ]);
        break;
      case 5: // repeat the body
        b = new Uint8Array([...b, ...b]);
        break;
      default: // replace with raw bytes
        b = rng.bytes(rng.int(64));
    }
  }
  return b;
}

function authHeader(rng: Rng, fx: Fixtures): string {
  const c = rng.pick(fx.clients);
  switch (rng.int(9)) {
    case 0:
      return basic(c.client_id, c.client_secret);
    case 1:
      return basic(c.client_id, c.client_secret + "x");
    case 2:
      return `Basic ${btoa(rng.headerText(40))}`;
    case 3:
      return `Bearer ${rng.pick(fx.tokens)}`;
    case 4:
      return `Bearer ${rng.headerText(40)}`;
    case 5:
      return rng.headerText(60);
    case 6:
      return `Basic ${"A".repeat(rng.int(9000))}`;
    case 7:
      return `basic    ${btoa(`${c.client_id}:${c.client_secret}`)}   `;
    default:
      return "";
  }
}

/** Random headers, each present only sometimes; never more than one of a name. */
function headersFor(rng: Rng, fx: Fixtures, path: string, ctype: string | undefined) {
  const h: [string, string][] = [];
  if (ctype !== undefined) h.push(["Content-Type", ctype]);
  if (rng.chance(0.5)) h.push(["Authorization", authHeader(rng, fx)]);
  if (rng.chance(0.15)) {
    h.push(["Origin", rng.pick([fx.baseUrl, "https://evil.example", "null", rng.headerText(20)])]);
  }
  if (rng.chance(0.2)) {
    h.push([
      "Idempotency-Key",
      rng.pick([
        `fuzz-${rng.int(50)}`,
        `"quoted-${rng.int(50)}"`,
        "",
        "x".repeat(300),
        rng.headerText(20),
      ]),
    ]);
  }
  if (rng.chance(0.2)) {
    h.push([
      "X-Forwarded-For",
      rng.pick([
        "203.0.113.7",
        "2001:db8::1, 198.51.100.2",
        "::ffff:192.0.2.9",
        "[2001:db8:1:2:3:4:5:6]",
        ",,,",
        "x".repeat(500),
        rng.headerText(40),
      ]),
    ]);
  }
  if (rng.chance(0.1)) h.push(["X-Request-Id", rng.headerText(140)]);
  if (path === "/api/v1/mcp" || rng.chance(0.05)) {
    if (rng.chance(0.95)) {
      h.push([
        "Accept",
        rng.chance(0.8) ? "application/json, text/event-stream" : rng.pick([
          "text/event-stream",
          "application/json",
          "*/*",
          rng.headerText(20),
        ]),
      ]);
    }
    if (rng.chance(0.5)) {
      h.push([
        "MCP-Protocol-Version",
        rng.pick(["2025-11-25", "2026-07-28", "2025-06-18", rng.headerText(12)]),
      ]);
    }
    if (rng.chance(0.1)) h.push(["Mcp-Session-Id", rng.headerText(40)]);
  }
  return h;
}

/** The Mcp-Method and Mcp-Name headers a 2026-07-28 client derives from its message. */
function modernHeaders(text: string): [string, string][] {
  let msg: { method?: unknown; params?: { name?: unknown } };
  try {
    msg = JSON.parse(text);
  } catch {
    return [];
  }
  const out: [string, string][] = [];
  if (typeof msg?.method === "string") out.push(["Mcp-Method", msg.method]);
  const name = msg?.params?.name;
  if (typeof name === "string" && /^[\x21-\x7e]*$/.test(name)) out.push(["Mcp-Name", name]);
  return out;
}

/** A request to a POST endpoint, with a fitting or a random body and content type. */
function postSpec(rng: Rng, fx: Fixtures): Spec {
  const path = rng.pick(POST_PATHS);
  const era: Era = rng.chance(0.6) ? "legacy" : rng.chance(0.75) ? "modern" : "mixed";
  const text = bodyFor(rng, path, fx, era);
  let body = utf8.encode(text);
  if (rng.chance(0.35)) body = mutate(rng, body);
  if (rng.chance(0.03)) body = rng.bytes(rng.int(70_000));
  const fitting = path === "/oauth2/token" || path === "/oauth2/revoke"
    ? "application/x-www-form-urlencoded"
    : "application/json";
  const ctype = rng.chance(0.8) ? fitting : rng.chance(0.8) ? rng.pick(CONTENT_TYPES) : undefined;
  const spec: Spec = { method: "POST", path, headers: headersFor(rng, fx, path, ctype), body };
  if (path === "/api/v1/mcp" && era !== "mixed") {
    // A coherent client names its revision in the header as well as in the body.
    spec.headers = spec.headers.filter(([k]) => k !== "MCP-Protocol-Version");
    spec.headers.push(["MCP-Protocol-Version", era === "modern" ? "2026-07-28" : "2025-11-25"]);
    if (era === "modern" && rng.chance(0.9)) spec.headers.push(...modernHeaders(text));
  }
  if (rng.chance(0.2)) spec.streamChunk = 1 + rng.int(2048);
  if (rng.chance(0.08)) {
    // A Content-Length that lies or does not parse (in-process only; a real client fixes it).
    spec.headers.push([
      "Content-Length",
      rng.pick(["0", "-1", "abc", "1e3", " 5 ", "99999999999999999999", String(body.length + 1)]),
    ]);
  }
  return spec;
}

/** A concrete path for a route pattern, with its parameters filled in. */
function concretePath(rng: Rng, pathname: string): string {
  return pathname.replace(
    /:(\w+)/g,
    () =>
      rng.pick([
        "app.js",
        "styles.css",
        "x",
        enc(rng.text(20)),
        "..%2F..%2Fetc%2Fpasswd",
        "a".repeat(300),
        "jane@example.org",
      ]),
  );
}

function queryFor(rng: Rng): string {
  if (!rng.chance(0.4)) return "";
  const q = new URLSearchParams();
  for (let i = 1 + rng.int(3); i > 0; i--) {
    q.append(
      rng.pick(["city", "country", "access_token", "x", rng.text(4)]),
      rng.pick(["Zurich", "DE", "zz", "", rng.text(120)]),
    );
  }
  return `?${q}`;
}

const ODD_PATHS = [
  "/api/v1/mcp/",
  "//api/v1/services",
  "/api/v1/agent/../services",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/api/v1/services%00",
  "/.well-known/",
  "/assets/",
  "/api/v1/" + "x/".repeat(500),
  "/ümlaut/😀",
  "/api/v1/intake;jsessionid=1",
];

function anyPathSpec(rng: Rng, fx: Fixtures, patterns: string[]): Spec {
  const method = rng.pick(METHODS);
  const path = rng.chance(0.85)
    ? concretePath(rng, rng.pick(patterns)) + queryFor(rng)
    : rng.pick(ODD_PATHS) + queryFor(rng);
  const withBody = method !== "GET" && method !== "HEAD" && rng.chance(0.5);
  const ctype = withBody ? rng.pick(CONTENT_TYPES) : undefined;
  const spec: Spec = { method, path, headers: headersFor(rng, fx, path, ctype) };
  if (withBody) spec.body = utf8.encode(JSON.stringify(rng.json(3)));
  if (method === "OPTIONS" && rng.chance(0.5)) {
    spec.headers.push(["Access-Control-Request-Method", rng.pick(["POST", "GET", "DELETE"])]);
    spec.headers.push(["Access-Control-Request-Headers", rng.headerText(30)]);
  }
  return spec;
}

function streamOf(bytes: Bytes, chunk: number): ReadableStream<Bytes> {
  let offset = 0;
  return new ReadableStream({
    pull(c) {
      if (offset >= bytes.length) return c.close();
      c.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

function requestInit(spec: Spec): RequestInit {
  const init: RequestInit & { duplex?: string } = {
    method: spec.method,
    headers: spec.headers,
  };
  if (spec.body) {
    init.body = spec.streamChunk ? streamOf(spec.body, spec.streamChunk) : spec.body;
    if (spec.streamChunk) init.duplex = "half";
  }
  return init;
}

/** Deno's HTTP client refuses control characters in header values before sending. */
function wireSafe(value: string): string {
  return [...value].map((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 && code !== 9) || code === 0x7f ? "?" : c;
  }).join("");
}

async function withTimeout<T>(work: Promise<T>, what: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms: ${what()}`)),
      REQUEST_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Collects failures instead of stopping at the first, so one run shows every distinct bug. */
class Findings {
  readonly failures: string[] = [];
  readonly kinds = new Set<string>();
  count = 0;
  statuses = new Map<number, number>();

  byRoute = new Map<string, number>();

  note(status: number, spec: Spec): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    const key = `${spec.method} ${spec.path.split("?")[0]} ${status}`;
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
  }
  fail(label: string, i: number, spec: Spec, problem: string): void {
    const kind = `${spec.method} ${spec.path.split("?")[0]} ${problem.split("\n")[0]}`;
    if (this.kinds.has(kind) || this.failures.length >= 20) return;
    this.kinds.add(kind);
    this.failures.push(
      `[seed ${SEED}, ${label} #${i}] ${problem}\n    request: ${describe(spec)}`,
    );
  }
  assertClean(): void {
    assert.equal(
      this.failures.length,
      0,
      `fuzz failures (replay with FUZZ_SEED=${SEED}):\n${this.failures.join("\n")}`,
    );
  }
}

/** JavaScript exception text that must never reach a caller (a 500 says "internal error"). */
const LEAKED_EXCEPTION =
  /Maximum call stack size exceeded|(?:Range|Type|Reference|Syntax)Error\b|is not a function|Cannot read properties/;

/** Whether `fetch` could send this at all (forbidden methods such as TRACE cannot be). */
function sendable(spec: Spec, base: string): boolean {
  try {
    new Request(new URL(spec.path, base), { method: spec.method, headers: spec.headers });
    return true;
  } catch {
    return false;
  }
}

/** Sends one spec in-process and records its answer; a 5xx, a throw or a hang is a failure. */
async function sendInProcess(
  app: TestApp,
  spec: Spec,
  address: string,
  findings: Findings,
  label: string,
  i: number,
): Promise<void> {
  if (!sendable(spec, app.config.baseUrl)) return;
  findings.count++;
  const logsBefore = app.logs.length;
  try {
    const res = await withTimeout(
      (async () => {
        const r = await app.request(spec.path, { ...requestInit(spec), address });
        return { r, text: await r.text() };
      })(),
      () => describe(spec),
    );
    findings.note(res.r.status, spec);
    const leaked = res.text.match(LEAKED_EXCEPTION)?.[0];
    if (res.r.status >= 500) {
      const error = app.logs.slice(logsBefore).find((l) => l.level === "error")?.error;
      findings.fail(label, i, spec, `answered ${res.r.status} (${error ?? "no error logged"})`);
    } else if (!res.r.headers.get("x-request-id")) {
      findings.fail(label, i, spec, `answered ${res.r.status} without X-Request-Id`);
    } else if (leaked) {
      // An unexpected exception that the MCP SDK turned into a tool result.
      findings.fail(label, i, spec, `answered ${res.r.status} with an internal error: ${leaked}`);
    }
  } catch (err) {
    findings.fail(label, i, spec, `threw ${err instanceof Error ? err.message : err}`);
  }
}

async function fixtures(app: Requester, baseUrl: string): Promise<Fixtures> {
  const clients = [await registerClient(app), await registerClient(app, "services:read")];
  const tokens = [
    await issueToken(app, clients[0]!),
    await issueToken(app, clients[0]!, "coverage:read"),
    await issueToken(app, clients[1]!),
  ];
  return { baseUrl, clients, tokens };
}

function routePatterns(config: Config): string[] {
  return buildRoutes(config, catalog()).map((r) => r.pattern.pathname);
}

Deno.test("fuzz: thousands of random requests in-process get no 5xx, no crash and no hang", async () => {
  await using app = await createApp({ env: NO_LIMITS });
  const fx = await fixtures(app, app.config.baseUrl);
  const patterns = routePatterns(app.config);
  assert.ok(patterns.length >= 20, "the route table is enumerated");
  const rng = new Rng(SEED);
  const findings = new Findings();

  // Every route × every method, once.
  let i = 0;
  for (const pattern of patterns) {
    for (const method of METHODS) {
      const spec = anyPathSpec(rng, fx, [pattern]);
      spec.method = method;
      if (method === "GET" || method === "HEAD") delete spec.body;
      await sendInProcess(app, spec, "192.0.2.1", findings, "route sweep", i++);
    }
  }
  // Then mostly POST endpoints, some random paths, from a few addresses.
  for (let n = 0; n < 4000; n++) {
    const spec = rng.chance(0.75) ? postSpec(rng, fx) : anyPathSpec(rng, fx, patterns);
    const address = rng.pick(["192.0.2.1", "198.51.100.7", "2001:db8::5", "::ffff:192.0.2.1"]);
    await sendInProcess(app, spec, address, findings, "in-process", n);
  }
  assert.ok(findings.count >= 4000, `only ${findings.count} requests were sent`);
  // The fuzz reached past the front door: some requests succeeded and many were refused.
  for (const status of [200, 201, 202, 400, 401, 404, 405, 413, 415]) {
    assert.ok(
      (findings.statuses.get(status) ?? 0) > 0,
      `no ${status} in ${[...findings.statuses]}`,
    );
  }
  // Every endpoint was reached past its validation, not only refused at the door.
  for (
    const key of [
      "POST /agent/identity 201",
      "POST /oauth2/token 200",
      "POST /oauth2/revoke 200",
      "POST /api/v1/intake 202",
      "POST /api/v1/quotes 202",
      "POST /api/v1/mcp 200",
      "POST /api/v1/mcp 202",
    ]
  ) {
    assert.ok((findings.byRoute.get(key) ?? 0) > 0, `never ${key}`);
  }
  if (Deno.env.get("FUZZ_VERBOSE")) {
    console.log([...findings.byRoute].filter(([k]) => k.startsWith("POST /")).sort());
  }
  findings.assertClean();
});

Deno.test("fuzz with the default rate limits on: 429s, but no 5xx", async () => {
  await using app = await createApp();
  const fx = await fixtures(app, app.config.baseUrl);
  const patterns = routePatterns(app.config);
  const rng = new Rng(SEED ^ 0x429);
  const findings = new Findings();
  for (let n = 0; n < 250; n++) {
    const spec = rng.chance(0.85) ? postSpec(rng, fx) : anyPathSpec(rng, fx, patterns);
    await sendInProcess(app, spec, "192.0.2.1", findings, "limited", n);
  }
  assert.ok((findings.statuses.get(429) ?? 0) > 0, `no 429 in ${[...findings.statuses]}`);
  findings.assertClean();
});

Deno.test("fuzz against the real process: no 5xx, no dropped connection, no hang", async () => {
  await using app = await startServiceOnTempKv(NO_LIMITS);
  const fx = await fixtures(overHttp(app.baseUrl), app.baseUrl);
  const patterns = routePatterns(loadConfig({ BASE_URL: app.baseUrl }));
  const rng = new Rng(SEED ^ 0xbeef);
  const findings = new Findings();
  for (let n = 0; n < 300; n++) {
    const spec = rng.chance(0.75) ? postSpec(rng, fx) : anyPathSpec(rng, fx, patterns);
    spec.headers = spec.headers.filter(([k]) => k !== "Content-Length")
      .map(([k, v]) => [k, wireSafe(v)]);
    if (!sendable(spec, app.baseUrl)) continue;
    findings.count++;
    const controller = new AbortController();
    try {
      const status = await withTimeout(
        (async () => {
          const res = await fetch(`${app.baseUrl}${spec.path}`, {
            ...requestInit(spec),
            signal: controller.signal,
          });
          await res.arrayBuffer();
          return res.status;
        })(),
        () => describe(spec),
      );
      findings.note(status, spec);
      if (status >= 500) findings.fail("real port", n, spec, `answered ${status}`);
    } catch (err) {
      controller.abort();
      findings.fail("real port", n, spec, `failed: ${err instanceof Error ? err.message : err}`);
    }
  }
  assert.ok(findings.count >= 250);
  findings.assertClean();
  await assertAliveWithoutErrors(app);
});

/** The process still answers, and logged no unexpected failure (an error-level line). */
async function assertAliveWithoutErrors(service: Service) {
  const health = await fetch(`${service.baseUrl}/healthz`);
  assert.equal(health.status, 200, "the service still serves after the fuzz");
  await health.body?.cancel();
  const errors = service.logs.filter((l) => l.level === "error");
  assert.deepEqual(errors, [], "the service logged an unexpected failure");
}

/** Writes a raw request and reads the status line; the connection is closed either way. */
async function rawExchange(port: number, request: Uint8Array): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(request).catch(() => 0);
    const buf = new Uint8Array(64 * 1024);
    let text = "";
    while (!text.includes("\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return text.split("\r\n", 1)[0] ?? "";
  } finally {
    conn.close();
  }
}

Deno.test("fuzz over raw sockets: odd methods and framing get no 5xx and the server keeps serving", async () => {
  await using app = await startServiceOnTempKv(NO_LIMITS);
  const port = Number(new URL(app.baseUrl).port);
  const rng = new Rng(SEED ^ 0xface);
  const failures: string[] = [];
  const methods = ["TRACE", "CONNECT", "TRACK", "get", "POST", "P0ST", "BREW", "DELETE"];
  const paths = [
    ...POST_PATHS,
    "/healthz",
    "*",
    "/api/v1/services?city=%ZZ",
    "/" + "a".repeat(4000),
  ];
  let sent = 0;
  for (let n = 0; n < 80; n++) {
    const body = n % 4 === 0 ? rng.bytes(rng.int(200)) : utf8.encode(JSON.stringify(rng.json(2)));
    const framing = rng.int(4);
    const head = [
      `${rng.pick(methods)} ${rng.pick(paths)} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      "Connection: close",
      `Content-Type: ${rng.pick(CONTENT_TYPES)}`,
      framing === 0
        ? `Content-Length: ${body.length}`
        : framing === 1
        ? "Transfer-Encoding: chunked"
        : framing === 2
        ? `Content-Length: ${body.length}\r\nContent-Length: ${body.length}`
        : `Content-Length: ${body.length}\r\nX-Junk: ${rng.headerText(30)}`,
    ].join("\r\n") + "\r\n\r\n";
    const payload = framing === 1
      ? new Uint8Array([
        ...utf8.encode(`${body.length.toString(16)}\r\n`),
        ...body,
        ...utf8.encode("\r\n0\r\n\r\n"),
      ])
      : body;
    const request = new Uint8Array([...utf8.encode(head), ...payload]);
    sent++;
    const line = await withTimeout(rawExchange(port, request), () => head);
    const status = Number(line.split(" ")[1]);
    if (status >= 500) {
      failures.push(`[seed ${SEED}, raw #${n}] ${line}\n    ${JSON.stringify(head)}`);
    }
  }
  assert.equal(sent, 80);
  assert.deepEqual(failures, []);
  await assertAliveWithoutErrors(app);
});
