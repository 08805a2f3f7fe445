/**
 * Property-based tests (fast-check, fixed seeds) of the hostile-input surface: Basic
 * credentials, strict form parsing, JSON submissions, scope strings, city names and
 * the submission schemas. The properties: never a 5xx, never a token for bad
 * credentials, never a partial record.
 */

import { namesPlace } from "../../src/catalog/place_reading.ts";
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.10.2";
import { normalizeName } from "../../src/catalog/names.ts";
import { findService } from "../../src/catalog/service_match.ts";
import { HttpError } from "../../src/http/errors.ts";
import { parseForm } from "../../src/http/body.ts";
import { decodeBasic } from "../../src/oauth/client_auth.ts";
import { parseScope, SCOPES } from "../../src/oauth/scopes.ts";
import { lenientArguments } from "../../src/intake/lenient.ts";
import { LEAD_LENIENCY, LeadInput, QUOTE_LENIENCY, quoteInput } from "../../src/intake/schemas.ts";
import { extraPropertyIssues } from "../../src/intake/bounds.ts";
import {
  basic,
  catalog,
  type Client,
  createApp,
  issueToken,
  mcpPost,
  post,
  registerClient,
  type TestApp,
} from "../_helpers.ts";
import { RATE_LIMITS_OFF as NO_LIMITS } from "../_fixtures.ts";

/** Fixed by default; `FC_SEED` and `FC_SCALE` (a run multiplier) explore further by hand. */
const SEED = Number(Deno.env.get("FC_SEED") || 42);
const SCALE = Number(Deno.env.get("FC_SCALE") || 1);
const FORM = "application/x-www-form-urlencoded";
const utf8 = new TextEncoder();

/** Runs a property with the fixed seed; a failure names the seed and the shrunk counterexample. */
function check<T>(prop: fc.IProperty<T>, numRuns: number): void;
function check<T>(prop: fc.IAsyncProperty<T>, numRuns: number): Promise<void>;
function check<T>(
  prop: fc.IProperty<T> | fc.IAsyncProperty<T>,
  numRuns: number,
): void | Promise<void> {
  return fc.assert(prop as fc.IProperty<T>, { seed: SEED, numRuns: Math.ceil(numRuns * SCALE) });
}

function assertNot5xx(res: Response, what: string): void {
  assert.ok(res.status < 500, `${what} answered ${res.status}`);
}

/**
 * An app without rate limits (the runs send thousands of requests) and a client registered
 * on it (with `scope`, if given), with the client's Basic header. Use with `await using`.
 */
async function appWithClient(scope?: string): Promise<TestApp & { client: Client; auth: string }> {
  const app = await createApp({ env: NO_LIMITS });
  try {
    const client = await registerClient(app, scope);
    return { ...app, client, auth: basic(client.client_id, client.client_secret) };
  } catch (err) {
    await app[Symbol.asyncDispose]();
    throw err;
  }
}

/** POSTs a form body to `path`, with `Authorization: auth` if given. */
function formPost(app: TestApp, path: string, body: string, auth?: string): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": FORM };
  if (auth !== undefined) headers.Authorization = auth;
  return app.request(path, { method: "POST", headers, body });
}

// ---- generators ----

/** Any code point, surrogate halves included. */
const anyText = (maxLength = 40) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: "binary", maxLength }),
    fc.string({ unit: "grapheme", maxLength }),
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  );

/** Strings a `Headers` object accepts as a value: Latin-1 without NUL, CR or LF. */
const headerText = fc.string({
  unit: fc.integer({ min: 1, max: 0xff }).filter((c) => c !== 10 && c !== 13)
    .map((c) => String.fromCharCode(c)),
  maxLength: 120,
});

const TRICKY_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", ""];
const anyKey = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...TRICKY_KEYS));
const anyJson = fc.jsonValue({ maxDepth: 3 });

const nonBlank = (maxLength = 40) =>
  fc.string({ unit: "grapheme", minLength: 1, maxLength }).map((s) => `x${s}`);
const often = <T>(good: fc.Arbitrary<T>, ...bad: fc.Arbitrary<unknown>[]) =>
  fc.oneof(
    { weight: 30, arbitrary: good as fc.Arbitrary<unknown> },
    ...bad.map((b) => ({
      weight: 1,
      arbitrary: b,
    })),
  );

const serviceIds = catalog().services.flatMap((s) => [s.id, s.name, s.id.toUpperCase()]);
const cities = catalog().locations.flatMap((l) => [l.city, ...l.aliases]);

