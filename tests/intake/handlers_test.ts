import assert from "node:assert/strict";
import { getSubmission, getSubmissionPayload } from "../../src/store/submissions.ts";
import { MAX_STORED_PER_SUBMISSION, SUBMISSION_MAX_BODY } from "../../src/intake/submissions.ts";
import { largestQuote, QUOTE } from "../_fixtures.ts";
import {
  countSubmissions,
  createApp,
  failDelivery,
  mcpToolCall,
  post,
  storedBytes,
  type TestApp,
} from "../_helpers.ts";

const LEAD = { email: "ops@example.com", description: "Two racks to install" };

async function storedKeys(app: TestApp): Promise<number> {
  return (await Array.fromAsync(app.kv.list({ prefix: [] })))
    .filter((e) => e.key[0] !== "rate_counters").length;
}

Deno.test("POST /api/v1/intake accepts a lead with 202, pending human review, nothing billable", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/intake", LEAD);
  assert.equal(res.status, 202);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("access-control-allow-origin"), null);
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "billable_order_created",
    "expected_review",
    "ignored",
    "next_step",
    "ok",
    "replayed",
    "request_id",
    "requires_human_approval",
    "service_id",
    "site",
    "status",
  ]);
  assert.equal(body.ok, true);
  assert.equal(body.service_id, null, "no service_type given");
  assert.match(body.request_id, /^lead_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(body.status, "pending");
  assert.equal(body.requires_human_approval, true);
  assert.equal(body.billable_order_created, false);
  assert.match(body.next_step, /review/);
  assert.equal(body.next_step.split(". ").length, 1, "one sentence");
  assert.deepEqual(body.ignored, [], "nothing sent beyond the fields");

  const entry = await getSubmission(app.kv, body.request_id);
  assert.equal(entry.value?.status, "pending");
  assert.equal(entry.value?.kind, "lead");
  assert.equal(entry.value?.created_at, new Date(app.clock.now()).toISOString());
});

Deno.test("POST /api/v1/intake keeps additional properties and trims strings", async () => {
  await using app = await createApp();
  const res = await post(app, "/api/v1/intake", {
    ...LEAD,
    company: "  Example GmbH ",
    service_type: "something custom",
    agent_context_optional: { agent: "probe", depth: 2 },
    preferred_language: "de",
    nested: { a: [1, 2] },
  });
  assert.equal(res.status, 202);
  const { request_id } = await res.json();
  const record = (await getSubmission(app.kv, request_id)).value!;
  const stored = JSON.parse(await getSubmissionPayload(app.kv, record));
  assert.equal(stored.company, "Example GmbH");
  assert.equal(stored.service_type, "something custom");
  assert.equal(stored.preferred_language, "de");
  assert.deepEqual(stored.nested, { a: [1, 2] });
  assert.deepEqual(stored.agent_context_optional, { agent: "probe", depth: 2 });
});

Deno.test("POST /api/v1/intake request ids sort by creation time", async () => {
  await using app = await createApp();
  const ids = [];
  for (let i = 0; i < 3; i++) {
    const lead = { ...LEAD, description: `${LEAD.description}, batch ${i}` };
    ids.push((await (await post(app, "/api/v1/intake", lead)).json()).request_id);
    app.clock.advance(1);
  }
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, 3);
});

