/**
 * A reviewer's day in the staff console (issue 28, "Tests"), in headless Chromium through a
 * real port, each member with a virtual authenticator (tests/staff/_browser.ts): leads and
 * quotes come in through the public API, one of them hostile markup in every text field; a
 * member enrols from the link `review invite` prints, works the queue (filters, pages, urgent
 * first), reads the hostile quote as text, approves and rejects, erases by email after a dry
 * run, disables an agent client, invites a second member who enrols in a browser of their
 * own; both decide one submission at the same moment and exactly one decision lands; the
 * audit trail lists every action and no submitted text; the member signs out. Every step is
 * checked against what the page shows and what the store and the public API say, and no page
 * logs an error. It writes the screenshots of docs/review.md to test-artifacts/, and to
 * docs/images/ with UPDATE_DOCS_IMAGES=1 (docs/testing.md).
 */

import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { loadConfig } from "../../src/config.ts";
import { STAFF_PATHS } from "../../src/http/paths.ts";
import { sendNotices } from "../../src/review/notifier.ts";
import { getClient } from "../../src/store/credentials.ts";
import { getPasskey, listMembers } from "../../src/store/staff.ts";
import { type AuditAction, listAudit, listAuditOf } from "../../src/store/staff_audit.ts";
import { getSubmission } from "../../src/store/submissions.ts";
import { HOUR_MS, MINUTE_MS } from "../../src/time.ts";
import { RATE_LIMITS_OFF } from "../_fixtures.ts";
import {
  bearerGet,
  issueToken,
  listen,
  overHttp,
  registerClient,
  reviewCli,
  type TestApp,
} from "../_helpers.ts";
import { cliInvite } from "./_ceremony.ts";
import { ARTIFACTS, browserIgnored, launch } from "../_browser.ts";
import { heldPasskeys, type Person, person, toConsole } from "./_browser.ts";

const SCRIPT = "<script>alert(1)</script>";
const IMG = `"><img src=x onerror=alert(1)>`;
const PRE = "</pre><b>x</b>";
const HOSTILE = `${SCRIPT} ${IMG} ${PRE}`;
const MALLORY = "mallory@example.net";
const NOTE = "Quote sent to Jonas: two engineers on 1 December, parts on site";

/** What the day's trail must list. */
const ACTIONS: readonly AuditAction[] = [
  "approve",
  "reject",
  "erase_email",
  "disable_client",
  "invite",
  "enrol",
  "sign_in",
  "sign_out",
];

type Key = "mallory" | "spam" | "emergency" | "hostile" | "approve" | "asap" | "race" | "newest";
interface Seed {
  key: Key;
  kind: "lead" | "quote";
  body: Record<string, unknown>;
}