const field = (maxLength = 40) => often(nonBlank(maxLength), anyText(), anyJson, fc.constant(""));
/** Addresses zod's (deliberately practical) email check accepts, and fast-check's RFC ones. */
const plainEmail = fc.tuple(
  fc.stringMatching(/^[a-z0-9]{1,10}([._+-][a-z0-9]{1,8})?$/),
  fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,6})?$/),
  fc.constantFrom("com", "de", "example", "co.uk", "io"),
).map(([local, domain, tld]) => `${local}@${domain}.${tld}`);
const emailArb = often(plainEmail, fc.emailAddress(), anyText(), anyJson);
const contextArb = often(fc.dictionary(anyKey, anyJson, { maxKeys: 4 }), anyJson);

const leadish = fc.record({
  email: emailArb,
  description: field(200),
  company: field(),
  contact_name: field(),
  city: often(fc.constantFrom(...cities), anyText()),
  country: often(fc.constantFrom("DE", "ch", "FR", "US"), anyText(4), anyJson),
  service_type: often(fc.constantFrom(...serviceIds), anyText()),
  agent_context_optional: contextArb,
}, { requiredKeys: ["email", "description"] });

const quoteish = fc.record({
  company: field(),
  contact_name: field(),
  email: emailArb,
  city: often(fc.constantFrom(...cities), anyText()),
  service_type: often(fc.constantFrom(...serviceIds), anyText()),
  description: field(200),
  phone: often(fc.stringMatching(/^\+?[0-9 ()./-]{5,40}$/), anyText(), anyJson),
  country: often(fc.constantFrom("DE", "ch", "FR", "US"), anyText(4), anyJson),
  site_address: field(),
  requested_date: often(fc.constantFrom("2026-12-01", "2027-02-28"), anyText(12), anyJson),
  requested_time: often(fc.constantFrom("00:00", "09:30", "23:59"), anyText(6), anyJson),
  engineer_count: often(fc.integer({ min: 1, max: 50 }), fc.integer(), fc.double(), anyJson),
  estimated_hours: often(
    fc.double({ min: 0.1, max: 1000, noNaN: true }),
    fc.double(),
    anyJson,
  ),
  out_of_hours: often(fc.boolean(), anyJson),
  attachments_optional: often(fc.array(nonBlank(), { maxLength: 10 }), anyJson),
  agent_context_optional: contextArb,
}, {
  requiredKeys: ["company", "contact_name", "email", "city", "service_type", "description"],
});

/** Lead- or quote-shaped objects with extra (sometimes hostile) members, or any JSON value. */
const submissionBody = (lead = 1, quote = 1) =>
  fc.oneof(
    { weight: 2, arbitrary: anyJson },
    { weight: 1, arbitrary: leadish.map((v) => _omitSome(v)) },
    {
      weight: lead,
      arbitrary: fc.tuple(leadish, fc.dictionary(anyKey, anyJson, { maxKeys: 3 }))
        .map(([a, extra]) => ({ ...extra, ...a })),
    },
    {
      weight: quote,
      arbitrary: fc.tuple(quoteish, fc.dictionary(anyKey, anyJson, { maxKeys: 3 }))
        .map(([a, extra]) => ({ ...extra, ...a })),
    },
  );

/** Drops the required members now and then, so "missing" is exercised too. */
function _omitSome(v: Record<string, unknown>): Record<string, unknown> {
  const { email, description, ...rest } = v;
  const n = JSON.stringify(v).length;
  return n % 3 === 0 ? rest : n % 3 === 1 ? { ...rest, email } : { ...rest, description };
}

// ---- KV snapshots ----

type Snapshot = Map<string, { key: Deno.KvKey; value: unknown }>;

async function snapshot(kv: Deno.Kv): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for await (const e of kv.list({ prefix: [] })) {
    // Store-wide bookkeeping, made once per store, belongs to no submission.
    if (e.key[0] === "email_index_key") continue;
    out.set(JSON.stringify(e.key, (_k, v) => typeof v === "bigint" ? String(v) : v), e);
  }
  return out;
}

function added(before: Snapshot, after: Snapshot): { key: Deno.KvKey; value: unknown }[] {
  return [...after].filter(([k]) => !before.has(k)).map(([, e]) => e);
}

function changed(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const k of before.keys()) if (!after.has(k)) out.push(`removed ${k}`);
  for (const [k] of after) if (!before.has(k)) out.push(`added ${k}`);
  return out;
}

// ---- 1. Basic credentials ----

