/**
 * One submission in the console, `GET /staff/submissions/:request_id`: everything
 * `deno task review show` prints (the same facts, the same request text), its history, and
 * submitted text that tries to script the page coming out as text in every field of a
 * lead and of a quote.
 */

import assert from "node:assert/strict";
import { escapeHtml } from "../../src/web/html.ts";
import { newRequestId } from "../../src/intake/ids.ts";
import { createApp, reviewCli as cli } from "../_helpers.ts";
import { LEAD, QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { signedIn, staffGet } from "./_staff.ts";
import { decideOnPage, logNotices, pageText, shownVersion, submit } from "./_review.ts";

/** The facts `show` prints (`label:` and text, estimate lines indented) as label → text. */
function shownFacts(out: string): Map<string, string[]> {
  const facts = new Map<string, string[]>();
  for (const line of out.split("\nrequest:\n")[0]!.split("\n").slice(1)) {
    const m = line.match(/^ {0,2}([a-z]+): +(.*)$/);
    assert.ok(m, line);
    facts.set(m[1]!, [...facts.get(m[1]!) ?? [], m[2]!]);
  }
  return facts;
}

/** The page's facts (`<dt>label</dt><dd>text</dd>`), unescaped, as label → text. */
function pageFacts(page: string): Map<string, string[]> {
  const facts = new Map<string, string[]>();
  for (const m of page.matchAll(/<dt>([^<]*)<\/dt>\s*<dd>([^<]*)<\/dd>/g)) {
    const text = m[2]!.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
      .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
    facts.set(m[1]!, [...facts.get(m[1]!) ?? [], text]);
  }
  return facts;
}

Deno.test("GET /staff/submissions/:id shows what review show prints, and the request as text in a <pre>", async (t) => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const quote = await submit(app, "quote", { ...QUOTE, urgency: "asap", po_number: "PO-7" });
  const lead = await submit(app, "lead", LEAD);
  await logNotices(app);
  assert.equal((await cli(app, "approve", lead, "--note", "Called back", "--by", "Kim")).code, 0);

  const cases: [string, string][] = [["a quote with its estimate", quote], [
    "a decided lead",
    lead,
  ]];
  for (const [name, id] of cases) {
    await t.step(name, async () => {
      const page = await pageText(app, sam, `/staff/submissions/${id}`);
      const shown = await cli(app, "show", id);
      assert.equal(shown.code, 0);
      assert.deepEqual(pageFacts(page), shownFacts(shown.out));
      const request = shown.out.split("\nrequest:\n")[1]!;
      assert.ok(page.includes(`<pre class="request">${escapeHtml(request)}</pre>`));
    });
  }
  await t.step("the estimate's basis and timing, and the urgency", async () => {
    const facts = pageFacts(await pageText(app, sam, `/staff/submissions/${quote}`));
    assert.match(facts.get("basis")![0]!, /^2 × 3 h at [\d,]+ EUR\/h, minimum \d+ h$/);
    assert.equal(facts.get("timing")![0], "0 of 3 h out of hours, read in Europe/Zurich");
    assert.equal(
      facts.get("notification")![0],
      "logged (2026-11-22T00:00:02.000Z; no webhook was configured)",
    );
  });
  await t.step(
    "a pending one has the decide form with its versionstamp; a decided one none",
    async () => {
      const pending = await pageText(app, sam, `/staff/submissions/${quote}`);
      assert.match(shownVersion(pending), /^[0-9a-f]{20}$/);
      assert.match(
        pending,
        /<button type="submit" name="decision" value="approve"[^>]*>Approve<\/button>/,
      );
      assert.match(
        pending,
        /<button type="submit" name="decision" value="reject"[^>]*>Reject<\/button>/,
      );
      const decided = await pageText(app, sam, `/staff/submissions/${lead}`);
      assert.doesNotMatch(decided, /name="decision"/);
      assert.match(decided, /<button type="submit" class="btn btn-danger">Erase<\/button>/);
    },
  );
});

