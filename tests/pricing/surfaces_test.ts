/**
 * One pricing engine, one answer: a table of jobs priced through every surface that prices
 * (GET /api/v1/estimate, MCP estimate_quote, POST /api/v1/quotes, MCP request_quote, the
 * home page's form posted without script and, in Chromium, with its script) gives the same
 * estimate for the same job. An unset form field is "not said" on every surface.
 */

import assert from "node:assert/strict";
import type { Browser, Page } from "npm:playwright-core@1.65.1";
import { createApp, FakeClock, listen, mcpToolCall, post, type TestApp } from "../_helpers.ts";
import { money } from "../../src/web/words.js";

const CHROMIUM = "/usr/bin/chromium";
const REQUIRED = Deno.env.get("REQUIRE_BROWSER") === "1";

/** 2026-11-24 18:53 UTC, when the prices were taken. */
function clock(): FakeClock {
  const c = new FakeClock();
  c.t = Date.UTC(2026, 10, 24, 18, 53);
  return c;
}

/** A job as the quote form takes it: only what a person would fill in. */
interface Job {
  city: string;
  country?: string;
  service_type: string;
  engineer_count?: number;
  estimated_hours?: number;
  requested_date?: string;
  requested_time?: string;
  /** Ticked in the form; absent is "not said". */
  out_of_hours?: true;
}

const JOBS: readonly Job[] = [
  // The evening job: the form's unticked box used to price it at business rates.
  {
    city: "Amsterdam",
    country: "NL",
    service_type: "rack-and-stack",
    engineer_count: 2,
    estimated_hours: 6,
    requested_date: "2026-12-01",
    requested_time: "19:00",
  },
  { city: "Frankfurt", country: "DE", service_type: "remote-hands" },
  // Starts in business hours and runs past 18:00.
  {
    city: "Amsterdam",
    country: "NL",
    service_type: "structured-cabling",
    estimated_hours: 6,
    requested_date: "2026-12-02",
    requested_time: "17:30",
  },
  // Christmas Day, a Friday and a public holiday at the site: out of hours all day.
  { city: "Amsterdam", country: "NL", service_type: "smart-hands", requested_date: "2026-12-25" },
  {
    city: "Tokyo",
    country: "JP",
    service_type: "fiber-testing",
    engineer_count: 3,
    requested_date: "2026-12-05",
    requested_time: "10:00",
  },
  // Ticked: out of hours whatever the time.
  {
    city: "London",
    country: "GB",
    service_type: "hardware-swap",
    requested_date: "2026-12-03",
    requested_time: "09:00",
    out_of_hours: true,
  },
  // Outside coverage, and no time given.
  { city: "Reykjavik", service_type: "site-audit", estimated_hours: 10 },
];

const CONTACT = {
  company: "Example GmbH",
  contact_name: "Kim Muster",
  email: "kim@example.com",
  description: "Surface comparison",
};

type Estimate = { low: number; high: number; currency: string } & Record<string, unknown>;