Deno.test("Basic-header decoding never throws and round-trips form-encoded pairs", async (t) => {
  await t.step("decodeBasic never throws, whatever the header", () => {
    const header = fc.oneof(
      anyText(80),
      anyText(40).map((s) => `Basic ${s}`),
      fc.base64String().map((s) => `Basic ${s}`),
      fc.base64String().map((s) => `bAsIc   ${s}  `),
      fc.uint8Array({ maxLength: 40 }).map((b) => `Basic ${btoa(String.fromCharCode(...b))}`),
    );
    check(
      fc.property(fc.option(header, { nil: null }), (h) => {
        const out = decodeBasic(h);
        assert.ok(out === null || (out.id !== "" && out.secret !== ""));
      }),
      3000,
    );
  });

  await t.step("form-encoded id and secret come back unchanged", () => {
    const part = fc.oneof(
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
      fc.string({ unit: fc.constantFrom(":", "+", " ", "%", "=", "&", "é", "a"), minLength: 1 }),
    );
    check(
      fc.property(part, part, (id, secret) => {
        assert.deepEqual(decodeBasic(basic(id, secret)), { id, secret });
      }),
      3000,
    );
  });

  await t.step(
    "anything but a valid client's exact credentials gets no token, and no 5xx",
    async () => {
      await using app = await appWithClient();
      const a = app.client;
      const b = await registerClient(app);
      const tokensBefore = (await Array.fromAsync(app.kv.list({ prefix: ["tokens"] }))).length;
      const differ = (s: string) =>
        fc.oneof(
          fc.nat({ max: s.length - 1 }).chain((i) =>
            fc.constantFrom(..."aZ09_-+%: é").filter((c) => c !== s[i]).map((c) =>
              s.slice(0, i) + c + s.slice(i + 1)
            )
          ),
          fc.nat({ max: s.length - 1 }).map((n) => s.slice(0, n)),
          fc.string({ minLength: 1, maxLength: 4 }).map((x) => s + x),
          fc.constant(s.toUpperCase()),
          fc.string({ minLength: 1, maxLength: 60 }).filter((x) => x !== s),
        );
      const header = fc.oneof(
        headerText,
        headerText.map((s) => `Basic ${s}`),
        fc.base64String({ maxLength: 200 }).map((s) => `Basic ${s}`),
        headerText.map((s) => `Basic ${btoa(s)}`),
        differ(a.client_secret).map((s) => basic(a.client_id, s)),
        differ(a.client_id).map((id) => basic(id, a.client_secret)),
        fc.constant(basic(a.client_id, b.client_secret)),
        fc.constant(basic(b.client_id, a.client_secret)),
        fc.constant(basic(a.client_secret, a.client_id)),
        fc.constant(`Bearer ${a.client_secret}`),
        fc.constant(`Basic ${btoa(`${a.client_id}:`)}`),
        fc.constant(`Basic ${btoa(`:${a.client_secret}`)}`),
        fc.constant(`Basic ${btoa(`${a.client_id}:${a.client_secret}`)} extra`),
      );
      const body = fc.oneof(
        fc.constant("grant_type=client_credentials"),
        fc.constant(`grant_type=client_credentials&client_id=${a.client_id}`),
        fc.constant(
          `grant_type=client_credentials&client_id=${a.client_id}&client_secret=${a.client_secret}`,
        ),
      );
      await check(
        fc.asyncProperty(fc.option(header, { nil: undefined }), body, async (auth, form) => {
          const res = await formPost(app, "/oauth2/token", form, auth);
          const text = await res.text();
          assertNot5xx(res, `token with Authorization ${JSON.stringify(auth)}`);
          assert.notEqual(res.status, 200, `a token for ${JSON.stringify(auth)}: ${text}`);
          assert.equal(res.status, 401, text);
          assert.equal(JSON.parse(text).error, "invalid_client");
        }),
        1000,
      );
      const tokens = (await Array.fromAsync(app.kv.list({ prefix: ["tokens"] }))).length;
      assert.equal(tokens, tokensBefore, "no token was stored");
      // The oracle is not vacuous: the exact credentials do get a token.
      assert.match(await issueToken(app, a), /^dcfs_at_/);
    },
  );
});

// ---- 2. Form parsing ----

