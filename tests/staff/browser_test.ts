/**
 * Passkeys in a real browser (issue 28, point 2): Debian's Chromium, headless, driven by
 * playwright-core through a real port to the real handler, with the DevTools protocol's
 * virtual authenticator (WebAuthn.addVirtualAuthenticator) standing in for a phone or a
 * laptop. passkey.js uses the platform API only. Never downloads a browser. Without
 * /usr/bin/chromium the test is ignored with a warning, unless REQUIRE_BROWSER=1 (CI), where
 * it fails (tests/staff/_browser.ts). Now that the queue exists, no page a ceremony leads to
 * may answer 400 or more.
 */

import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { listen } from "../_helpers.ts";
import { assertAxeClean } from "../_axe.ts";
import { assertRingsSeen, measureTabStops } from "../_focus_ring.ts";
import { submit } from "./_review.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { getPasskey } from "../../src/store/staff.ts";
import { cliInvite } from "./_ceremony.ts";
import { browserIgnored, launch } from "../_browser.ts";
import { heldPasskeys, person, signOut, toConsole } from "./_browser.ts";

const CODE = "browser-test-enrol-code-0123456789";

Deno.test({
  name:
    "passkeys in headless Chromium: first member by code, a CLI invite, sign in and out, a replay refused",
  ignore: browserIgnored("staff/browser_test"),
  async fn(t) {
    // localhost, not 127.0.0.1: a WebAuthn RP ID is a domain, and the origin must match BASE_URL.
    await using app = await listen({
      env: { STAFF_ENROL_CODE: CODE, RATE_LIMIT_STAFF: "100" },
    }, "localhost");
    const base = app.baseUrl;
    await using browser = await launch();

    const ada = await person(browser);
    await t.step("before anyone enrols, sign-in says it is off", async () => {
      await ada.page.goto(`${base}${STAFF_PATHS.signIn}`);
      assert.equal(await ada.page.locator("h1").textContent(), "No staff yet");
      assert.equal(
        await ada.page.getByRole("button", { name: "Sign in with a passkey" }).count(),
        0,
      );
    });

    await t.step("the first member enrols with STAFF_ENROL_CODE", async () => {
      await ada.page.goto(`${base}${STAFF_PATHS.enrol}`);
      await ada.page.fill("#enrol-name", "Ada Browser");
      await ada.page.fill("#enrol-code", CODE);
      await toConsole(ada, "Create passkey");
      const [held] = await heldPasskeys(ada);
      assert.ok(held, "the authenticator holds a passkey");
      assert.equal((await getPasskey(app.kv, held.id)).value?.counter, held.signCount);
      await ada.page.goto(`${base}${STAFF_PATHS.members}`);
      assert.match(
        (await ada.page.locator("table.members").textContent()) ?? "",
        /Ada Browser \(you\)/,
      );
    });

    const sam = await person(browser);
    await t.step("a second member enrols from the link the CLI printed", async () => {
      const { link } = await cliInvite(app, "Sam Browser");
      await sam.page.goto(link);
      assert.equal(
        await sam.page.locator("#enrol-code").count(),
        0,
        "no code field with an invite",
      );
      assert.ok(await sam.page.locator(".by-invite").isVisible());
      await toConsole(sam, "Create passkey");
      await sam.page.goto(`${base}${STAFF_PATHS.members}`);
      const table = (await sam.page.locator("table.members").textContent()) ?? "";
      assert.match(table, /Sam Browser \(you\)/);
      assert.match(table, /the review CLI/);
    });

    let replayable = "";
    await t.step(
      "Sam signs out, signs in with the passkey, sees the console, signs out",
      async () => {
        await signOut(sam);
        const before = (await heldPasskeys(sam))[0]!.signCount;
        sam.page.on("request", (req) => {
          if (req.method() === "POST" && new URL(req.url()).pathname === STAFF_PATHS.signIn) {
            replayable = req.postData() ?? "";
          }
        });
        await toConsole(sam, "Sign in with a passkey");
        const [held] = await heldPasskeys(sam);
        assert.ok(held!.signCount > before, "the authenticator's counter went up");
        assert.equal((await getPasskey(app.kv, held!.id)).value?.counter, held!.signCount);
        const res = await sam.page.goto(`${base}${STAFF_PATHS.members}`);
        assert.equal(res?.status(), 200);
        await signOut(sam);
        assert.equal(
          await sam.page.getByRole("button", { name: "Sign in with a passkey" }).count(),
          1,
        );
      },
    );

    await t.step("the captured sign-in answer, posted again, is refused", async () => {
      assert.ok(replayable.includes('"authenticatorData"'), "the answer was captured");
      const replay = await fetch(`${base}${STAFF_PATHS.signIn}`, {
        method: "POST",
        headers: { Origin: base, "Content-Type": "application/json" },
        body: replayable,
      });
      assert.equal(replay.status, 400);
      assert.equal((await replay.json()).error, "unknown_challenge");
      assert.equal(replay.headers.get("set-cookie"), null);
    });

    await t.step("no page error, no console error", () => {
      assert.deepEqual([...ada.errors, ...sam.errors], []);
    });
  },
});