/** The day's submissions, oldest first; every text field of `hostile` tries to script the page. */
const SEEDS: readonly Seed[] = [
  { key: "mallory", kind: "lead", body: { email: MALLORY, description: "Call me about racks" } },
  {
    key: "spam",
    kind: "lead",
    body: {
      email: "offers@seo-boost.example",
      company: "SEO Boost",
      description: "We put your datacenter on page one of every search engine!",
    },
  },
  {
    key: "emergency",
    kind: "quote",
    body: {
      company: "Helvetic Cloud AG",
      contact_name: "Lea Brunner",
      email: "noc@helvetic-cloud.example",
      city: "Zurich",
      service_type: "remote-hands",
      description: "Core switch in cage 4 is down: power-cycle it and read us its console",
      urgency: "emergency",
      engineer_count: 1,
      estimated_hours: 1,
    },
  },
  {
    key: "hostile",
    kind: "quote",
    body: {
      company: `ACME ${HOSTILE}`,
      contact_name: `Eve ${HOSTILE}`,
      email: MALLORY,
      city: `Zurich ${HOSTILE}`,
      service_type: "Rack and stack",
      description: `Rack this ${HOSTILE}`,
      site_address: `Street ${HOSTILE}`,
      attachments_optional: [HOSTILE],
      agent_context_optional: { agent: HOSTILE },
      extra_field: HOSTILE,
      engineer_count: 2,
      estimated_hours: 3,
    },
  },
  {
    key: "approve",
    kind: "quote",
    body: {
      company: "Rhein Compute GmbH",
      contact_name: "Jonas Weber",
      email: "jonas.weber@rhein-compute.example",
      city: "Frankfurt",
      service_type: "Rack and stack",
      description: "Install 4 servers in rack B12 and cable them to the top-of-rack switch",
      requested_date: "2026-12-01",
      requested_time: "09:00",
      engineer_count: 2,
      estimated_hours: 3,
      urgency: "scheduled",
    },
  },
  {
    key: "asap",
    kind: "lead",
    body: {
      email: "infra@nordlicht.example",
      company: "Nordlicht Hosting",
      contact_name: "Mia Hansen",
      city: "Amsterdam",
      service_type: "decommissioning",
      description: "Two racks to clear out of AMS3 before the end of the month",
      urgency: "asap",
    },
  },
  {
    key: "race",
    kind: "quote",
    body: {
      company: "Lago Data S.r.l.",
      contact_name: "Marco Rossi",
      email: "ops@lagodata.example",
      city: "Milan",
      service_type: "hardware-swap",
      description: "Swap 2 failed drives in rack 7 (the RMA parts are on site)",
      engineer_count: 1,
      estimated_hours: 2,
    },
  },
  {
    key: "newest",
    kind: "lead",
    body: {
      email: "it@polar-networks.example",
      company: "Polar Networks AB",
      contact_name: "Elin Berg",
      city: "Stockholm",
      service_type: "site-audit",
      description: "Audit our two cages before a migration next spring",
      urgency: "scheduled",
    },
  },
];

/** The strings of a JSON value, however deep. */
function leaves(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value && typeof value === "object") return Object.values(value).flatMap(leaves);
  return [];
}

/**
 * Every text a submitter sent (and the note), but dates and times, which a page's own
 * times may share: none may reach the audit trail.
 */
function submittedText(): string[] {
  const all = [NOTE, SCRIPT, IMG, PRE, ...SEEDS.flatMap((s) => leaves(s.body))];
  return [...new Set(all)].filter((t) => /[a-z]{3}/i.test(t));
}

/**
 * Submits every seed through the REST API over the port, some minutes apart from 08:00;
 * the review notices of all but the newest go out to a webhook that takes them.
 */