const FORM_PIECES = [
  "%",
  "%2",
  "%zz",
  "%41",
  "%C3%A9",
  "%C3",
  "%ED%A0%80",
  "%E2%82",
  "%F0%9F%98%80",
  "%00",
  "%%",
  "%25",
  "%2B",
  "%26",
  "%3D",
  "+",
  "=",
  "==",
  "&",
  "&&",
  "a",
  "b",
  "é",
  "😀",
  "\u0000",
  "grant_type",
  "scope",
  "resource",
  "client_credentials",
];
const formText = fc.array(
  fc.oneof(fc.constantFrom(...FORM_PIECES), fc.string({ maxLength: 4 })),
  { maxLength: 30 },
).map((xs) => xs.join(""));

/** Percent-encodes some characters of a name, so a repeat can look different. */
const encodings = (name: string) =>
  fc.array(fc.integer({ min: 0, max: 2 }), { minLength: name.length, maxLength: name.length })
    .map((modes) =>
      [...name].map((c, i) => {
        const mode = modes[i] ?? 0;
        if (c === " ") return mode === 0 ? "+" : "%20";
        if (mode === 1 || /[&=+%]/.test(c)) return encodeURIComponent(c);
        if (mode === 2) {
          return [...utf8.encode(c)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
        }
        return c;
      }).join("")
    );

const formName = fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 });
const formValue = fc.string({ unit: "grapheme", maxLength: 10 });

/** Distinct names with values, one of them repeated (each occurrence encoded its own way). */
const repeatedForm = fc.uniqueArray(formName, { minLength: 1, maxLength: 5 }).chain((names) =>
  fc.record({
    names: fc.constant(names),
    values: fc.array(formValue, { minLength: names.length + 1, maxLength: names.length + 1 }),
    repeat: fc.nat({ max: names.length - 1 }),
    at: fc.nat({ max: names.length }),
  })
).chain(({ names, values, repeat, at }) => {
  const order = [...names];
  order.splice(at, 0, names[repeat]!);
  return fc.tuple(...order.map(encodings)).map((encoded) => ({
    repeated: names[repeat]!,
    body: encoded.map((n, i) => `${n}=${encodeURIComponent(values[i]!)}`).join("&"),
  }));
});

Deno.test("form parsing gives params or a 400, and a repeated name is always a 400", async (t) => {
  const expect400 = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof HttpError, `not an HttpError: ${err}`);
      assert.equal(err.status, 400);
      assert.equal(err.code, "invalid_request");
      return err;
    }
    assert.fail("expected a 400");
  };

  await t.step("odd percent-escapes, bytes and separators: params or HttpError 400", () => {
    const body = fc.oneof(formText.map((s) => utf8.encode(s)), fc.uint8Array({ maxLength: 60 }));
    check(
      fc.property(body, fc.constantFrom([], ["resource"]), (bytes, repeatable) => {
        let params: URLSearchParams;
        try {
          params = parseForm(bytes, repeatable);
        } catch (err) {
          assert.ok(err instanceof HttpError, `parseForm threw ${err}`);
          assert.equal(err.status, 400);
          return;
        }
        // Accepted: no empty values, and no name twice unless it may repeat.
        const names = [...params.keys()];
        for (const n of new Set(names)) {
          if (!repeatable.includes(n as never)) {
            assert.equal(names.filter((x) => x === n).length, 1);
          }
        }
        for (const v of params.values()) assert.notEqual(v, "");
        // What was accepted serialises and parses back to itself.
        assert.deepEqual(
          [...parseForm(utf8.encode(params.toString()), repeatable)],
          [...params],
        );
      }),
      5000,
    );
  });

  await t.step("distinct names round-trip through URLSearchParams encoding", () => {
    check(
      fc.property(
        fc.uniqueArray(fc.tuple(formName, formValue), { selector: ([n]) => n, maxLength: 6 }),
        (pairs) => {
          const body = new URLSearchParams(pairs).toString();
          assert.deepEqual([...parseForm(utf8.encode(body))], pairs.filter(([, v]) => v !== ""));
        },
      ),
      2000,
    );
  });

  await t.step("a repeated name is a 400 however each occurrence is encoded", () => {
    check(
      fc.property(repeatedForm, ({ repeated, body }) => {
        const err = expect400(() => parseForm(utf8.encode(body)));
        assert.match(err.message, /is repeated/);
        if (repeated === "resource") return;
        expect400(() => parseForm(utf8.encode(body), ["resource"]));
      }),
      2000,
    );
  });

  await t.step(
    "through /oauth2/token and /oauth2/revoke: never a 5xx, repeats are 400",
    async () => {
      await using app = await appWithClient();
      const body = fc.oneof(
        formText.map((s) => ({ body: s, repeated: undefined as string | undefined })),
        repeatedForm,
        repeatedForm.map(({ repeated, body }) => ({
          repeated,
          body: `grant_type=client_credentials&${body}`,
        })),
      );
      await check(
        fc.asyncProperty(
          body,
          fc.constantFrom("/oauth2/token", "/oauth2/revoke"),
          async ({ body, repeated }, path) => {
            const res = await formPost(app, path, body, app.auth);
            const text = await res.text();
            assertNot5xx(res, `${path} with ${JSON.stringify(body)}`);
            const repeatable = path === "/oauth2/token" && repeated === "resource";
            if (repeated !== undefined && !repeatable) {
              assert.equal(res.status, 400, `${body}: ${text}`);
              assert.equal(JSON.parse(text).error, "invalid_request");
            }
          },
        ),
        1000,
      );
    },
  );
});

