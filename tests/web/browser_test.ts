/**
 * The home page in a real browser: Debian's Chromium, headless, driven by
 * playwright-core through a real port. Never downloads a browser. Without
 * /usr/bin/chromium the test is ignored with a warning, unless REQUIRE_BROWSER=1
 * (CI), where it fails.
 */

import { TOOL_NAMES } from "../_fixtures.ts";
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { listen } from "../_helpers.ts";
import { ARTIFACTS, browserIgnored, launch } from "../_browser.ts";
import { assertAxeClean } from "../_axe.ts";
import { assertRingsSeen, measureTabStops } from "../_focus_ring.ts";

/** Collects console errors and uncaught exceptions of a page. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    // The forms are made to fail validation on purpose: Chromium logs each 400.
    if (msg.type() === "error" && !/status of 400 \(Bad Request\)/.test(msg.text())) {
      errors.push(`console: ${msg.text()}`);
    }
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  return errors;
}

/** What page-side functions see; Deno's own types have no DOM. */
interface PageTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: unknown;
  execute(args: unknown): Promise<unknown>;
}
interface PageGlobals {
  __tools: PageTool[];
  document: {
    documentElement: { scrollWidth: number; clientWidth: number };
  };
  scrollTo(options: { top: number; behavior: "instant" }): void;
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).textContent())?.trim() ?? "";
}

