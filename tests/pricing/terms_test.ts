/**
 * The commercial terms, stated: the catalog says its currency (EUR at every site) and which
 * tax is added where; every estimate says its currency and that tax is excluded, naming the
 * site's tax; a request for another currency is answered in EUR with what the service can do,
 * and request_quote keeps the asked code for the reviewer.
 */
import assert from "node:assert/strict";
import { getSubmission, getSubmissionPayload } from "../../src/store/submissions.ts";
import { QUOTE } from "../_fixtures.ts";
import {
  bearerGet,
  catalog,
  countSubmissions,
  createApp,
  issueToken,
  mcpToolCall,
  post,
  registerClient,
  type TestApp,
} from "../_helpers.ts";
import { reviewCli } from "../_service.ts";

const JOB = {
  city: "Ashburn VA",
  service_type: "rack-and-stack",
  engineer_count: 2,
  estimated_hours: 3,
};

function estimateUrl(job: Record<string, unknown>): string {
  const query = new URLSearchParams(Object.entries(job).map(([k, v]) => [k, String(v)]));
  return `/api/v1/estimate?${query}`;
}

async function restEstimate(app: TestApp, job: Record<string, unknown>) {
  const res = await app.request(estimateUrl(job));
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.budget_estimate;
}

Deno.test("the catalog states its terms: EUR at every site, tax excluded, which tax where", async (t) => {
  await using app = await createApp();
  const { terms, locations, services } = catalog();
  await t.step("GET /api/v1/services", async () => {
    const body = await (await app.request("/api/v1/services")).json();
    assert.deepEqual(body.terms, terms);
    assert.equal(body.terms.currency, "EUR");
    assert.equal(body.terms.tax_included, false);
    assert.match(body.terms.statement, /in euros \(EUR\), at every site .* excludes tax/);
    assert.ok(services.every((s) => s.pricing.currency === "EUR"));
  });
  await t.step("every covered country has its tax: VAT in Europe, GST, sales tax...", () => {
    const tax = new Map(terms.tax.flatMap((r) => r.countries.map((c) => [c, r.tax])));
    for (const l of locations) assert.ok(tax.has(l.country), l.country);
    for (const c of ["DE", "NL", "GB", "CH", "NO"]) assert.equal(tax.get(c), "VAT", c);
    assert.deepEqual(
      ["AU", "SG", "JP", "US"].map((c) => tax.get(c)),
      ["GST", "GST", "consumption tax", "sales tax"],
    );
    // Names only: a rate would be a promise the quotation has to keep.
    assert.doesNotMatch(JSON.stringify(terms), /\d+ ?%/);
  });
  await t.step("the list_services tool and the agent read carry the same terms", async () => {
    const tool = await mcpToolCall(app, "list_services", {});
    assert.deepEqual(tool.structuredContent.terms, terms);
    const token = await issueToken(app, await registerClient(app));
    const agent = await (await bearerGet(app, "/api/v1/agent/services", token)).json();
    assert.deepEqual(agent.terms, terms);
  });
  await t.step("the home page's catalog section states them", async () => {
    const html = await (await app.request("/")).text();
    const section = html.slice(html.indexOf('id="services"'), html.indexOf('id="service-list"'));
    assert.match(section, /in euros \(EUR\), at every site whatever its country, and excludes tax/);
    assert.match(section, /VAT \([^)]*Germany[^)]*United Kingdom[^)]*\)/);
    assert.match(section, /sales tax \(United States\)/);
    assert.match(section, /consumption tax \(Japan\)/);
  });
});