// ---- 3. JSON bodies ----

interface Accepted {
  request_id: string;
}

/** Asserts that a 202 left exactly one complete record, its payload and its outbox entry. */
async function assertCompleteRecord(
  app: TestApp,
  before: Snapshot,
  kind: "lead" | "quote",
  raw: unknown,
  result: Accepted,
  idempotencyKey: string | undefined,
) {
  const after = await snapshot(app.kv);
  const id = result.request_id;
  const fresh = added(before, after);
  const record = after.get(JSON.stringify(["submissions", id]))?.value as {
    request_id: string;
    kind: string;
    status: string;
    payload: { chunks: number; bytes: number };
    created_at: string;
    budget_estimate: unknown;
  } | undefined;
  assert.ok(record, `no record for ${id}`);
  assert.equal(record.request_id, id);
  assert.equal(record.kind, kind);
  assert.equal(record.status, "pending");
  assert.equal(record.budget_estimate === null, kind === "lead");
  const chunks = Array.from(
    { length: record.payload.chunks },
    (_, n) => after.get(JSON.stringify(["submission_payloads", id, n]))?.value as Uint8Array,
  );
  assert.ok(chunks.every((c) => c instanceof Uint8Array), "every payload chunk is stored");
  const bytes = new Uint8Array(record.payload.bytes);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  assert.equal(offset, record.payload.bytes);
  const schema = kind === "lead" ? LeadInput : quoteInput(catalog());
  const leniency = kind === "lead" ? LEAD_LENIENCY : QUOTE_LENIENCY;
  const { idempotency_key: _, ...validated } = schema.parse(lenientArguments(raw, leniency));
  assert.deepEqual(
    JSON.parse(new TextDecoder().decode(bytes)),
    JSON.parse(JSON.stringify(validated)),
    "the stored payload is the validated submission",
  );
  const outbox = after.get(JSON.stringify(["review_outbox", id]))?.value as { request_id: string };
  assert.equal(outbox?.request_id, id, "the review outbox entry is there");
  const due = after.get(JSON.stringify(["review_due", Date.parse(record.created_at), id]));
  assert.equal(due?.value, true, "the outbox entry is in the due index");
  // The idempotency records (the same request's, and the key's when one was sent) and the
  // pointer an erasure finds them by; the time and email index keys; the new-notice lane key.
  const expected = 3 + record.payload.chunks + (idempotencyKey ? 3 : 2) + 2 + 1;
  assert.equal(fresh.length, expected, `new keys: ${changed(before, after).join(", ")}`);
  if (idempotencyKey) {
    assert.ok(fresh.some((e) => e.key[0] === "idempotency" && e.key[3] === idempotencyKey));
  }
  assert.equal(after.size - before.size, expected, "nothing was removed");
  // Cleared once checked, so the store (and every later snapshot) stays small.
  for (const e of fresh) await app.kv.delete(e.key);
}

/** A small valid lead and quote: the bodies the nesting steps add a deep member to. */
const SMALL_LEAD = { email: "ops@example.com", description: "Two racks" };
const SMALL_QUOTE = {
  company: "Example GmbH",
  contact_name: "Alex Example",
  email: "alex@example.com",
  city: "Zurich",
  service_type: "remote-hands",
  description: "Swap a disk",
};