Deno.test({
  name: "the home page works in headless Chromium: coverage, forms, WebMCP, screenshots",
  ignore: browserIgnored("browser_test"),
  async fn(t) {
    await using app = await listen();
    const base = app.baseUrl;
    await using browser = await launch();
    const newPage = async (
      viewport = { width: 1280, height: 800 },
    ): Promise<{ page: Page; errors: string[] }> => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      return { page, errors: watchErrors(page) };
    };

    const { page, errors } = await newPage();
    await page.goto(`${base}/`);

    await t.step("with JavaScript off, the catalog and the covered cities are there", async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      try {
        const bare = await context.newPage();
        await bare.goto(`${base}/`);
        const services = (await (await fetch(`${base}/api/v1/services`)).json()).services;
        assert.equal(await bare.locator("#service-list > li").count(), services.length);
        assert.match((await bare.locator(".regions").textContent()) ?? "", /Zürich.*Switzerland/s);
        assert.equal(await bare.locator("#q-service option").count(), services.length + 1);
        // The contact form posts as a plain form and is answered with a page.
        await bare.fill("#l-email", "noscript@example.com");
        await bare.fill("#l-description", "Sent with script off.");
        await bare.click("#lead-form button[type=submit]");
        await bare.locator(".request-id").waitFor();
        assert.match((await bare.locator("main").textContent()) ?? "", /Message received/);
      } finally {
        await context.close();
      }
    });

    await t.step("the page has the catalog and fills the service selects", async () => {
      await page.locator("#service-list > li").first().waitFor();
      const cards = await page.locator("#service-list > li").count();
      const services = (await (await fetch(`${base}/api/v1/services`)).json()).services;
      assert.equal(cards, services.length);
      assert.equal(await page.locator("#q-service option").count(), services.length + 1);
      assert.equal(await page.locator("#l-service option").count(), services.length + 1);
      assert.match(await text(page, "#service-list"), /Remote hands/);
    });

    await t.step("coverage: zurich is Zürich, covered", async () => {
      await page.fill("#cov-city", "zurich");
      await page.click("#coverage-form button[type=submit]");
      const result = page.locator("#coverage-result .notice-success");
      await result.waitFor();
      const shown = (await result.textContent()) ?? "";
      assert.match(shown, /Covered: Zürich, CH/);
      assert.match(shown, /within 4 hours/);
    });

    await t.step("coverage: an uncovered city names the nearest covered ones", async () => {
      await page.fill("#cov-city", "Basel");
      await page.click("#coverage-form button[type=submit]");
      const result = page.locator("#coverage-result .notice-warn");
      await result.waitFor();
      assert.match((await result.textContent()) ?? "", /Not covered: Basel.*Zürich, CH\s*7\d km/s);
    });

    await t.step("coverage: the country is chosen from a list, by name", async () => {
      assert.equal(await page.locator("#cov-country option[value=DE]").textContent(), "Germany");
      await page.fill("#cov-city", "Paris");
      await page.selectOption("#cov-country", "DE");
      await page.click("#coverage-form button[type=submit]");
      const result = page.locator("#coverage-result .notice-info");
      await result.waitFor();
      assert.match((await result.textContent()) ?? "", /not in that country.*Paris, FR/s);
      await page.selectOption("#cov-country", "");
    });

    await t.step("lead: a bad email is shown inline, then a valid lead gets its id", async () => {
      await page.fill("#l-email", "not-an-email");
      await page.fill("#l-description", "Two racks to install in Frankfurt next month.");
      await page.click("#lead-form button[type=submit]");
      await page.locator("#l-email-error").waitFor();
      assert.equal(
        await text(page, "#l-email-error"),
        "Email must be a valid email address such as ops@example.com",
      );
      assert.equal(await page.getAttribute("#l-email", "aria-invalid"), "true");
      assert.ok(await page.locator("#l-description-error").isHidden());
      assert.match(await text(page, "#lead-result .notice-error"), /Please correct 1 field/);

      await page.fill("#l-email", "ops@example.com");
      await page.click("#lead-form button[type=submit]");
      const id = page.locator("#lead-result .request-id");
      await id.waitFor();
      assert.match((await id.textContent()) ?? "", /^lead_[0-9A-Z]+$/);
      assert.match(await text(page, "#lead-result"), /Waiting for review by our team/);
      assert.doesNotMatch(await text(page, "#lead-result"), /pending\b/);
      assert.ok(await page.locator("#l-email-error").isHidden());
      assert.equal(await page.getAttribute("#l-email", "aria-invalid"), null);
      assert.equal(await page.inputValue("#l-email"), "", "the form is reset");
    });

    await t.step(
      "quote: missing fields inline, then an estimate for a full request",
      async () => {
        await page.click("#quote-form button[type=submit]");
        await page.locator("#q-company-error").waitFor();
        for (const id of ["company", "contact", "email", "city", "service", "description"]) {
          assert.ok(await page.locator(`#q-${id}-error`).isVisible(), id);
        }
        assert.match(await text(page, "#quote-result .notice-error"), /Please correct 6 fields/);
        assert.match(
          await text(page, "#q-contact-error"),
          /^Contact name /,
          "errors name the field as the page does",
        );

        await page.fill("#q-company", "Example GmbH");
        await page.fill("#q-contact", "Kim Muster");
        await page.fill("#q-email", "kim@example.com");
        await page.fill("#q-city", "Zürich");
        await page.selectOption("#q-country", "CH");
        await page.selectOption("#q-service", "remote-hands");
        await page.fill("#q-description", "Reseat two PSUs and read out serial numbers.");
        await page.fill("#q-date", "2026-12-03");
        await page.fill("#q-time", "21:30");
        await page.fill("#q-engineers", "2");
        await page.fill("#q-hours", "3");
        await page.check("#q-ooh");
        await page.click("#quote-form button[type=submit]");
        const id = page.locator("#quote-result .request-id");
        await id.waitFor();
        assert.match((await id.textContent()) ?? "", /^quote_[0-9A-Z]+$/);
        const shown = await text(page, "#quote-result");
        // 95 EUR × 2 engineers × 3 h × 1.5 out of hours = 855, plus 25 % contingency.
        assert.match(shown, /€855 – €1,068\.75/);
        assert.match(shown, /non-binding/);
        assert.match(shown, /Excludes tax: the quotation adds VAT where it applies/);
        assert.match(shown, /Waiting for review by our team/);
        assert.match(shown, /Expected review\s*within 24 hours, by [\d-]+ [\d:]+ UTC/);
        assert.equal(await page.locator("#quote-form [aria-invalid]").count(), 0);
      },
    );

    await t.step("without a model context nothing is registered and nothing fails", async () => {
      assert.match(await text(page, "#webmcp-status"), /No WebMCP model context/);
      assert.deepEqual(errors, []);
    });

    await t.step("WebMCP: every tool is registered from the descriptor", async () => {
      const { page: agentPage, errors: agentErrors } = await newPage();
      await agentPage.addInitScript(() => {
        const g = globalThis as unknown as PageGlobals;
        g.__tools = [];
        Object.defineProperty(g.document, "modelContext", {
          configurable: true,
          value: { registerTool: (tool: PageTool) => void g.__tools.push(tool) },
        });
      });
      await agentPage.goto(`${base}/`);
      await agentPage.waitForFunction(() =>
        (globalThis as unknown as PageGlobals).__tools?.length === 6
      );
      const tools = await agentPage.evaluate(() =>
        (globalThis as unknown as PageGlobals).__tools.map((t) => ({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          annotations: t.annotations,
          execute: typeof t.execute,
        }))
      );
      assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
      const descriptor = await (await fetch(`${base}/.well-known/mcp.json`)).json();
      for (const [i, tool] of tools.entries()) {
        const entry = descriptor.tools[i];
        assert.equal(typeof tool.inputSchema, "object");
        assert.equal(tool.inputSchema && (tool.inputSchema as { type?: string }).type, "object");
        assert.deepEqual(tool.inputSchema, entry.input_schema, `${tool.name} schema`);
        assert.deepEqual(tool.annotations, entry.annotations, `${tool.name} annotations`);
        assert.equal(tool.title, entry.title);
        assert.equal(tool.description, entry.description);
        assert.equal(tool.execute, "function");
      }
      assert.match(await text(agentPage, "#webmcp-status"), /Registered 6 tools/);

      const coverage = await agentPage.evaluate(async () => {
        const tools = (globalThis as unknown as PageGlobals).__tools;
        const tool = tools.find((t) => t.name === "check_coverage")!;
        return await tool.execute({ city: "Frankfurt am Main" });
      }) as { ok: boolean; coverage: { covered: boolean; location: { city: string } } };
      assert.equal(coverage.ok, true);
      assert.equal(coverage.coverage.covered, true);
      assert.equal(coverage.coverage.location.city, "Frankfurt");

      const [services, badLead] = await agentPage.evaluate(async () => {
        const tools = (globalThis as unknown as PageGlobals).__tools;
        const run = (name: string, args: unknown) =>
          tools.find((t) => t.name === name)!.execute(args);
        return [await run("list_services", {}), await run("submit_lead", { email: "x" })];
      }) as [{ ok: boolean; services: unknown[] }, { ok: boolean; error: string }];
      assert.equal(services.ok, true);
      assert.ok(services.services.length > 0);
      assert.equal(badLead.ok, false, "an error status still returns the JSON body");
      assert.equal(badLead.error, "validation_failed");

      // A tool whose REST path has a parameter, and a read-only estimate.
      const submitted = await (await fetch(`${base}/api/v1/intake`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "webmcp@example.com", description: "Status check" }),
      })).json();
      const [status, estimate] = await agentPage.evaluate(async (id: string) => {
        const tools = (globalThis as unknown as PageGlobals).__tools;
        const run = (name: string, args: unknown) =>
          tools.find((t) => t.name === name)!.execute(args);
        return [
          await run("get_request_status", { request_id: id }),
          await run("estimate_quote", { city: "Zurich", service_type: "remote-hands" }),
        ];
      }, String(submitted.request_id)) as [
        { ok: boolean; request_id: string; status: string },
        { ok: boolean; stored: boolean },
      ];
      assert.deepEqual(
        [status.ok, status.request_id, status.status],
        [true, submitted.request_id, "pending"],
        "the id reached the path, not the query",
      );
      assert.deepEqual([estimate.ok, estimate.stored], [true, false]);
      assert.deepEqual(agentErrors, []);
    });

    await t.step("screenshots: desktop and phone, no horizontal overflow at 360 px", async () => {
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      // Show a covered answer, then capture from the top of the page.
      await page.fill("#cov-city", "zurich");
      await page.click("#coverage-form button[type=submit]");
      await page.locator("#coverage-result .notice-success").waitFor();
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).scrollTo({ top: 0, behavior: "instant" })
      );
      await page.screenshot({
        path: new URL("home-desktop.png", ARTIFACTS).pathname,
        fullPage: true,
      });
      for (const [name, width, height] of [["phone", 390, 844], ["narrow", 360, 740]] as const) {
        const { page: small, errors: smallErrors } = await newPage({ width, height });
        await small.goto(`${base}/`);
        await small.locator("#service-list > li").first().waitFor();
        await small.fill("#cov-city", "Basel");
        await small.click("#coverage-form button[type=submit]");
        await small.locator("#coverage-result .notice").waitFor();
        const overflow = await small.evaluate(() => {
          const root = (globalThis as unknown as PageGlobals).document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        assert.equal(overflow, 0, `horizontal overflow at ${width} px`);
        if (name === "phone") {
          await small.screenshot({
            path: new URL("home-phone.png", ARTIFACTS).pathname,
            fullPage: true,
          });
        }
        assert.deepEqual(smallErrors, []);
      }
    });
  },
});