Deno.test("POST /api/v1/intake lists every field problem at once and stores nothing", async (t) => {
  await using app = await createApp();
  const cases: [string, unknown, string[]][] = [
    ["an empty object", {}, ["email", "description"]],
    ["a bad email and a blank description", { email: "not-an-email", description: "   " }, [
      "email",
      "description",
    ]],
    ["over-long fields", {
      ...LEAD,
      description: "x".repeat(5001),
      company: "c".repeat(201),
      contact_name: "n".repeat(201),
      city: "y".repeat(201),
      service_type: "s".repeat(201),
    }, ["description", "company", "contact_name", "city", "service_type"]],
    ["wrong types", { email: 42, description: ["x"], company: 1 }, [
      "email",
      "description",
      "company",
    ]],
    ["agent_context_optional not an object", { ...LEAD, agent_context_optional: "x" }, [
      "agent_context_optional",
    ]],
    ["agent_context_optional over 4 KiB", {
      ...LEAD,
      agent_context_optional: { blob: "z".repeat(4100) },
    }, [
      "agent_context_optional",
    ]],
    ["an email over 254 characters", { ...LEAD, email: `${"a".repeat(250)}@example.com` }, [
      "email",
    ]],
    ["a JSON array", [LEAD], ["(body)"]],
    ["JSON null", null, ["(body)"]],
  ];
  for (const [name, body, paths] of cases) {
    await t.step(name, async () => {
      const res = await post(app, "/api/v1/intake", body);
      assert.equal(res.status, 400);
      const json = await res.json();
      assert.equal(json.ok, false);
      assert.equal(json.error, "validation_failed");
      assert.equal(typeof json.message, "string");
      assert.deepEqual(json.issues.map((i: { path: string }) => i.path), paths);
      assert.ok(json.issues.every((i: { message: string }) => i.message.length > 0));
    });
  }
  assert.equal(await storedKeys(app), 0);
});

Deno.test("POST /api/v1/intake rejects non-JSON with 415, bad JSON with 400 and over 64 KiB with 413", async (t) => {
  await using app = await createApp();
  await t.step("a form body is 415", async () => {
    const res = await post(app, "/api/v1/intake", "email=a", {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    assert.equal(res.status, 415);
    assert.equal((await res.json()).error, "unsupported_media_type");
  });
  await t.step("no content type is 415", async () => {
    const res = await app.request("/api/v1/intake", { method: "POST", body: JSON.stringify(LEAD) });
    assert.equal(res.status, 415);
    await res.body?.cancel();
  });
  await t.step("application/json with a charset is accepted", async () => {
    const res = await post(app, "/api/v1/intake", LEAD, {
      "Content-Type": "application/json; charset=utf-8",
    });
    assert.equal(res.status, 202);
    await res.body?.cancel();
  });
  await t.step("malformed JSON is 400 invalid_json", async () => {
    const res = await post(app, "/api/v1/intake", "{");
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_json");
  });
  await t.step("a body over 64 KiB is 413", async () => {
    const res = await post(app, "/api/v1/intake", { ...LEAD, extra: "x".repeat(64 * 1024) });
    assert.equal(res.status, 413);
    assert.equal((await res.json()).error, "payload_too_large");
  });
  // Only the one accepted lead: its record, its payload, its review notice (and its keys in
  // the due index and the new-notice lane), the same-request replay record with its
  // pointer, and its time and email index keys; and the store's email index key, made at
  // the first submission.
  assert.equal(await storedKeys(app), 10);
});

Deno.test("a submission just under 64 KiB of multi-byte text is stored whole", async () => {
  await using app = await createApp();
  // Every declared field near its limit, in 2- and 4-byte characters: about 60 KB.
  const quote = {
    ...QUOTE,
    description: "😀".repeat(2500),
    site_address: "é".repeat(500),
    attachments_optional: Array.from({ length: 10 }, (_, i) => `${i}${"ü".repeat(2040)}`),
    agent_context_optional: { note: "ß".repeat(1900) },
    reference: "€".repeat(1300),
  };
  const body = JSON.stringify(quote);
  assert.ok(new TextEncoder().encode(body).byteLength > 56_000);
  assert.ok(new TextEncoder().encode(body).byteLength < 64 * 1024);
  const res = await post(app, "/api/v1/quotes", body);
  assert.equal(res.status, 202, await res.clone().text());
  const { request_id } = await res.json();
  const record = (await getSubmission(app.kv, request_id)).value!;
  assert.equal(record.payload.chunks, 2);
  const stored = JSON.parse(await getSubmissionPayload(app.kv, record));
  assert.equal(stored.description, quote.description);
  assert.deepEqual(stored.attachments_optional, quote.attachments_optional);
  assert.equal(stored.reference, quote.reference);
});

Deno.test("POST /api/v1/intake and /quotes share RATE_LIMIT_SUBMIT per client address", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "2" } });
  const a = await post(app, "/api/v1/intake", LEAD);
  const b = await post(app, "/api/v1/quotes", {});
  assert.equal(a.status, 202);
  assert.equal(b.status, 400);
  assert.equal(b.headers.get("ratelimit-policy"), '"submit";q=2;w=60');
  await a.body?.cancel();
  await b.body?.cancel();
  const c = await post(app, "/api/v1/intake", LEAD);
  assert.equal(c.status, 429);
  assert.ok(c.headers.get("retry-after"));
  assert.equal((await c.json()).error, "rate_limited");
  const other = await post(app, "/api/v1/intake", LEAD, {});
  await other.body?.cancel();
  const elsewhere = await post(app, "/api/v1/intake", LEAD, {}, "198.51.100.9");
  assert.equal(elsewhere.status, 202);
  await elsewhere.body?.cancel();
});