Deno.test("JSON bodies to /api/v1/intake and /api/v1/quotes: 202 with a complete record, or 400/413 with none", async (t) => {
  for (const [path, kind] of [["/api/v1/intake", "lead"], ["/api/v1/quotes", "quote"]] as const) {
    await t.step(`${path}: arbitrary JSON values`, async () => {
      await using app = await createApp({ env: NO_LIMITS });
      const seen = new Map<number, number>();
      let n = 0;
      await check(
        fc.asyncProperty(
          submissionBody(kind === "lead" ? 6 : 1, kind === "quote" ? 6 : 1),
          fc.boolean(),
          async (value, withKey) => {
            const text = JSON.stringify(value);
            const raw = JSON.parse(text);
            const key = withKey ? `prop-${kind}-${n++}` : undefined;
            const before = await snapshot(app.kv);
            const res = await post(app, path, text, key ? { "Idempotency-Key": key } : {});
            const body = await res.json();
            seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
            assert.ok([202, 400, 413].includes(res.status), `${res.status} for ${text}`);
            // The schema, read as leniently as the service reads it, is the oracle.
            const schema = kind === "lead" ? LeadInput : quoteInput(catalog());
            const read = lenientArguments(raw, kind === "lead" ? LEAD_LENIENCY : QUOTE_LENIENCY);
            const valid = schema.safeParse(read).success &&
              extraPropertyIssues(read, schema.shape).length === 0 &&
              (kind === "lead" ||
                findService(catalog(), (read as { service_type: string }).service_type) !==
                  undefined);
            if (res.status === 202 && body.replayed) {
              // The same request as an earlier one within 10 minutes: its answer, nothing new.
              assert.ok(valid, `replayed although invalid: ${text}`);
              assert.deepEqual(
                changed(before, await snapshot(app.kv)),
                [],
                "a replay stores nothing",
              );
            } else if (res.status === 202) {
              assert.ok(valid, `accepted although invalid: ${text}`);
              await assertCompleteRecord(app, before, kind, raw, body, key);
            } else {
              assert.equal(body.ok, false);
              if (res.status === 400) {
                assert.ok(!valid, `refused although valid: ${text} → ${JSON.stringify(body)}`);
                assert.equal(body.error, "validation_failed");
              }
              assert.deepEqual(
                changed(before, await snapshot(app.kv)),
                [],
                "a refusal leaves nothing",
              );
            }
          },
        ),
        1000,
      );
      // Both branches were exercised.
      assert.ok((seen.get(202) ?? 0) >= 100, `few accepted: ${[...seen]}`);
      assert.ok((seen.get(400) ?? 0) >= 100, `few refused: ${[...seen]}`);
    });
  }

  await t.step("deeply nested members (valid JSON under the size limit): never a 5xx", async () => {
    await using app = await createApp({ env: NO_LIMITS });
    const valid = { "/api/v1/intake": SMALL_LEAD, "/api/v1/quotes": SMALL_QUOTE };
    let n = 0;
    await check(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20_000 }),
        fc.constantFrom("[]", '{"a":}'),
        fc.constantFrom("/api/v1/intake", "/api/v1/quotes") as fc.Arbitrary<keyof typeof valid>,
        fc.boolean(),
        fc.boolean(),
        async (depth, shape, path, withKey, wideName) => {
          const [open, close] = shape === "[]" ? ["[", "]"] : ['{"a":', "}"];
          const nested = open.repeat(depth) + (shape === "[]" ? "" : "1") + close.repeat(depth);
          // A member name outside Latin-1 takes V8's JSON.stringify off its iterative fast path.
          const extra = wideName ? `"備考":[1],` : "";
          const text = JSON.stringify(valid[path]).replace(/}$/, `,${extra}"nested":${nested}}`);
          const headers: Record<string, string> = withKey ? { "Idempotency-Key": `d-${n++}` } : {};
          const before = await snapshot(app.kv);
          const res = await post(app, path, text, headers);
          const body = await res.json();
          assert.ok(
            [202, 400, 413].includes(res.status),
            `${path} with a member nested ${depth} deep (${text.length} bytes, ` +
              `Idempotency-Key: ${withKey}, non-Latin-1 member name: ${wideName}) ` +
              `answered ${res.status} ${JSON.stringify(body)}`,
          );
          if (res.status !== 202) assert.deepEqual(changed(before, await snapshot(app.kv)), []);
        },
      ),
      60,
    );
  });

  await t.step(
    "deeply nested tool arguments over MCP: an answer, never an internal error",
    async () => {
      await using app = await createApp({ env: NO_LIMITS });
      const args = { submit_lead: SMALL_LEAD, request_quote: SMALL_QUOTE };
      await check(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 20_000 }),
          fc.constantFrom("submit_lead", "request_quote") as fc.Arbitrary<keyof typeof args>,
          fc.boolean(),
          async (depth, tool, wideName) => {
            const nested = "[".repeat(depth) + "]".repeat(depth);
            const extra = wideName ? `"備考":[1],` : "";
            const call = JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: tool, arguments: args[tool] },
            }).replace(/}}}$/, `,${extra}"nested":${nested}}}}`);
            const res = await mcpPost(app, call, { "MCP-Protocol-Version": "2025-11-25" });
            const text = await res.text();
            const what = `${tool} with an argument nested ${depth} deep (${call.length} bytes, ` +
              `non-Latin-1 member name: ${wideName})`;
            assert.ok([200, 413].includes(res.status), `${what} answered ${res.status}`);
            assert.doesNotMatch(
              text,
              /Maximum call stack|RangeError|TypeError/,
              `${what} leaked an internal error: ${text.slice(0, 300)}`,
            );
          },
        ),
        60,
      );
    },
  );

  await t.step("malformed JSON text and non-UTF-8 bytes: 400 and nothing stored", async () => {
    await using app = await createApp({ env: NO_LIMITS });
    const body = fc.oneof(
      fc.string({ maxLength: 40 }),
      anyJson.chain((v) => {
        const s = JSON.stringify(v);
        return fc.nat({ max: Math.max(0, s.length - 1) }).map((cut) => s.slice(0, cut));
      }),
      fc.uint8Array({ maxLength: 40 }),
    );
    await check(
      fc.asyncProperty(
        body,
        fc.constantFrom("/api/v1/intake", "/api/v1/quotes"),
        async (b, path) => {
          const before = await snapshot(app.kv);
          const res = await app.request(path, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: b,
          });
          const out = await res.json();
          assert.ok([202, 400, 413].includes(res.status), `${res.status} for ${String(b)}`);
          if (res.status !== 202) {
            assert.deepEqual(changed(before, await snapshot(app.kv)), []);
          } else {
            assert.match(out.request_id, /^(lead|quote)_/);
          }
        },
      ),
      500,
    );
  });
});

