/**
 * Fixtures of the console's review tests: submissions made through the real intake, a page
 * read as text, the versionstamp a submission page's decide form carries and the decision
 * posted from it, notices sent, and the store's keys for "nothing changed" checks.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { sendNotices } from "../../src/review/notifier.ts";
import { post, repeatsAnew, type TestApp } from "../_helpers.ts";
import { type Staffer, staffGet, staffPost } from "./_staff.ts";

const _anew = new WeakMap<TestApp, ReturnType<typeof repeatsAnew>>();

/**
 * Submits a lead or a quote through the REST API, a second after the last, with a key of
 * its own; a body sent before to the same app again gets " (n)" after its description (the
 * same body is a replay, whatever its key); its id.
 */
export async function submit(
  app: TestApp,
  kind: "lead" | "quote",
  body: Record<string, unknown>,
): Promise<string> {
  app.clock.advance(1_000); // ids sort by creation time
  let anew = _anew.get(app);
  if (!anew) _anew.set(app, anew = repeatsAnew());
  const res = await post(app, kind === "lead" ? "/api/v1/intake" : "/api/v1/quotes", anew(body), {
    "Idempotency-Key": crypto.randomUUID(),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).request_id;
}

/** A console page that must answer 200: its text. */
export async function pageText(app: TestApp, who: Staffer, path: string): Promise<string> {
  const res = await staffGet(app, who, path);
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return await res.text();
}

/** The versionstamp a submission page's decide form sends back. */
export function shownVersion(page: string): string {
  const m = page.match(/name="versionstamp" value="([0-9a-f]+)"/);
  assert.ok(m, "the page has a decide form");
  return m[1]!;
}

/** The request ids of a page's rows (`data-request-id`), in order. */
export function rowIds(page: string): string[] {
  return [...page.matchAll(/<tr data-request-id="([^"]+)"/g)].map((m) => m[1]!);
}

/**
 * Opens a submission's page as `who` and posts its decide form with the versionstamp it
 * shows: the answer.
 */
export async function decideOnPage(
  app: TestApp,
  who: Staffer,
  id: string,
  decision: "approve" | "reject",
  note = "",
): Promise<Response> {
  const versionstamp = shownVersion(await pageText(app, who, `/staff/submissions/${id}`));
  return await staffPost(app, who, `/staff/submissions/${id}/decision`, {
    versionstamp,
    decision,
    note,
  });
}

/** Sends every notice due with no webhook configured: each is logged, and marked so. */
export async function logNotices(app: TestApp): Promise<void> {
  await sendNotices({ kv: app.kv, config: loadConfig({}), now: app.clock.now, log: () => {} });
}

/**
 * Every key of the store with its versionstamp, as JSON text, for a "nothing changed"
 * comparison.
 */
export async function storeDump(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    out.push(JSON.stringify([e.key, e.versionstamp], (_, v) => typeof v === "bigint" ? `${v}` : v));
  }
  return out;
}

/** What an `<a>` of a page links to, for the text `label`. */
export function linkTo(page: string, label: string): string | undefined {
  for (const m of page.matchAll(/<a\b[^>]*href="([^"]*)"[^>]*>([^<]*)<\/a>/g)) {
    if (m[2]!.trim() === label) return m[1]!.replaceAll("&amp;", "&");
  }
  return undefined;
}