Deno.test("Idempotency-Key replays the first answer for the same body", async () => {
  await using app = await createApp();
  const first = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": "key-1" });
  assert.equal(first.status, 202);
  assert.equal(first.headers.get("idempotent-replayed"), null);
  const firstBody = await first.json();
  const again = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": '"key-1"' });
  assert.equal(again.status, 202);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  assert.deepEqual(await again.json(), { ...firstBody, replayed: true });
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("Idempotency-Key with a different body is 409 and stores nothing", async () => {
  await using app = await createApp();
  (await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": "key-2" })).body?.cancel();
  const res = await post(app, "/api/v1/intake", { ...LEAD, description: "changed" }, {
    "Idempotency-Key": "key-2",
  });
  assert.equal(res.status, 409);
  assert.equal((await res.json()).error, "idempotency_key_reused");
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("Idempotency-Key is scoped per endpoint and per caller address", async (t) => {
  await using app = await createApp();
  const lead = await (await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": "shared" }))
    .json();
  await t.step("the same key on /quotes is a different key", async () => {
    const res = await post(app, "/api/v1/quotes", {}, { "Idempotency-Key": "shared" });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "validation_failed");
  });
  await t.step("another address cannot replay or block someone else's key", async () => {
    const res = await post(
      app,
      "/api/v1/intake",
      { ...LEAD, description: "a different lead" },
      { "Idempotency-Key": "shared" },
      "198.51.100.7",
    );
    assert.equal(res.status, 202);
    assert.notEqual((await res.json()).request_id, lead.request_id);
  });
});

Deno.test("Idempotency-Key compares bodies as JSON, not as bytes", async () => {
  await using app = await createApp();
  const first =
    await (await post(app, "/api/v1/intake", { email: LEAD.email, description: LEAD.description }, {
      "Idempotency-Key": "order",
    })).json();
  const reordered = await post(
    app,
    "/api/v1/intake",
    `{ "description": ${JSON.stringify(LEAD.description)},\n  "email": ${
      JSON.stringify(LEAD.email)
    } }`,
    { "Idempotency-Key": "order" },
  );
  assert.equal(reordered.status, 202);
  assert.equal(reordered.headers.get("idempotent-replayed"), "true");
  assert.equal((await reordered.json()).request_id, first.request_id);
});

Deno.test("Idempotency-Key is forgotten after 24 h", async () => {
  await using app = await createApp();
  const lead = await (await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": "key-3" }))
    .json();
  app.clock.advance(24 * 3_600_000 + 1);
  const later = await post(app, "/api/v1/intake", { ...LEAD, description: "new" }, {
    "Idempotency-Key": "key-3",
  });
  assert.equal(later.status, 202);
  const laterBody = await later.json();
  assert.notEqual(laterBody.request_id, lead.request_id);
  // The new answer is now the one replayed.
  const replay = await post(app, "/api/v1/intake", { ...LEAD, description: "new" }, {
    "Idempotency-Key": "key-3",
  });
  assert.equal((await replay.json()).request_id, laterBody.request_id);
});

Deno.test("concurrent requests with one Idempotency-Key store one submission", async () => {
  await using app = await createApp();
  const responses = await Promise.all(
    Array.from(
      { length: 10 },
      () => post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": "same" }),
    ),
  );
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.ok(responses.every((r) => r.status === 202));
  assert.equal(new Set(bodies.map((b) => b.request_id)).size, 1);
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("a malformed Idempotency-Key is 400 invalid_idempotency_key", async (t) => {
  await using app = await createApp();
  for (const key of ["", "a b", "x".repeat(256), "é"]) {
    await t.step(JSON.stringify(key.slice(0, 10)), async () => {
      const res = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": key });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error, "invalid_idempotency_key");
    });
  }
});

Deno.test("agent_context_optional of exactly 4 KiB is accepted", async () => {
  await using app = await createApp();
  const filler = "x".repeat(4096 - JSON.stringify({ blob: "" }).length);
  const context = { blob: filler };
  assert.equal(new TextEncoder().encode(JSON.stringify(context)).byteLength, 4096);
  const res = await post(app, "/api/v1/intake", { ...LEAD, agent_context_optional: context });
  assert.equal(res.status, 202);
  await res.body?.cancel();
});

Deno.test("additional properties count as stored: numbers that re-serialise longer are measured after", async () => {
  await using app = await createApp();
  // "1e20" (4 bytes) is stored as "100000000000000000000" (21 bytes): 200 of them pass 4 KiB.
  const body = JSON.stringify({ ...LEAD, numbers: Array(200).fill(0) })
    .replaceAll(/\b0\b/g, "1e20");
  assert.ok(body.length < 4096);
  const res = await post(app, "/api/v1/intake", body);
  assert.equal(res.status, 400);
  const { issues } = await res.json();
  assert.match(issues[0].message, /additional properties are at most 4096 bytes as JSON/);
  assert.equal(await countSubmissions(app), 0);
});

Deno.test("a submission carries at most 16 additional properties, named in at most 64 characters, 4 KiB together", async (t) => {
  await using app = await createApp();
  const extras = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`x${i}`, i]));
  await t.step("16 are kept", async () => {
    const res = await post(app, "/api/v1/intake", { ...LEAD, ...extras(16) });
    assert.equal(res.status, 202);
    await res.body?.cancel();
  });
  await t.step(
    "17, a long name and too many bytes: every problem at once, with the fields'",
    async () => {
      const body = {
        email: "not an email",
        description: "x",
        ...extras(16),
        ["n".repeat(65)]: 1,
        blob: "b".repeat(4_000),
      };
      const res = await post(app, "/api/v1/quotes", body);
      assert.equal(res.status, 400);
      const { error, issues } = await res.json();
      assert.equal(error, "validation_failed");
      const messages = issues.map((i: { message: string }) => i.message).join("\n");
      assert.match(messages, /email must be a valid email address/);
      assert.match(messages, /company is required/);
      assert.match(messages, /at most 16 additional properties are kept; this request has 18/);
      assert.match(messages, /an additional property name is at most 64 characters/);
      assert.match(messages, /additional properties are at most 4096 bytes as JSON together/);
    },
  );
  assert.equal(await countSubmissions(app), 1);
});

/** POSTs a quote with a 255-character Idempotency-Key from an IPv6 address: the most stored. */
function postLongestKey(app: TestApp, quote: Record<string, unknown>): Promise<Response> {
  const ipv6 = "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff";
  return post(app, "/api/v1/quotes", quote, { "Idempotency-Key": "k".repeat(255) }, ipv6);
}

Deno.test("the stored bound holds for caller text the estimate could echo: a long non-ASCII city, long synonyms", async () => {
  await using app = await createApp();
  // F3 of issue 19: the estimate's note and assumptions may name what the caller sent. A
  // city that resolves to another country (so the note quotes it), every estimate input
  // under a 64-character synonym, and the stored JSON at exactly 64 KiB.
  const pad = (name: string) => name.padEnd(64, "_");
  const { estimated_hours: _, engineer_count: __, ...rest } = QUOTE;
  const quote: Record<string, unknown> = {
    ...rest,
    city: `Frankfurt, ${"東".repeat(189)}`,
    country: "US",
    description: "\u0001".repeat(5000),
    attachments_optional: Array.from({ length: 10 }, () => "\u0002".repeat(495)),
    agent_context_optional: { n: "\u0003".repeat(500) },
    [pad("engineers")]: 2,
    [pad("hours")]: 3,
    [pad("after_hours")]: true,
    [pad("date")]: "2026-12-05",
    [pad("time")]: "22:00",
    ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`.padEnd(64, "k"), ""])),
  };
  const size = () => new TextEncoder().encode(JSON.stringify(quote)).byteLength;
  // The request at its limit (the stored JSON is smaller: fields, not long synonyms).
  quote["k10".padEnd(64, "k")] = "x".repeat(SUBMISSION_MAX_BODY - size());
  const res = await postLongestKey(app, quote);
  assert.equal(res.status, 202, await res.clone().text());
  const { budget_estimate: e } = await res.json();
  const read = e.assumptions.filter((a: { why: string }) => a.why.startsWith("read from "));
  assert.equal(read.length, 5, "each input read from its synonym, the date and time too");
  // Over the bound as built, the estimate's texts are stored with "?" for what Latin-1 lacks.
  assert.match(e.note, /No city "Frankfurt, \?+\.\.\." is known in US/);
  await failDelivery(app);
  const bytes = await storedBytes(app.kv);
  assert.ok(bytes <= MAX_STORED_PER_SUBMISSION, `${bytes} > ${MAX_STORED_PER_SUBMISSION}`);
});

Deno.test("the store grows at most MAX_STORED_PER_SUBMISSION bytes per accepted submission", async () => {
  await using app = await createApp();
  // The largest accepted quote: its stored JSON exactly 64 KiB, control characters (6
  // bytes each as JSON) in the references, an uncovered city and no hours (so the
  // estimate carries its notes), a 255-character Idempotency-Key, an IPv6 address, and
  // a notice whose delivery failed with a long error.
  const quote = largestQuote();
  const size = () => new TextEncoder().encode(JSON.stringify(quote)).byteLength;
  assert.equal(size(), SUBMISSION_MAX_BODY);
  const res = await postLongestKey(app, quote);
  assert.equal(res.status, 202, await res.clone().text());
  await res.body?.cancel();
  await failDelivery(app);
  const bytes = await storedBytes(app.kv);
  assert.ok(
    bytes > SUBMISSION_MAX_BODY + 2 * 1024,
    `the test submission is at the limit: ${bytes}`,
  );
  assert.ok(bytes <= MAX_STORED_PER_SUBMISSION, `${bytes} > ${MAX_STORED_PER_SUBMISSION}`);
});

Deno.test("a submission nested deeper than 32 levels is 400 and nothing is stored", async (t) => {
  await using app = await createApp();
  const nest = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  for (const path of ["/api/v1/intake", "/api/v1/quotes"]) {
    await t.step(`${path}: 5,000 levels (10 KB) is a 400 listing the problem`, async () => {
      const body = JSON.stringify(LEAD).replace(/}$/, `,"nested":${nest(5_000)}}`);
      const res = await post(app, path, body);
      assert.equal(res.status, 400);
      const err = await res.json();
      assert.equal(err.error, "validation_failed");
      assert.match(err.issues[0].message, /nested deeper than 32 levels/);
    });
  }
  await t.step("31 levels below the top-level object are accepted", async () => {
    const body = JSON.stringify(LEAD).replace(/}$/, `,"nested":${nest(31)}}`);
    assert.equal((await post(app, "/api/v1/intake", body)).status, 202);
  });
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("RATE_LIMIT_SUBMIT_GLOBAL caps submissions from all addresses together", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT_GLOBAL: "3" } });
  const statuses = [];
  for (let i = 0; i < 5; i++) {
    const res = await post(app, "/api/v1/intake", LEAD, {}, `198.51.100.${i}`);
    statuses.push(res.status);
    if (res.status === 429) {
      assert.ok(res.headers.get("retry-after"));
      assert.match((await res.json()).message, /all callers together/);
    } else await res.body?.cancel();
  }
  assert.deepEqual(statuses, [202, 202, 202, 429, 429]);
});

Deno.test("REST takes the idempotency key as the idempotency_key field too, and refuses a field that contradicts the header", async (t) => {
  await using app = await createApp();
  await t.step("the field alone replays like the header", async () => {
    const body = { ...LEAD, idempotency_key: "field-1" };
    const first = await (await post(app, "/api/v1/intake", body)).json();
    const again = await post(app, "/api/v1/intake", body);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal((await again.json()).request_id, first.request_id);
    // The header with the same key and the same request is the same replay.
    const viaHeader = await post(app, "/api/v1/intake", LEAD, { "Idempotency-Key": "field-1" });
    assert.equal((await viaHeader.json()).request_id, first.request_id);
    const stored = await getSubmissionPayload(
      app.kv,
      (await getSubmission(app.kv, first.request_id)).value!,
    );
    assert.equal(JSON.parse(stored).idempotency_key, undefined, "the key is not stored");
  });
  await t.step("a header and a field that differ are 400 invalid_idempotency_key", async () => {
    const res = await post(app, "/api/v1/intake", { ...LEAD, idempotency_key: "a-1" }, {
      "Idempotency-Key": "b-2",
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_idempotency_key");
  });
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("a lead's service_type is stored as the catalog id when it names a service, and kept as free text when not", async () => {
  await using app = await createApp();
  const understood = await (await post(app, "/api/v1/intake", { ...LEAD, service_type: "RMA" }))
    .json();
  assert.equal(understood.service_id, "hardware-swap");
  assert.equal(
    (await getSubmission(app.kv, understood.request_id)).value?.service_id,
    "hardware-swap",
  );
  const free = await (await post(app, "/api/v1/intake", {
    ...LEAD,
    service_type: "help with our UPS batteries",
  })).json();
  assert.equal(free.service_id, null);
  const record = (await getSubmission(app.kv, free.request_id)).value!;
  assert.equal(record.service_id, null);
  assert.equal(
    JSON.parse(await getSubmissionPayload(app.kv, record)).service_type,
    "help with our UPS batteries",
    "kept as written, for a person",
  );
});

Deno.test("retries are safe by default: two identical keyless submissions store one, and the replay says so", async (t) => {
  await using app = await createApp();
  for (const [path, body] of [["/api/v1/intake", LEAD], ["/api/v1/quotes", QUOTE]] as const) {
    await t.step(path, async () => {
      const first = await (await post(app, path, body)).json();
      assert.equal(first.replayed, false);
      const again = await post(app, path, body);
      assert.equal(again.status, 202);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(await again.json(), { ...first, replayed: true });
      const other = await (await post(app, path, { ...body, description: "Other work" })).json();
      assert.notEqual(other.request_id, first.request_id, "other arguments are a new request");
    });
  }
  await t.step("each kind stored once per distinct request", async () => {
    assert.equal(await countSubmissions(app), 4);
  });
  await t.step("after 10 minutes the same request is a new one", async () => {
    app.clock.advance(10 * 60 * 1000 + 1);
    const later = await (await post(app, "/api/v1/intake", LEAD)).json();
    assert.equal(later.replayed, false);
    assert.equal(await countSubmissions(app), 5);
  });
});

Deno.test("retries are safe by default over MCP too: an identical submit_lead replays, replayed: true", async () => {
  await using app = await createApp();
  const first = (await mcpToolCall(app, "submit_lead", LEAD)).structuredContent;
  const again = (await mcpToolCall(app, "submit_lead", LEAD)).structuredContent;
  assert.equal(first.replayed, false);
  assert.deepEqual(again, { ...first, replayed: true });
  assert.equal(await countSubmissions(app), 1);
});

Deno.test("a submission that keeps losing its idempotency race is a 503 with Retry-After, not a 500", async () => {
  // A store on which every commit that writes a submission fails its checks, as when other
  // requests with the same key keep committing first.
  const real = await Deno.openKv(":memory:");
  const losingAtomic = () => {
    const op = real.atomic();
    let submission = false;
    const set = op.set.bind(op);
    op.set = (key, value, options) => {
      if (key[0] === "submissions") submission = true;
      return set(key, value, options);
    };
    const commit = op.commit.bind(op);
    op.commit = () => submission ? Promise.resolve({ ok: false } as Deno.KvCommitError) : commit();
    return op;
  };
  const losing = new Proxy(real, {
    get(target, prop) {
      if (prop === "atomic") return losingAtomic;
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await using app = await createApp({ kv: losing });
  const res = await post(app, "/api/v1/quotes", QUOTE, { "Idempotency-Key": "race-1" });
  assert.equal(res.status, 503, await res.clone().text());
  assert.ok(res.headers.get("retry-after"));
  assert.equal((await res.json()).error, "temporarily_unavailable");
  assert.equal(await countSubmissions(app), 0);
  real.close();
});