/** What a page-side check sees of the document (Deno's own types have no DOM). */
interface Doc {
  document: {
    documentElement: { scrollWidth: number; clientWidth: number };
    querySelectorAll(s: string): { textContent: string | null }[];
  };
}

/** How far the page scrolls sideways, in CSS px. */
function sideways(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as Doc).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** The column headers of the page's tables with no name a screen reader could read. */
function unnamedColumns(page: Page): Promise<number> {
  return page.evaluate(() =>
    [...(globalThis as unknown as Doc).document.querySelectorAll("table th")]
      .filter((th) => (th.textContent ?? "").trim() === "").length
  );
}

/**
 * A console page as every person meets it: axe-core finds nothing, each Tab stop has a ring
 * of 3:1, every column a header name, and at 640 px (a 1280 px window at 200 % zoom) and at
 * 320 px the page does not scroll sideways (a wide table scrolls inside it).
 */
async function everyPerson(page: Page, state: string): Promise<void> {
  await assertAxeClean(page, `console: ${state}`);
  assertRingsSeen(`console: ${state}`, await measureTabStops(page));
  assert.equal(await unnamedColumns(page), 0, `${state}: a column with no header name`);
  for (const [width, height] of [[640, 400], [320, 568]] as const) {
    await page.setViewportSize({ width, height });
    assert.equal(await sideways(page), 0, `${state}: sideways scrolling at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

Deno.test({
  name: "the console for every person: axe-core on every page, a 3:1 focus ring, no " +
    "sideways scrolling at 320 px or at 200 % zoom, a header name for every column",
  ignore: browserIgnored("staff/browser_test"),
  async fn(t) {
    await using app = await listen({
      env: { STAFF_ENROL_CODE: CODE, RATE_LIMIT_STAFF: "100" },
    }, "localhost");
    const base = app.baseUrl;
    await using browser = await launch();
    const ada = await person(browser);
    const page = ada.page;
    const visit = async (path: string, state: string) => {
      const res = await page.goto(`${base}${path}`);
      assert.equal(res?.status(), 200, path);
      await everyPerson(page, state);
    };

    await t.step("no staff yet", () => visit(STAFF_PATHS.signIn, "no staff yet"));
    await t.step("enrolment", () => visit(STAFF_PATHS.enrol, "enrolment"));
    let id = "";
    await t.step("the queue, with one request", async () => {
      await page.goto(`${base}${STAFF_PATHS.enrol}`);
      await page.fill("#enrol-name", "Ada Browser");
      await page.fill("#enrol-code", CODE);
      await toConsole(ada, "Create passkey");
      id = await submit(app, "quote", {
        company: "Example GmbH",
        contact_name: "Kim Muster",
        email: "kim@example.com",
        city: "Zürich",
        service_type: "remote-hands",
        description: "Reseat two PSUs and read out serial numbers.",
      });
      await visit(STAFF_PATHS.queue, "queue");
    });
    await t.step("one submission", () => {
      return visit(STAFF_PATHS.submission.replace(":request_id", id), "one submission");
    });
    await t.step("audit trail", () => visit(STAFF_PATHS.audit, "audit"));
    await t.step("members", async () => {
      // A second member, so the table has a Remove button.
      await cliInvite(app, "Sam Browser");
      await visit(STAFF_PATHS.members, "members");
    });
    await t.step("demand", () => visit(STAFF_PATHS.demand, "demand"));
    await t.step("agent clients", () => visit(STAFF_PATHS.clients, "agent clients"));
    await t.step("erase by email", () => visit(STAFF_PATHS.eraseEmail, "erase by email"));
    await t.step("sign-in", async () => {
      await signOut(ada);
      await everyPerson(page, "sign-in");
    });
    await t.step("no page error, no console error", () => {
      assert.deepEqual(ada.errors, []);
    });
  },
});
