/**
 * Passkeys in a real browser (issue 28, point 2): Debian's Chromium, headless, driven by
 * playwright-core through a real port to the real handler, with the DevTools protocol's
 * virtual authenticator (WebAuthn.addVirtualAuthenticator) standing in for a phone or a
 * laptop. passkey.js uses the platform API only. Never downloads a browser. Without
 * /usr/bin/chromium the test is ignored with a warning, unless REQUIRE_BROWSER=1 (CI), where
 * it fails (as tests/web/browser_test.ts).
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser, CDPSession, Page } from "npm:playwright-core@1.65.1";
import { listen } from "../_helpers.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { getPasskey } from "../../src/store/staff.ts";
import { cliInvite } from "./_ceremony.ts";

const CHROMIUM = "/usr/bin/chromium";
const REQUIRED = Deno.env.get("REQUIRE_BROWSER") === "1";
const CODE = "browser-test-enrol-code-0123456789";

function chromiumPresent(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const PRESENT = chromiumPresent();
if (!PRESENT && !REQUIRED) {
  console.warn(
    `staff/browser_test: ${CHROMIUM} not found, the passkey browser test is skipped ` +
      "(install Debian's chromium, or set REQUIRE_BROWSER=1 to make this an error)",
  );
}

/** A browser context of its own (its own cookies) with a virtual platform authenticator. */
interface Person {
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  errors: string[];
}

async function person(browser: Browser): Promise<Person> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    // Failed loads are checked by URL below.
    if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) {
      errors.push(`console: ${msg.text()}`);
    }
  });
  page.on("response", (res) => {
    const path = new URL(res.url()).pathname;
    // The queue at /staff/ is where a ceremony leads; this test needs only the navigation.
    if (res.status() >= 400 && path !== STAFF_PATHS.queue) {
      errors.push(`${res.status()} ${path}`);
    }
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { page, cdp, authenticatorId, errors };
}

/** The passkeys an authenticator holds: id (base64url, as the service stores it) and counter. */
async function heldPasskeys(p: Person): Promise<{ id: string; signCount: number }[]> {
  const { credentials } = await p.cdp.send("WebAuthn.getCredentials", {
    authenticatorId: p.authenticatorId,
  });
  return credentials.map((c) => ({
    id: Buffer.from(c.credentialId, "base64").toString("base64url"),
    signCount: c.signCount,
  }));
}

/** Clicks `button` and waits until the page has gone to the console (/staff/). */
async function toConsole(p: Person, button: string): Promise<void> {
  await p.page.getByRole("button", { name: button }).click();
  await p.page.waitForURL((url) => url.pathname === STAFF_PATHS.queue);
}

async function signOut(p: Person): Promise<void> {
  await p.page.goto(new URL(STAFF_PATHS.members, p.page.url()).href);
  await p.page.getByRole("button", { name: "Sign out" }).click();
  await p.page.waitForURL((url) => url.pathname === STAFF_PATHS.signIn);
}

Deno.test({
  name:
    "passkeys in headless Chromium: first member by code, a CLI invite, sign in and out, a replay refused",
  ignore: !PRESENT && !REQUIRED,
  async fn(t) {
    assert.ok(PRESENT, `REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: apt-get install chromium`);
    const { chromium } = await import("npm:playwright-core@1.65.1");
    // localhost, not 127.0.0.1: a WebAuthn RP ID is a domain, and the origin must match BASE_URL.
    await using app = await listen({
      env: { STAFF_ENROL_CODE: CODE, RATE_LIMIT_STAFF: "100" },
    }, "localhost");
    const base = app.baseUrl;
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    await using _browser = { [Symbol.asyncDispose]: () => browser.close() };

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
