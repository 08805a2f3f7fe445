/**
 * @module
 * The browser of the browser tests: Debian's Chromium, headless, driven by playwright-core
 * (which never downloads a browser). Without /usr/bin/chromium a browser test is ignored with
 * a warning, unless REQUIRE_BROWSER=1 (CI), where it fails (as tests/web/browser_test.ts).
 * The staff console's people (their own contexts and authenticators) are in
 * tests/staff/_browser.ts.
 */

import assert from "node:assert/strict";
import type { Browser } from "npm:playwright-core@1.65.1";

const CHROMIUM = "/usr/bin/chromium";
const REQUIRED = Deno.env.get("REQUIRE_BROWSER") === "1";

/** Where browser tests write screenshots (gitignored). */
export const ARTIFACTS = new URL("../test-artifacts/", import.meta.url);

function _chromiumPresent(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const PRESENT = _chromiumPresent();

/**
 * Whether the browser test `name` is ignored: Chromium is missing and REQUIRE_BROWSER is not
 * set (it then says so on stderr).
 */
export function browserIgnored(name: string): boolean {
  if (PRESENT || REQUIRED) return false;
  console.warn(
    `${name}: ${CHROMIUM} not found, the browser test is skipped ` +
      "(install Debian's chromium, or set REQUIRE_BROWSER=1 to make this an error)",
  );
  return true;
}

/** Headless Chromium, closed on dispose. */
export async function launch(): Promise<Browser & AsyncDisposable> {
  assert.ok(PRESENT, `REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: apt-get install chromium`);
  const { chromium } = await import("npm:playwright-core@1.65.1");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return Object.assign(browser, { [Symbol.asyncDispose]: () => browser.close() });
}