/** The element that has focus: its role, its name as axe would not need to guess, and so on. */
interface Focused {
  tag: string;
  role: string | null;
  tabIndex: number;
  name: string;
  inside: string | null;
}

/** What has focus in `page`, and the result box it is in, if any. */
function focusedNow(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    type El = {
      localName: string;
      tabIndex: number;
      getAttribute(name: string): string | null;
      closest(selector: string): { id: string } | null;
      ownerDocument: { getElementById(id: string): { textContent: string | null } | null };
    };
    const el = (globalThis as unknown as { document: { activeElement: El } }).document
      .activeElement;
    const by = el.getAttribute("aria-labelledby");
    return {
      tag: el.localName,
      role: el.getAttribute("role"),
      tabIndex: el.tabIndex,
      name: by ? el.ownerDocument.getElementById(by)?.textContent?.trim() ?? "" : "",
      inside: el.closest(".result")?.id ?? null,
    };
  });
}

Deno.test({
  name: "the home page for every person: focus stays on the answer, a ring of 3:1 on every " +
    "stop, axe-core on every state",
  ignore: browserIgnored("browser_test"),
  async fn(t) {
    await using app = await listen();
    const base = app.baseUrl;
    await using browser = await launch();
    // Reduced motion: the page scrolls at once, so a screenshot is of where focus went.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      reducedMotion: "reduce",
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors = watchErrors(page);
    await page.goto(`${base}/`);
    await page.locator("#service-list > li").first().waitFor();

    await t.step("axe-core: the home page with JavaScript on", async () => {
      await assertAxeClean(page, "home page");
    });

    await t.step("axe-core: the home page with JavaScript off, and its receipt", async () => {
      // axe itself needs script (its timers do not run where scripts are off), so this is
      // the page as a browser without script shows it: its script left out, <noscript> shown.
      const bare = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const p = await bare.newPage();
        await p.route(`${base}/`, async (route) => {
          const response = await route.fetch();
          const body = (await response.text())
            .replace(/<script type="module"[^>]*><\/script>/, "")
            .replace(/<link rel="modulepreload"[^>]*>/g, "")
            .replace(/<\/?noscript>/g, "");
          await route.fulfill({ response, body });
        });
        await p.goto(`${base}/`);
        await assertAxeClean(p, "home page without JavaScript");
        await p.fill("#q-company", "Example GmbH");
        await p.fill("#q-contact", "Kim Muster");
        await p.fill("#q-email", "kim@example.com");
        await p.fill("#q-city", "Zürich");
        await p.selectOption("#q-service", "remote-hands");
        await p.fill("#q-description", "Reseat two PSUs.");
        await p.click("#quote-form button[type=submit]");
        await p.locator(".request-id").waitFor();
        await assertAxeClean(p, "receipt page without JavaScript");
        assertRingsSeen("receipt page without JavaScript", await measureTabStops(p));
      } finally {
        await bare.close();
      }
    });

    await t.step("the covered cities are listed under their heading, by region", async () => {
      const regions = page.locator(".regions");
      assert.equal(await regions.getAttribute("aria-labelledby"), null, "no name on a div");
      const europe = page.getByRole("heading", { level: 4, name: /^Europe/ });
      assert.equal(await europe.count(), 1, "a region is a level under 'Covered cities' (h3)");
    });

    await t.step(
      "Enter on 'Check coverage': focus on the answer, the button never disabled",
      async () => {
        let release = () => {};
        const held = new Promise<void>((r) => release = r);
        await page.route("**/api/v1/locations?*", async (route) => {
          await held;
          await route.continue();
        });
        await page.fill("#cov-city", "zurich");
        await page.focus("#coverage-form button[type=submit]");
        await page.keyboard.press("Enter");
        await page.locator("#coverage-result .status").waitFor();
        const button = page.locator("#coverage-form button[type=submit]");
        assert.equal(await button.getAttribute("aria-disabled"), "true");
        assert.equal(
          await button.evaluate((b) => (b as unknown as { disabled: boolean }).disabled),
          false,
          "a disabled button would drop focus",
        );
        assert.equal((await focusedNow(page)).tag, "button", "focus stays while the check runs");
        await page.keyboard.press("Enter"); // a second press sends nothing more
        release();
        await page.locator("#coverage-result .notice-success").waitFor();
        await page.unroute("**/api/v1/locations?*");
        assert.deepEqual(await focusedNow(page), {
          tag: "div",
          role: "region",
          tabIndex: -1,
          name: "Covered: Zürich, CH",
          inside: "coverage-result",
        });
        assert.equal(await button.getAttribute("aria-disabled"), null);
        await page.keyboard.press("Tab");
        assert.match(
          await page.evaluate(() => {
            const doc =
              (globalThis as unknown as { document: { activeElement: { textContent: string } } })
                .document;
            return doc.activeElement.textContent;
          }),
          /Request a quote in Zürich/,
          "the next Tab goes on from the answer",
        );
        await assertAxeClean(page, "home page after a coverage check");
      },
    );

    await t.step(
      "Enter on 'Request quote' with fields missing: focus on the error summary",
      async () => {
        await page.focus("#quote-form button[type=submit]");
        await page.keyboard.press("Enter");
        await page.locator("#quote-result .notice-error").waitFor();
        assert.deepEqual(await focusedNow(page), {
          tag: "div",
          role: "alert",
          tabIndex: -1,
          name: "Please correct 6 fields and send again.",
          inside: "quote-result",
        });
        await assertAxeClean(page, "home page after an error");
      },
    );

    await t.step(
      "focus rings: every stop, with the coverage answer and the error summary shown",
      async () => {
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).scrollTo({ top: 0, behavior: "instant" })
        );
        assertRingsSeen("home page", await measureTabStops(page));
      },
    );

    await t.step("a quote sent with Enter: focus on the receipt", async () => {
      await page.fill("#q-company", "Example GmbH");
      await page.fill("#q-contact", "Kim Muster");
      await page.fill("#q-email", "kim@example.com");
      await page.fill("#q-city", "Zürich");
      await page.selectOption("#q-service", "remote-hands");
      await page.fill("#q-description", "Reseat two PSUs and read out serial numbers.");
      await page.focus("#quote-form button[type=submit]");
      await page.keyboard.press("Enter");
      await page.locator("#quote-result .request-id").waitFor();
      assert.deepEqual(await focusedNow(page), {
        tag: "div",
        role: "region",
        tabIndex: -1,
        name: "Quote request received",
        inside: "quote-result",
      });
      await assertAxeClean(page, "home page with a receipt");
    });

    await t.step(
      "focus rings: on the answers' other backgrounds (a choice, a receipt)",
      async () => {
        await page.fill("#cov-city", "Paris");
        await page.selectOption("#cov-country", "DE");
        await page.click("#coverage-form button[type=submit]");
        await page.locator("#coverage-result .notice-info").waitFor();
        await page.fill("#l-email", "ops@example.com");
        await page.fill("#l-description", "Two racks.");
        await page.click("#lead-form button[type=submit]");
        await page.locator("#lead-result .request-id").waitFor();
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).scrollTo({ top: 0, behavior: "instant" })
        );
        assertRingsSeen("home page with a choice and a receipt", await measureTabStops(page));
        assert.deepEqual(errors, []);
      },
    );
  },
});
