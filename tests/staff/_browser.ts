/**
 * Fixtures of the console's browser tests: a person at the browser of tests/_browser.ts, in
 * a browser context of their own (their own cookies) with a virtual platform authenticator
 * from the DevTools protocol (WebAuthn.addVirtualAuthenticator) standing in for a phone or a
 * laptop.
 */

import { Buffer } from "node:buffer";
import type { Browser, CDPSession, Page } from "npm:playwright-core@1.65.1";
import { STAFF_PATHS } from "../../src/http/paths.ts";

/** A browser context of its own (its own cookies) with a virtual platform authenticator. */
export interface Person {
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** Page errors, console errors, dialogs and unexpected answers of 400 or more. */
  errors: string[];
  /**
   * Answers of 400 or more that a step expects, as `"<status> <path>"`: each one seen is
   * taken off this set instead of counting as an error.
   */
  expected: Set<string>;
}

/**
 * A person at a new browser context, its window 1280 × 800 (a desktop), each step waiting up
 * to 30 s (the machine may be busy), errors collected.
 */
export async function person(browser: Browser): Promise<Person> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.setDefaultNavigationTimeout(30_000);
  const errors: string[] = [];
  const expected = new Set<string>();
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    // Chromium logs every answer of 400 or more so; they are checked by path below.
    if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) {
      errors.push(`console: ${msg.text()}`);
    }
  });
  page.on("dialog", (dialog) => {
    errors.push(`dialog: ${dialog.type()} ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  page.on("response", (res) => {
    const path = new URL(res.url()).pathname;
    const seen = `${res.status()} ${path}`;
    if (res.status() < 400 || expected.delete(seen)) return;
    errors.push(seen);
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
  return { page, cdp, authenticatorId, errors, expected };
}

/** The passkeys an authenticator holds: id (base64url, as the service stores it) and counter. */
export async function heldPasskeys(p: Person): Promise<{ id: string; signCount: number }[]> {
  const { credentials } = await p.cdp.send("WebAuthn.getCredentials", {
    authenticatorId: p.authenticatorId,
  });
  return credentials.map((c) => ({
    id: Buffer.from(c.credentialId, "base64").toString("base64url"),
    signCount: c.signCount,
  }));
}

/** Clicks `button` and waits until the page has gone to the console (/staff/). */
export async function toConsole(p: Person, button: string): Promise<void> {
  await p.page.getByRole("button", { name: button }).click();
  await p.page.waitForURL((url) => url.pathname === STAFF_PATHS.queue);
}

/** Signs out with the navigation's button, from the staff page; waits for the sign-in page. */
export async function signOut(p: Person): Promise<void> {
  await p.page.goto(new URL(STAFF_PATHS.members, p.page.url()).href);
  await p.page.getByRole("button", { name: "Sign out" }).click();
  await p.page.waitForURL((url) => url.pathname === STAFF_PATHS.signIn);
}