async function restEstimate(app: TestApp, job: Job): Promise<Estimate> {
  const query = new URLSearchParams(Object.entries(job).map(([k, v]) => [k, String(v)]));
  const res = await app.request(`/api/v1/estimate?${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).budget_estimate;
}

async function mcpEstimate(app: TestApp, job: Job): Promise<Estimate> {
  const result = await mcpToolCall(app, "estimate_quote", job);
  assert.ok(!result.isError, JSON.stringify(result));
  return result.structuredContent.budget_estimate as Estimate;
}

async function restQuote(app: TestApp, job: Job, n: number): Promise<Estimate> {
  const res = await post(app, "/api/v1/quotes", { ...CONTACT, ...job, description: `rest ${n}` });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).budget_estimate;
}

async function mcpQuote(app: TestApp, job: Job, n: number): Promise<Estimate> {
  const result = await mcpToolCall(app, "request_quote", {
    ...CONTACT,
    ...job,
    description: `mcp ${n}`,
  });
  assert.ok(!result.isError, JSON.stringify(result));
  return result.structuredContent.budget_estimate as Estimate;
}

/** The form posted without script: every control, empty ones as empty strings. */
async function formWithoutScript(app: TestApp, job: Job, n: number): Promise<string> {
  const fields = new URLSearchParams({
    ...CONTACT,
    description: `form ${n}`,
    phone: "",
    site_address: "",
    city: job.city,
    country: job.country ?? "",
    service_type: job.service_type,
    requested_date: job.requested_date ?? "",
    requested_time: job.requested_time ?? "",
    engineer_count: job.engineer_count === undefined ? "" : String(job.engineer_count),
    estimated_hours: job.estimated_hours === undefined ? "" : String(job.estimated_hours),
  });
  // A ticked checkbox is sent as "on"; an unticked one is not sent at all.
  if (job.out_of_hours) fields.set("out_of_hours", "on");
  const res = await app.request("/forms/quote", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: fields,
  });
  const html = await res.text();
  assert.equal(res.status, 202, html);
  return _range(html);
}

/** The estimate range a receipt page shows, its HTML entities read. */
function _range(html: string): string {
  const match = html.match(/<p class="estimate-range">([^<]*)<\/p>/);
  assert.ok(match, "the receipt shows an estimate range");
  return match[1]!.replaceAll("&amp;", "&");
}

function shown(e: Estimate): string {
  return `${money(e.low, e.currency)} – ${money(e.high, e.currency)}`;
}

Deno.test("every surface prices the same job the same", async (t) => {
  await using app = await createApp({
    clock: clock(),
    env: { RATE_LIMIT_SUBMIT: "0", RATE_LIMIT_SUBMIT_GLOBAL: "0", RATE_LIMIT_MCP: "0" },
  });
  for (const [n, job] of JOBS.entries()) {
    await t.step(`${job.city} ${job.service_type} ${job.requested_time ?? ""}`, async () => {
      const reference = await restEstimate(app, job);
      assert.deepEqual(await mcpEstimate(app, job), reference, "MCP estimate_quote");
      assert.deepEqual(await restQuote(app, job, n), reference, "POST /api/v1/quotes");
      assert.deepEqual(await mcpQuote(app, job, n), reference, "MCP request_quote");
      assert.equal(await formWithoutScript(app, job, n), shown(reference), "form, no script");
    });
  }
});

Deno.test("the table's anchors: evening work, a job running past 18:00, a holiday", async () => {
  await using app = await createApp({ clock: clock() });
  // 110 € × 2 engineers × 6 h × 1.5 + 75 € call-out; the top adds 25 % to the labour.
  assert.equal(shown(await restEstimate(app, JOBS[0]!)), "€2,055 – €2,550");
  // 120 € × (0.5 h + 5.5 h × 1.75) + 150 € call-out.
  const span = await restEstimate(app, JOBS[2]!);
  assert.equal(shown(span), "€1,365 – €1,668.75");
  assert.equal((span.basis as { hours_out_of_hours: number }).hours_out_of_hours, 5.5);
  // 135 € × 1 h × 1.75 on Christmas Day.
  assert.equal(shown(await restEstimate(app, JOBS[3]!)), "€236.25 – €295.31");
});

Deno.test({
  name: "the home page's form, with its script, shows what the API prices",
  ignore: !REQUIRED && !_chromiumPresent(),
  async fn(t) {
    const { chromium } = await import("npm:playwright-core@1.65.1");
    await using app = await listen({
      clock: clock(),
      env: { RATE_LIMIT_SUBMIT: "0", RATE_LIMIT_SUBMIT_GLOBAL: "0" },
    });
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (err) => errors.push(err.message));
      await page.goto(app.baseUrl);
      for (const [n, job] of JOBS.entries()) {
        await t.step(`${job.city} ${job.service_type} ${job.requested_time ?? ""}`, async () => {
          const expected = shown(await restEstimate(app, job));
          assert.equal(await _submitInPage(page, job, n), expected);
        });
      }
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  },
});

/** Fills the quote form as a person would, sends it, and reads the receipt's range. */
async function _submitInPage(page: Page, job: Job, n: number): Promise<string> {
  await page.fill("#q-company", CONTACT.company);
  await page.fill("#q-contact", CONTACT.contact_name);
  await page.fill("#q-email", CONTACT.email);
  await page.fill("#q-city", job.city);
  await page.selectOption("#q-country", job.country ?? "");
  await page.selectOption("#q-service", job.service_type);
  await page.fill("#q-description", `browser ${n}`);
  await page.fill("#q-date", job.requested_date ?? "");
  await page.fill("#q-time", job.requested_time ?? "");
  await page.fill("#q-engineers", job.engineer_count === undefined ? "" : `${job.engineer_count}`);
  await page.fill("#q-hours", job.estimated_hours === undefined ? "" : `${job.estimated_hours}`);
  await page.setChecked("#q-ooh", job.out_of_hours === true);
  await page.click("#quote-form button[type=submit]");
  const range = page.locator("#quote-result .estimate-range");
  await range.waitFor();
  const text = (await range.textContent())?.trim() ?? "";
  // The next job starts from an empty result box.
  await page.evaluate(() => {
    const box = (globalThis as unknown as {
      document: { getElementById(id: string): { replaceChildren(): void } };
    }).document.getElementById("quote-result");
    box.replaceChildren();
  });
  return text;
}

function _chromiumPresent(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}