// ---- 4. Scope strings ----

const SCOPE_WORDS = [
  ...SCOPES,
  "services:write",
  "admin",
  "openid",
  "SERVICES:READ",
  "services:read ",
  "coverage:read\t",
  "",
  "*",
];
const scopeString = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SCOPE_WORDS) },
    { weight: 1, arbitrary: anyText(12) },
  ),
  { maxLength: 6 },
).chain((words) => fc.constantFrom(" ", "  ", "\t", ",", "+").map((sep) => words.join(sep)));

Deno.test("scope strings parse to known scopes only, or fail with invalid_scope", async (t) => {
  await t.step("parseScope", () => {
    check(
      fc.property(fc.oneof(scopeString, anyText(30)), (raw) => {
        const names = raw.split(" ").filter((s) => s !== "");
        let scopes: string[] | undefined;
        try {
          scopes = parseScope(raw);
        } catch (err) {
          assert.ok(err instanceof HttpError, `parseScope threw ${err}`);
          assert.equal(err.status, 400);
          assert.equal(err.code, "invalid_scope");
          assert.ok(names.some((n) => !(SCOPES as readonly string[]).includes(n)));
          return;
        }
        if (scopes === undefined) return assert.equal(names.length, 0);
        // Known scopes only, in canonical order, each once, exactly those named.
        assert.deepEqual(scopes, SCOPES.filter((s) => names.includes(s)));
        assert.deepEqual(new Set(scopes), new Set(names));
      }),
      5000,
    );
  });

  await t.step(
    "registration and token requests: never 5xx, never an unregistered scope",
    async () => {
      await using app = await appWithClient("services:read coverage:read");
      await check(
        fc.asyncProperty(scopeString, async (scope) => {
          const reg = await post(app, "/agent/identity", { type: "anonymous", scope });
          const regBody = await reg.json();
          assertNot5xx(reg, `registration with scope ${JSON.stringify(scope)}`);
          let expected: string[] | undefined;
          try {
            expected = parseScope(scope) ?? [...SCOPES];
          } catch { /* refused below */ }
          if (expected) {
            assert.equal(reg.status, 201, JSON.stringify(regBody));
            assert.equal(regBody.scope, expected.join(" "));
          } else {
            assert.equal(reg.status, 400);
            assert.equal(regBody.error, "invalid_scope");
          }

          const tok = await formPost(
            app,
            "/oauth2/token",
            new URLSearchParams({ grant_type: "client_credentials", scope }).toString(),
            app.auth,
          );
          const tokBody = await tok.json();
          assertNot5xx(tok, `token with scope ${JSON.stringify(scope)}`);
          if (tok.status === 200) {
            const granted = tokBody.scope.split(" ");
            assert.ok(granted.every((s: string) => ["services:read", "coverage:read"].includes(s)));
          } else {
            assert.equal(tok.status, 400, JSON.stringify(tokBody));
            assert.equal(tokBody.error, "invalid_scope");
          }
        }),
        500,
      );
    },
  );
});