async function seed(app: TestApp & { baseUrl: string }): Promise<Record<Key, string>> {
  app.clock.advance(8 * HOUR_MS);
  const ids = {} as Record<Key, string>;
  for (const s of SEEDS) {
    if (s.key === "newest") {
      const sent = await sendNotices({
        kv: app.kv,
        config: loadConfig({ REVIEW_WEBHOOK_URL: "https://hooks.test/review" }),
        now: app.clock.now,
        log: () => {},
        fetch: () => Promise.resolve(new Response(null, { status: 204 })),
      });
      assert.equal(sent, SEEDS.length - 1);
    }
    app.clock.advance(7 * MINUTE_MS);
    const res = await fetch(`${app.baseUrl}/api/v1/${s.kind === "lead" ? "intake" : "quotes"}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
      body: JSON.stringify(s.body),
    });
    assert.equal(res.status, 202, await res.clone().text());
    ids[s.key] = (await res.json()).request_id;
  }
  return ids;
}

/** The request ids of the queue's rows as the page shows them, in order. */
async function rows(page: Page, table = "table.queue"): Promise<string[]> {
  const trs = await page.locator(`${table} tbody tr`).all();
  return await Promise.all(trs.map(async (tr) => (await tr.getAttribute("data-request-id"))!));
}

/** Text of the first element matching `selector`. */
async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).first().textContent()) ?? "";
}

/** Waits for the page titled `title` (its `<h1>`), as the next page after a click loads. */
async function titled(page: Page, title: string): Promise<void> {
  await page.locator("h1", { hasText: title }).waitFor();
}

/**
 * Clicks the form button `button` and waits for the POST's answer to `path`: its status.
 * The page it leads to is waited for by the caller, by what only that page shows.
 */
async function submitForm(p: Person, button: string, path: string): Promise<number> {
  const answer = p.page.waitForResponse((res) =>
    res.request().method() === "POST" && new URL(res.url()).pathname === path
  );
  await p.page.getByRole("button", { name: button, exact: true }).click();
  return (await answer).status();
}

/** What the status read says of a submission: its HTTP status and `status` field. */
async function statusRead(base: string, id: string): Promise<[number, string | undefined]> {
  const res = await fetch(`${base}/api/v1/requests/${id}`);
  return [res.status, res.ok ? (await res.json()).status : (await res.body?.cancel(), undefined)];
}

/**
 * The page's window (1280 × 800), cut below its content when shorter, as `name` under
 * test-artifacts/, and under docs/images/ with UPDATE_DOCS_IMAGES=1.
 */
async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const { width, height } = page.viewportSize()!;
  const main = (await page.locator("main").boundingBox())!;
  const png = await page.screenshot({
    path: new URL(name, ARTIFACTS).pathname,
    clip: { x: 0, y: 0, width, height: Math.min(height, Math.ceil(main.y + main.height)) },
  });
  if (Deno.env.get("UPDATE_DOCS_IMAGES") === "1") {
    const docs = new URL("../../docs/images/", import.meta.url);
    await Deno.mkdir(docs, { recursive: true });
    await Deno.writeFile(new URL(name, docs), png);
  }
}

const submissionPath = (id: string, path: string = STAFF_PATHS.submission) =>
  path.replace(":request_id", id);

Deno.test({
  name: "a reviewer's day in headless Chromium: enrol, the queue, hostile text, decide, erase, " +
    "disable a client, invite, two reviewers at once, the audit trail, sign out",
  ignore: browserIgnored("staff/journey_test"),
  async fn(t) {
    // localhost, not 127.0.0.1: a WebAuthn RP ID is a domain, and the origin must match BASE_URL.
    await using app = await listen({ env: RATE_LIMITS_OFF }, "localhost");
    const base = app.baseUrl;
    const api = overHttp(base);
    await using browser = await launch();
    const ada = await person(browser);
    const page = ada.page;
    let ids = {} as Record<Key, string>;
    let client = { client_id: "", client_secret: "" };
    let token = "";

    await t.step(
      "leads and quotes come in through the API; an agent client gets a token",
      async () => {
        ids = await seed(app);
        assert.equal(Object.keys(ids).length, SEEDS.length);
        for (const id of Object.values(ids)) {
          assert.deepEqual(await statusRead(base, id), [200, "pending"]);
        }
        client = await registerClient(api);
        token = await issueToken(api, client);
        const served = await bearerGet(api, "/api/v1/agent/services", token);
        assert.equal(served.status, 200);
        await served.body?.cancel();
      },
    );

    await t.step(
      "Ada enrols from the link `review invite` printed and lands on the queue",
      async () => {
        const { link } = await cliInvite(app, "Ada Fischer");
        await page.goto(link);
        assert.ok(await page.locator(".by-invite").isVisible());
        await toConsole(ada, "Create passkey");
        await titled(page, "Review queue");
        assert.equal((await rows(page)).length, SEEDS.length);
        const [held] = await heldPasskeys(ada);
        assert.ok(held, "the authenticator holds a passkey");
        assert.equal((await getPasskey(app.kv, held.id)).value?.counter, held.signCount);
        // Signs out and back in with the passkey: the queue again.
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.waitForURL((url) => url.pathname === STAFF_PATHS.signIn);
        await toConsole(ada, "Sign in with a passkey");
        await titled(page, "Review queue");
        assert.match(await text(page, ".staff-signout"), /Ada Fischer/);
      },
    );

    await t.step(
      "the queue: filters, pages of 3 with urgent first in each, as review list",
      async () => {
        await page.selectOption("select[name=status]", "pending");
        await page.selectOption("select[name=kind]", "quote");
        await page.getByRole("button", { name: "Filter" }).click();
        await page.waitForURL((url) => url.searchParams.get("kind") === "quote");
        assert.deepEqual(await rows(page), [ids.emergency, ids.race, ids.approve, ids.hostile]);
        await page.goto(`${base}/staff/?kind=lead`);
        assert.deepEqual(await rows(page), [ids.asap, ids.newest, ids.spam, ids.mallory]);
        await page.goto(`${base}/staff/?status=approved`);
        assert.deepEqual(await rows(page), []);
        assert.equal(await text(page, "p.empty"), "No submissions match these filters.");

        const pages: string[][] = [];
        await page.goto(`${base}/staff/?limit=3`);
        let before: string | undefined;
        for (let n = 0; n < 5; n++) {
          const shown = await rows(page);
          const cli = await reviewCli(
            app,
            ...["list", "--limit", "3", "--json", ...(before ? ["--before", before] : [])],
          );
          assert.deepEqual(
            JSON.parse(cli.out).map((r: { request_id: string }) => r.request_id),
            shown,
          );
          pages.push(shown);
          const next = page.getByRole("link", { name: "Next page" });
          if (!(await next.count())) break;
          before = new URL((await next.getAttribute("href"))!, base).searchParams.get("before")!;
          await next.click();
          await page.waitForURL((url) => url.searchParams.get("before") === before);
        }
        assert.deepEqual(pages, [
          [ids.asap, ids.newest, ids.race],
          [ids.emergency, ids.approve, ids.hostile],
          [ids.spam, ids.mallory],
        ]);
      },
    );

    await t.step("the hostile quote shows its markup as text, and nothing runs", async () => {
      const fetched: string[] = [];
      const onRequest = (req: { url(): string }) => fetched.push(new URL(req.url()).pathname);
      page.on("request", onRequest);
      await page.goto(`${base}/staff/?kind=quote`);
      const row = page.locator(`tr[data-request-id="${ids.hostile}"]`);
      // The queue's summary keeps a company's first 64 characters, as text.
      assert.ok((await row.textContent())!.includes(`ACME ${HOSTILE}`.slice(0, 64)));
      assert.equal(await page.locator("img, b, script, [onerror]").count(), 0);
      await row.getByRole("link").click();
      await titled(page, ids.hostile);
      // The request as submitted, pretty JSON: every hostile value is there, as its JSON text.
      const request = await text(page, "pre.request");
      const values = leaves(SEEDS.find((s) => s.key === "hostile")!.body)
        .filter((v) => v.includes(HOSTILE));
      assert.equal(values.length, 8);
      for (const value of values) assert.ok(request.includes(JSON.stringify(value)), value);
      assert.ok(request.includes(IMG.replace('"', '\\"')) && request.includes(PRE));
      assert.equal(await page.locator("img, b, script, [onerror]").count(), 0);
      assert.equal(await page.locator("pre").count(), 1);
      assert.equal(await page.locator("section").count(), 6, "the markup closed no section");
      page.off("request", onRequest);
      assert.ok(fetched.every((path) => !/\/x$/.test(path)), fetched.join(" "));
      assert.deepEqual(ada.errors, [], "no dialog, no page or console error");
    });

    await t.step("Ada approves a quote with a note and rejects a lead", async () => {
      await page.goto(`${base}${submissionPath(ids.approve)}`);
      await page.locator("section[aria-labelledby=estimate] dl.facts").waitFor();
      await screenshot(page, "staff-quote.png");
      await page.fill("#note", NOTE);
      const decide = submissionPath(ids.approve, STAFF_PATHS.decide);
      assert.equal(await submitForm(ada, "Approve", decide), 303);
      await page.locator(".submission-head .status-approved").waitFor();
      assert.equal(await page.locator("form.decide").count(), 0);
      assert.ok((await text(page, "dl.facts")).includes(NOTE));
      assert.deepEqual(await statusRead(base, ids.approve), [200, "approved"]);
      const record = (await getSubmission(app.kv, ids.approve)).value!;
      assert.deepEqual([record.decision?.by, record.decision?.note], ["Ada Fischer", NOTE]);

      await page.goto(`${base}${submissionPath(ids.spam)}`);
      const reject = submissionPath(ids.spam, STAFF_PATHS.decide);
      assert.equal(await submitForm(ada, "Reject", reject), 303);
      await page.locator(".submission-head .status-rejected").waitFor();
      assert.deepEqual(await statusRead(base, ids.spam), [200, "rejected"]);
      await page.goto(`${base}/staff/?status=approved`);
      assert.deepEqual(await rows(page), [ids.approve]);
    });

    await t.step("erase by email: the dry run erases nothing, then confirmed they go", async () => {
      await page.getByRole("link", { name: "Erase by email" }).click();
      await titled(page, "Erase by email");
      await page.fill("#email", "Mallory@Example.NET");
      assert.equal(await submitForm(ada, "Find submissions", STAFF_PATHS.eraseEmail), 200);
      await titled(page, "Erase by email: dry run");
      assert.deepEqual(
        (await rows(page, "table.dry-run")).sort(),
        [ids.mallory, ids.hostile].sort(),
      );
      for (const id of [ids.mallory, ids.hostile]) {
        assert.ok((await getSubmission(app.kv, id)).value, "the dry run erased nothing");
        assert.deepEqual(await statusRead(base, id), [200, "pending"]);
      }
      assert.equal(await submitForm(ada, "Erase 2 submissions", STAFF_PATHS.eraseEmail), 303);
      await page.locator("p.notice-success", { hasText: "Erased 2 submissions" }).waitFor();
      for (const id of [ids.mallory, ids.hostile]) {
        assert.equal((await getSubmission(app.kv, id)).value, null);
        assert.deepEqual(await statusRead(base, id), [404, undefined]);
      }
      assert.ok(!(await page.content()).includes(MALLORY), "the address is not in the page");
      assert.ok(!page.url().toLowerCase().includes("mallory"), "nor in its URL");
    });

    await t.step("Ada disables the agent client: its Bearer token is refused", async () => {
      await page.getByRole("link", { name: "Agent clients" }).click();
      await titled(page, "Agent clients");
      await page.fill("#client_id", client.client_id);
      assert.equal(await submitForm(ada, "Disable client", STAFF_PATHS.clients), 303);
      await page.locator("p.notice-success", { hasText: `${client.client_id} is disabled` })
        .waitFor();
      assert.ok((await getClient(app.kv, client.client_id)).value?.disabled_at);
      const res = await bearerGet(api, "/api/v1/agent/services", token);
      assert.equal(res.status, 401);
      await res.body?.cancel();
    });

    const ben = await person(browser);
    await t.step("Ada invites Ben from the staff page; Ben enrols in his own browser", async () => {
      await page.getByRole("link", { name: "Staff", exact: true }).click();
      await titled(page, "Staff");
      await page.fill("#invite-name", "Ben Okafor");
      assert.equal(await submitForm(ada, "Create invite link", STAFF_PATHS.invites), 200);
      await titled(page, "Invite link");
      const link = await page.locator("input.invite-link").inputValue();
      assert.ok(link.startsWith(`${base}${STAFF_PATHS.enrol}#invite=`), link);
      await ben.page.goto(link);
      await toConsole(ben, "Create passkey");
      await titled(ben.page, "Review queue");
      assert.deepEqual((await listMembers(app.kv)).map((m) => m.name).sort(), [
        "Ada Fischer",
        "Ben Okafor",
      ]);
      await ben.page.goto(`${base}${STAFF_PATHS.members}`);
      assert.match(await text(ben.page, "table.members"), /Ben Okafor \(you\)[\s\S]*Ada Fischer/);
    });

    await t.step(
      "Ada and Ben decide one quote at the same moment: one lands, one looks again",
      async () => {
        const id = ids.race;
        const decide = submissionPath(id, STAFF_PATHS.decide);
        for (const p of [ada, ben]) {
          await p.page.goto(`${base}${submissionPath(id)}`);
          await p.page.locator("form.decide").waitFor();
          p.expected.add(`409 ${decide}`);
        }
        const [byAda, byBen] = await Promise.all([
          submitForm(ada, "Approve", decide),
          submitForm(ben, "Reject", decide),
        ]);
        assert.deepEqual([byAda, byBen].sort(), [303, 409], `Ada ${byAda}, Ben ${byBen}`);
        const [winner, loser, verdict] = byAda === 303
          ? [ada, ben, "approved"]
          : [ben, ada, "rejected"];
        await winner.page.locator(`.submission-head .status-${verdict}`).waitFor();
        await titled(loser.page, "Changed meanwhile");
        assert.match(await text(loser.page, "[role=alert]"), /Your decision was not recorded\./);
        for (const p of [ada, ben]) p.expected.delete(`409 ${decide}`);

        const record = (await getSubmission(app.kv, id)).value!;
        assert.equal(record.status, verdict);
        assert.equal(record.decision?.by, winner === ada ? "Ada Fischer" : "Ben Okafor");
        const decisions = (await listAuditOf(app.kv, id, app.clock.now(), 50))
          .filter((e) => e.action === "approve" || e.action === "reject");
        assert.equal(decisions.length, 1, "one decision in the trail");
        assert.deepEqual(await statusRead(base, id), [200, verdict]);

        await loser.page.getByRole("link", { name: `Look again at ${id}` }).click();
        await loser.page.locator(`.submission-head .status-${verdict}`).waitFor();
        assert.equal(await loser.page.locator("form.decide").count(), 0);
      },
    );

    await t.step("the audit trail lists every action and no submitted text", async () => {
      await page.getByRole("link", { name: "Audit trail" }).click();
      await titled(page, "Audit trail");
      const actions = await page.locator("table.audit tbody td:nth-child(4)").allTextContents();
      const stored = await listAudit(app.kv, app.clock.now(), 100);
      assert.deepEqual(actions, stored.map((e) => e.action));
      for (const action of ACTIONS) {
        assert.ok(actions.includes(action), `${action} in ${actions.join(", ")}`);
      }
      const trail = await page.content();
      for (const sent of submittedText()) {
        assert.ok(!trail.includes(sent), `the trail holds submitted text: ${sent}`);
      }
      assert.ok(!trail.toLowerCase().includes("mallory"));
    });

    await t.step(
      "screenshot of the queue; Ada signs out and /staff/ sends her to sign in",
      async () => {
        await page.getByRole("link", { name: "Queue", exact: true }).click();
        await titled(page, "Review queue");
        assert.equal((await rows(page)).length, SEEDS.length - 2);
        await screenshot(page, "staff-queue.png");
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.waitForURL((url) => url.pathname === STAFF_PATHS.signIn);
        const res = await page.goto(`${base}${STAFF_PATHS.queue}`);
        assert.equal(new URL(page.url()).pathname, STAFF_PATHS.signIn);
        assert.equal(res?.status(), 200);
        assert.equal(await page.getByRole("button", { name: "Sign in with a passkey" }).count(), 1);
        assert.deepEqual(await page.context().cookies(), [], "the session cookie is gone");
      },
    );

    await t.step("no page error, console error, dialog or unexpected answer anywhere", () => {
      assert.deepEqual([...ada.errors, ...ben.errors], []);
      assert.deepEqual([...ada.expected, ...ben.expected], []);
    });
  },
});