Deno.test("every estimate says its currency and that tax is excluded, naming the site's tax", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const cases: [string, RegExp][] = [
    ["Ashburn VA", /adds sales tax where it applies in the site's country \(United States\)/],
    ["Amsterdam", /adds VAT where it applies in the site's country \(Netherlands\)/],
    ["Tokyo", /adds consumption tax where it applies in the site's country \(Japan\)/],
    ["London", /adds VAT where it applies in the site's country \(United Kingdom\)/],
    ["Sydney", /adds GST where it applies in the site's country \(Australia\)/],
    ["Utopia", /adds the tax of the site's country where it applies/],
  ];
  for (const [city, tax] of cases) {
    await t.step(`${city}: REST, MCP and request_quote alike`, async () => {
      const job = { ...JOB, city };
      const rest = await restEstimate(app, job);
      assert.equal(rest.currency, "EUR");
      assert.equal(rest.tax_included, false);
      assert.match(rest.tax, /^Excludes tax: /);
      assert.match(rest.tax, tax);
      const tool = await mcpToolCall(app, "estimate_quote", job);
      assert.deepEqual(tool.structuredContent.budget_estimate, rest);
      const quote = await post(app, "/api/v1/quotes", { ...QUOTE, ...job });
      assert.equal(quote.status, 202);
      assert.deepEqual((await quote.json()).budget_estimate, rest);
    });
  }
});

Deno.test("another currency is answered in EUR, saying what the service can do", async (t) => {
  await using app = await createApp();
  // Without hours, so that the note has a sentence before the currency's.
  const { estimated_hours: _, ...job } = JOB;
  const plain = await restEstimate(app, job);
  const usd = await restEstimate(app, { ...job, currency: "usd" });
  await t.step("the estimate is the same price in EUR, with an assumption and a note", () => {
    assert.equal(usd.currency, "EUR");
    assert.deepEqual([usd.low, usd.high, usd.basis], [plain.low, plain.high, plain.basis]);
    assert.deepEqual(usd.assumptions.at(-1), {
      field: "currency",
      value: "EUR",
      why: "USD was asked: prices and quotations are in EUR only",
    });
    assert.equal(usd.assumptions.length, plain.assumptions.length + 1);
    assert.equal(
      usd.note,
      `${plain.note} Prices and quotations are in EUR only; USD was asked: this estimate is ` +
        "in EUR, and a quote request keeps USD for the person who reviews it.",
    );
  });
  await t.step("estimate_quote answers the same", async () => {
    const tool = await mcpToolCall(app, "estimate_quote", { ...job, currency: "USD" });
    assert.equal(tool.isError, undefined);
    assert.deepEqual(tool.structuredContent.budget_estimate, usd);
  });
  await t.step("EUR, in any case, is as if no currency was asked", async () => {
    for (const currency of ["EUR", "eur", " Eur "]) {
      assert.deepEqual(await restEstimate(app, { ...job, currency }), plain, currency);
    }
  });
  await t.step("request_quote stores the asked code with the request", async () => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, currency: "gbp" });
    assert.equal(res.status, 202);
    const body = await res.json();
    assert.equal(body.budget_estimate.currency, "EUR");
    assert.match(body.budget_estimate.note, /GBP was asked: this estimate is in EUR/);
    const record = (await getSubmission(app.kv, body.request_id)).value!;
    assert.equal(JSON.parse(await getSubmissionPayload(app.kv, record)).currency, "GBP");
    assert.match(record.budget_estimate?.note ?? "", /GBP was asked/);
  });
});

Deno.test("the reviewer sees the currency asked for, in deno task review show", async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-terms-" });
  const kvPath = `${dir}/kv.sqlite3`;
  try {
    let id: string;
    {
      await using app = await createApp({ kv: await Deno.openKv(kvPath) });
      const res = await mcpToolCall(app, "request_quote", { ...QUOTE, currency: "JPY" });
      assert.equal(res.isError, undefined);
      id = String(res.structuredContent.request_id);
      app.kv.close();
    }
    const shown = await reviewCli(kvPath, "show", id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /"currency": "JPY"/);
    assert.match(shown.stdout, /note: .*JPY was asked: this estimate is in EUR/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a malformed currency is 400 saying what to send, and nothing is stored", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "0" } });
  const wanted = /^currency must be a three-letter ISO 4217 code such as EUR or USD .*; got /;
  await t.step("GET /api/v1/estimate with currency=dollars, US$ or €", async () => {
    for (const currency of ["dollars", "US$", "€"]) {
      const res = await app.request(estimateUrl({ ...JOB, currency }));
      assert.equal(res.status, 400, currency);
      const body = await res.json();
      assert.equal(body.error, "validation_failed");
      assert.deepEqual(body.issues.map((i: { path: string }) => i.path), ["currency"]);
      assert.match(body.issues[0].message, wanted);
    }
  });
  await t.step(
    "GET /api/v1/estimate with currency= (empty): not given, as a form's field",
    async () => {
      const res = await app.request(estimateUrl({ ...JOB, currency: "" }));
      assert.equal(res.status, 200);
      const { budget_estimate: e } = await res.json();
      assert.equal(e.currency, "EUR");
      assert.ok(!e.assumptions.some((a: { field: string }) => a.field === "currency"));
    },
  );
  await t.step("estimate_quote with an empty string, or a number", async () => {
    const empty = await mcpToolCall(app, "estimate_quote", { ...JOB, currency: "" });
    assert.equal(empty.isError, true, "an empty string sent as JSON is a value, refused");
    assert.match(
      (empty.structuredContent.issues as { message: string }[])[0]!.message,
      wanted,
    );
    const r = await mcpToolCall(app, "estimate_quote", { ...JOB, currency: 5 });
    assert.equal(r.isError, true);
    const issues = r.structuredContent.issues as { path: string; message: string }[];
    assert.deepEqual(issues.map((i) => i.path), ["currency"]);
    assert.match(issues[0]!.message, /got the number 5$/);
  });
  await t.step("request_quote, REST and MCP", async () => {
    const res = await post(app, "/api/v1/quotes", { ...QUOTE, currency: "dollars" });
    assert.equal(res.status, 400);
    assert.match((await res.json()).issues[0].message, /got the string "dollars"$/);
    const r = await mcpToolCall(app, "request_quote", { ...QUOTE, currency: ["EUR"] });
    assert.equal(r.isError, true);
    assert.equal(await countSubmissions(app), 0);
  });
});