// ---- 5. City names ----

Deno.test("city names: coverage answers 200 or 400, never 5xx; normalizeName is idempotent", async (t) => {
  await t.step("normalizeName(normalizeName(x)) = normalizeName(x)", () => {
    check(
      fc.property(fc.oneof(anyText(40), fc.constantFrom(...cities)), (name) => {
        const once = normalizeName(name);
        assert.equal(normalizeName(once), once);
      }),
      3000,
    );
  });

  await t.step(
    "GET /api/v1/locations and /api/v1/agent/coverage with arbitrary names",
    async () => {
      await using app = await appWithClient();
      const token = await issueToken(app, app.client, "coverage:read");
      const city = fc.oneof(
        anyText(120),
        fc.constantFrom(...cities),
        fc.constantFrom(...cities).map((c) => ` ${c.toUpperCase()} `),
        fc.nat({ max: 130 }).map((n) => "é".repeat(n)),
      );
      const country = fc.option(
        fc.oneof(fc.constantFrom("DE", "ch", " fr ", "XX", "D", "DEU"), anyText(4)),
        { nil: undefined },
      );
      await check(
        fc.asyncProperty(city, country, fc.boolean(), async (c, k, agent) => {
          const query = new URLSearchParams({ city: c });
          if (k !== undefined) query.set("country", k);
          const path = `${agent ? "/api/v1/agent/coverage" : "/api/v1/locations"}?${query}`;
          const res = await app.request(path, {
            headers: agent ? { Authorization: `Bearer ${token}` } : {},
          });
          const body = await res.json();
          assert.ok([200, 400].includes(res.status), `${res.status} for ${path}`);
          // What the server saw after URL decoding (lone surrogates become U+FFFD).
          const sent = new URLSearchParams(query.toString());
          const seenCity = sent.get("city")!.trim();
          const seenCountry = sent.get("country")?.trim();
          const valid = seenCity.length >= 1 && seenCity.length <= 100 && namesPlace(seenCity) &&
            (seenCountry === undefined || /^[A-Za-z]{2}$/.test(seenCountry));
          assert.equal(res.status, valid ? 200 : 400, `${path}: ${JSON.stringify(body)}`);
          if (res.status === 200) {
            assert.equal(body.coverage.query.city, seenCity);
            assert.ok(
              [
                "covered",
                "nearby",
                "known_uncovered",
                "ambiguous",
                "other_country",
                "country",
                "unknown",
              ].includes(
                body.coverage.match,
              ),
            );
          } else {
            assert.equal(body.error, "invalid_query");
          }
        }),
        1000,
      );
    },
  );
});

// ---- 6. The submission schemas ----

Deno.test("LeadInput and QuoteInput never throw from safeParse, and accepted values re-validate", async (t) => {
  const anything = fc.anything({
    maxDepth: 3,
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withDate: true,
    withTypedArray: true,
    withSparseArray: true,
    withObjectString: true,
    key: anyKey,
  });
  for (
    const [name, schema] of [["LeadInput", LeadInput], [
      "QuoteInput",
      quoteInput(catalog()),
    ]] as const
  ) {
    await t.step(name, () => {
      let accepted = 0;
      check(
        fc.property(fc.oneof(anything, submissionBody(2, 2)), (value) => {
          const res = schema.safeParse(value);
          if (!res.success) {
            assert.ok(res.error.issues.length > 0);
            return;
          }
          accepted++;
          // Parsing is idempotent, and the stored JSON form validates to the same value.
          const again = schema.safeParse(res.data);
          assert.ok(again.success, JSON.stringify(again.error?.issues));
          assert.deepEqual(again.data, res.data);
          const stored = JSON.parse(JSON.stringify(res.data));
          const reread = schema.safeParse(stored);
          assert.ok(reread.success, JSON.stringify(reread.error?.issues));
          assert.deepEqual(reread.data, stored);
        }),
        3000,
      );
      assert.ok(accepted >= 50, `only ${accepted} values were accepted`);
    });
  }
});