Deno.test("a submission's history: received, notified, decided, and the audit entries about it", async () => {
  await using app = await createApp();
  const sam = await signedIn(app, "Sam Reviewer");
  const id = await submit(app, "lead", LEAD);
  const other = await submit(app, "lead", { ...LEAD, email: "other@example.com" });
  app.clock.advance(60_000);
  await logNotices(app);
  app.clock.advance(60_000);
  const res = await decideOnPage(app, sam, id, "reject", "Out of scope");
  assert.equal(res.status, 303);
  assert.equal((await cli(app, "approve", other)).code, 0);
  const history = (await pageText(app, sam, `/staff/submissions/${id}`))
    .match(/<ol class="history">([\s\S]*?)<\/ol>/)![1]!
    .split("</li>").slice(0, -1).map((li) =>
      li.replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim()
    );
  assert.deepEqual(history, [
    "2026-11-22 00:00:01 UTC Received via api",
    "2026-11-22 00:01:02 UTC Review notice logged (no webhook)",
    "2026-11-22 00:02:02 UTC Decided: rejected by Sam Reviewer",
    `2026-11-22 00:02:02 UTC Audit: reject by Sam Reviewer ${sam.member.member_id}, session ${
      history[3]!.match(/session (\S+)/)![1]
    } (with a note)`,
  ]);
  assert.doesNotMatch(history.join(), /approve/, "another submission's entries are not its");
});

Deno.test("GET /staff/submissions/:id of no submission is a 404 page", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  for (const id of [newRequestId("lead", app.clock.now()), "lead_1", "%3Cscript%3E"]) {
    const res = await staffGet(app, sam, `/staff/submissions/${id}`);
    assert.equal(res.status, 404, id);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    const text = await res.text();
    assert.match(text, /<h1>Not found<\/h1>/);
    assert.doesNotMatch(text, /<script>/);
  }
});

/** Text that tries to end its element or attribute and run script. */
const HOSTILE = [
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(2)>',
  "</pre><script>alert(3)</script>",
  "'><svg onload=alert(4)>",
];

/** Every text field of a lead and of a quote the intake keeps as given, each hostile. */
function hostile(i: number): string {
  return `${HOSTILE[i % HOSTILE.length]} ${i}`;
}

Deno.test("submitted text that tries to script the page is text in the queue and on the submission page", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app);
  let n = 0;
  const text = () => hostile(n++);
  const lead = await submit(app, "lead", {
    email: "x@example.com",
    description: text(),
    company: text(),
    contact_name: text(),
    city: text(),
    service_type: text(),
    phone: "+49 69 1234 5678",
    agent_context_optional: { [text()]: text(), nested: [text()] },
    [text()]: text(),
  });
  const quote = await submit(app, "quote", {
    ...QUOTE,
    company: text(),
    contact_name: text(),
    description: text(),
    site_address: text(),
    attachments_optional: [text(), text()],
    agent_context_optional: { note: text() },
    [text()]: text(),
  });
  // The note a reviewer adds is shown too.
  assert.equal((await decideOnPage(app, sam, lead, "approve", text())).status, 303);

  const pages = {
    queue: await pageText(app, sam, "/staff/"),
    lead: await pageText(app, sam, `/staff/submissions/${lead}`),
    quote: await pageText(app, sam, `/staff/submissions/${quote}`),
    audit: await pageText(app, sam, "/staff/audit"),
  };
  for (const [name, body] of Object.entries(pages)) {
    await t.step(name, () => {
      assert.doesNotMatch(body, /<script|<img|<svg|<[^>]*\son(error|load)=/i);
      // One <pre> at most, closed once: the request's.
      assert.ok((body.match(/<\/pre>/g) ?? []).length <= 1);
    });
  }
  await t.step("each hostile text is on the page, escaped", () => {
    const all = pages.lead + pages.quote;
    for (let i = 0; i < n; i++) {
      const escaped = escapeHtml(hostile(i));
      const asJson = escapeHtml(JSON.stringify(hostile(i)).slice(1, -1));
      assert.ok(all.includes(escaped) || all.includes(asJson), hostile(i));
    }
    assert.ok(pages.queue.includes(escapeHtml(hostile(1))), "the lead's company in the queue");
  });
});
