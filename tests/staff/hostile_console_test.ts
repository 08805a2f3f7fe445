/**
 * A hostile review of the console's pages and forms: answers a cache could keep, methods
 * and paths a form does not expect, where a redirect may go, a touch racing a sign-out,
 * the exact ends of a session, a member name typed by an inviter to script the pages, a
 * staff session on the agent surfaces and agent credentials on the console, and queries
 * made to cost.
 */

import assert from "node:assert/strict";
import { basic, createApp, listen, mcpPost, mcpResult, registerClient } from "../_helpers.ts";
import { LEAD, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { PATHS, STAFF_PATHS } from "../../src/http/paths.ts";
import { digest } from "../../src/oauth/secrets.ts";
import { SESSION_IDLE_MS, SESSION_MAX_MS } from "../../src/staff/session.ts";
import { getSession, touchSession } from "../../src/store/staff.ts";
import { MINUTE_MS } from "../../src/time.ts";
import { SoftAuthenticator } from "./_authenticator.ts";
import { enrolWith, memberOf, staffer } from "./_ceremony.ts";
import { signedIn, type Staffer, staffGet, staffPost } from "./_staff.ts";
import { pageText, shownVersion, storeDump, submit } from "./_review.ts";

/** The status and Cache-Control of an answer, its body read. */
async function cached(res: Response): Promise<[number, string | null]> {
  await res.body?.cancel();
  return [res.status, res.headers.get("cache-control")];
}

Deno.test("no answer under /staff/ is left for a cache to keep: errors, 404s, 405s and OPTIONS included", async () => {
  await using app = await createApp({ env: { RATE_LIMIT_STAFF: "2" } });
  const sam = await signedIn(app);
  const ask = (path: string, init: RequestInit = {}) =>
    app.request(path, {
      ...init,
      headers: { Cookie: sam.cookie, ...init.headers },
      redirect: "manual",
    });
  const json = { Origin: app.config.baseUrl, "Content-Type": "application/json" };
  const answers: [string, Response][] = [
    ["an unknown console path", await ask("/staff/nope")],
    ["the console's path without its slash", await ask("/staff")],
    ["an unknown asset", await ask("/staff/assets/nope.js")],
    ["a method a page does not serve", await ask("/staff/", { method: "PUT" })],
    ["GET on a ceremony endpoint", await ask(STAFF_PATHS.signInOptions)],
    ["OPTIONS", await ask(STAFF_PATHS.members, { method: "OPTIONS" })],
    ["a ceremony from a foreign page", await ask(STAFF_PATHS.signIn, { method: "POST" })],
    ["a malformed answer", await ask(STAFF_PATHS.signIn, { method: "POST", headers: json })],
    ["a second malformed answer", await ask(STAFF_PATHS.enrol, { method: "POST", headers: json })],
    ["a ceremony over the limit", await ask(STAFF_PATHS.enrol, { method: "POST", headers: json })],
  ];
  const statuses = [];
  for (const [what, res] of answers) {
    const [status, cacheControl] = await cached(res);
    statuses.push(status);
    assert.match(cacheControl ?? "", /no-store/, `${what} (${status})`);
  }
  assert.deepEqual(statuses, [404, 404, 404, 405, 405, 204, 403, 400, 400, 429]);
  // The console's own files are public and the same for everyone: a cache may keep them.
  const asset = await cached(await ask("/staff/assets/passkey.js"));
  assert.deepEqual(asset, [200, "public, max-age=300"]);
  // Nothing outside /staff/ changes: the API's own 404 stays as it was.
  const api = await cached(await ask("/api/v1/nope"));
  assert.deepEqual(api, [404, null]);
});

Deno.test("over a real port too: a 404, a 405 and a ceremony refusal under /staff/ say no-store", async () => {
  await using app = await listen();
  const at = (path: string, init: RequestInit = {}) =>
    fetch(new URL(path, app.baseUrl), { redirect: "manual", ...init });
  const answers = [
    await at("/staff/nope"),
    await at(STAFF_PATHS.signIn, { method: "DELETE" }),
    await at(STAFF_PATHS.signIn, { method: "POST", headers: { Origin: "https://evil.test" } }),
  ];
  const seen = [];
  for (const res of answers) seen.push(await cached(res));
  assert.deepEqual(seen, [[404, "no-store, no-transform"], [405, "no-store, no-transform"], [
    403,
    "no-store, no-transform",
  ]]);
});

Deno.test("OPTIONS and HEAD on the console grant no other origin anything", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  for (const path of [STAFF_PATHS.queue, STAFF_PATHS.members, STAFF_PATHS.signIn]) {
    const pre = await app.request(path, {
      method: "OPTIONS",
      headers: {
        Origin: "https://evil.test",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    assert.equal(pre.status, 204);
    for (const [name] of pre.headers) assert.doesNotMatch(name, /^access-control-/, path);
    const head = await app.request(path, {
      method: "HEAD",
      headers: { Origin: "https://evil.test", Cookie: sam.cookie },
    });
    assert.equal(await head.text(), "");
    assert.equal(head.headers.get("access-control-allow-origin"), null);
    if (head.status === 200) assert.equal(head.headers.get("x-frame-options"), "DENY", path);
    else assert.equal(head.status, 303, "a signed-in member is sent on from sign-in");
  }
});

Deno.test("no GET changes anything, no method override is honoured, and every redirect stays on /staff/", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app, "Sam Keeper");
  const kim = await signedIn(app, "Kim Leaving");
  const id = await submit(app, "lead", LEAD);
  const other = await submit(app, "lead", { ...LEAD, email: "x@example.com" });
  const client = await registerClient(app);
  const posts: [string, Record<string, string>][] = [
    [`/staff/submissions/${id}/decision`, { decision: "approve", note: "ok" }],
    [`/staff/submissions/${other}/erase`, { confirm: "yes" }],
    ["/staff/erase-email", { email: LEAD.email, confirm: "yes" }],
    ["/staff/clients", { client_id: client.client_id }],
    ["/staff/invites", { name: "Nia" }],
    [`/staff/members/${kim.member.member_id}/remove`, {}],
    ["/staff/sign-out", {}],
  ];
  const stored = await storeDump(app.kv);
  for (const [path, fields] of posts) {
    const query = new URLSearchParams({ ...fields, csrf: sam.csrf, _method: "POST" });
    const res = await app.request(`${path}?${query}`, {
      headers: { Cookie: sam.cookie, Origin: app.config.baseUrl, "X-HTTP-Method-Override": "POST" },
    });
    // 405, or the page of the same path (the erase-by-email and clients forms), which reads.
    assert.ok([200, 405].includes(res.status), `${path}: ${res.status}`);
    await res.body?.cancel();
  }
  assert.deepEqual(await storeDump(app.kv), stored, "no GET wrote anything");

  const versionstamp = shownVersion(await pageText(app, sam, `/staff/submissions/${id}`));
  posts[0]![1].versionstamp = versionstamp;
  for (const [path, fields] of posts) {
    const res = await staffPost(app, sam, path, fields);
    assert.ok([200, 303].includes(res.status), `${path}: ${res.status}`);
    const location = res.headers.get("location");
    if (res.status === 303) {
      assert.match(location ?? "", /^\/staff\/[^/\\]/, `${path} → ${location}`);
    }
    await res.body?.cancel();
  }
});

Deno.test("a touch racing a sign-out never brings the session back", async () => {
  await using app = await createApp();
  // In the store: the touch of a request that read the session before the sign-out.
  const sam = await signedIn(app);
  const value = sam.cookie.slice(sam.cookie.indexOf("=") + 1);
  app.clock.advance(2 * MINUTE_MS);
  const read = await getSession(app.kv, digest(value), sam.member.member_id);
  assert.ok(read);
  assert.equal((await staffPost(app, sam, STAFF_PATHS.signOut, {})).status, 303);
  await touchSession(app.kv, read.entry, app.clock.now());
  assert.equal(await getSession(app.kv, digest(value), sam.member.member_id), null);
  assert.equal((await staffGet(app, sam, STAFF_PATHS.queue)).status, 303);

  // Through the handler: a page (which touches) and the sign-out at once, many times.
  for (let i = 0; i < 20; i++) {
    const who = await signedIn(app);
    app.clock.advance(2 * MINUTE_MS);
    const [page, out] = await Promise.all([
      staffGet(app, who, STAFF_PATHS.queue),
      staffPost(app, who, STAFF_PATHS.signOut, {}),
    ]);
    assert.equal(out.status, 303);
    await page.body?.cancel();
    assert.equal((await staffGet(app, who, STAFF_PATHS.queue)).status, 303, `round ${i}`);
  }
});

Deno.test("a cookie is one session: another member's id on my secret, or the other scheme's name, opens nothing", async () => {
  await using app = await createApp();
  const sam = await signedIn(app, "Sam Keeper");
  const kim = await signedIn(app, "Kim Other");
  const [name, value] = sam.cookie.split("=") as [string, string];
  const secret = value.slice(value.indexOf(".") + 1);
  const swapped = { cookie: `${name}=${kim.member.member_id}.${secret}` };
  assert.deepEqual(await cached(await staffGet(app, swapped, STAFF_PATHS.queue)), [
    303,
    "no-store, no-transform",
  ]);
  // Two of the name: the page is one member's, never a mix (the layout names one).
  const both = await staffGet(app, { cookie: `${kim.cookie}; ${sam.cookie}` }, STAFF_PATHS.queue);
  const page = await both.text();
  assert.equal(["Sam Keeper", "Kim Other"].filter((n) => page.includes(n)).length, 1);

  // On plain-http localhost the cookie is dcfs_staff: the __Host- name is not read there.
  await using local = await createApp({ env: { BASE_URL: "http://localhost:8000" } });
  const ada = await signedIn(local, "Ada Local");
  assert.match(ada.cookie, /^dcfs_staff=/);
  assert.equal((await staffGet(local, ada, STAFF_PATHS.queue)).status, 200);
  const renamed = { cookie: `__Host-${ada.cookie}` };
  assert.deepEqual(await cached(await staffGet(local, renamed, STAFF_PATHS.queue)), [
    303,
    "no-store, no-transform",
  ]);
});

Deno.test("a session ends at the exact millisecond of its idle and absolute ends", async () => {
  await using app = await createApp();
  const status = async (who: Staffer) => (await cached(await staffGet(app, who, "/staff/")))[0];
  const idle = await signedIn(app);
  app.clock.advance(SESSION_IDLE_MS - 1);
  assert.equal(await status(idle), 200);
  app.clock.advance(SESSION_IDLE_MS);
  assert.equal(await status(idle), 303);

  const busy = await signedIn(app);
  const end = app.clock.now() + SESSION_MAX_MS;
  while (app.clock.now() + SESSION_IDLE_MS / 2 < end - 1) {
    app.clock.advance(SESSION_IDLE_MS / 2);
    assert.equal(await status(busy), 200);
  }
  app.clock.t = end - 1;
  assert.equal(await status(busy), 200);
  app.clock.t = end;
  assert.equal(await status(busy), 303);
});

Deno.test("a member name typed to script the pages is text on every page that shows it", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const sam = await signedIn(app, "Sam Keeper");
  const name = `Eve"><img src=x onerror=alert(1)>'<script>x</script>`;
  const escaped =
    "Eve&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&lt;script&gt;x&lt;/script&gt;";
  const invite = await staffPost(app, sam, STAFF_PATHS.invites, { name });
  const invitePage = await invite.text();
  const token = invitePage.match(/#invite=([\w-]+)"/)![1]!;
  const done = await enrolWith(app, new SoftAuthenticator(app.config.baseUrl), { invite: token });
  assert.equal(done.res.status, 200);
  const eve = staffer({ ...sam.member, member_id: memberOf(done.cookie!), name }, done.cookie!);
  const id = await submit(app, "lead", LEAD);
  const versionstamp = shownVersion(await pageText(app, eve, `/staff/submissions/${id}`));
  const note = "</pre></textarea><script>alert(2)</script>";
  const decided = await staffPost(app, eve, `/staff/submissions/${id}/decision`, {
    versionstamp,
    decision: "reject",
    note,
  });
  assert.equal(decided.status, 303);
  const pages = {
    invite: invitePage,
    members: await pageText(app, sam, STAFF_PATHS.members),
    nav: await pageText(app, eve, STAFF_PATHS.queue),
    audit: await pageText(app, sam, STAFF_PATHS.audit),
    submission: await pageText(app, sam, `/staff/submissions/${id}`),
  };
  for (const [page, text] of Object.entries(pages)) {
    assert.ok(!text.includes(name), `${page}: the name is not markup`);
    assert.ok(text.includes(escaped), `${page}: the name is shown, escaped`);
    assert.doesNotMatch(text, /<script(?! type="module" src="\/staff\/assets\/)/, page);
    assert.doesNotMatch(text, /<img/, page);
  }
  assert.ok(!pages.submission.includes(note));
  assert.ok(pages.submission.includes("&lt;/pre&gt;&lt;/textarea&gt;&lt;script&gt;"));
});

Deno.test("a staff session opens nothing on the agent surfaces, and agent credentials no console page", async () => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const client = await registerClient(app);
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const headers = { "MCP-Protocol-Version": "2025-11-25" };
  const plain = mcpResult(await (await mcpPost(app, list, headers)).text());
  const withCookie = await mcpPost(app, list, { ...headers, Cookie: sam.cookie });
  assert.deepEqual(mcpResult(await withCookie.text()), plain, "the same tools, no more");
  const revoke = await app.request(PATHS.revoke, {
    method: "POST",
    headers: { Cookie: sam.cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: "token=x",
  });
  assert.equal(revoke.status, 401, "the cookie is no client authentication");
  await revoke.body?.cancel();

  const clientAuth = basic(client.client_id, client.client_secret);
  const page = await app.request(STAFF_PATHS.queue, {
    headers: { Authorization: clientAuth },
    redirect: "manual",
  });
  assert.deepEqual(await cached(page), [303, "no-store, no-transform"]);
  const form = await app.request(STAFF_PATHS.invites, {
    method: "POST",
    headers: {
      Authorization: clientAuth,
      Origin: app.config.baseUrl,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: "name=Mallory",
  });
  assert.equal(form.status, 401);
  await form.body?.cancel();

  // No scope, path or document of the OAuth and agent surfaces names the console.
  for (const path of [PATHS.authorizationServerMetadata, PATHS.protectedResourceMetadata]) {
    const doc = await (await app.request(path)).json();
    assert.ok(!JSON.stringify(doc).includes("staff"), path);
    for (const scope of doc.scopes_supported ?? []) {
      assert.doesNotMatch(scope, /staff|review|admin|console/, `${path}: ${scope}`);
    }
  }
  const openApi = await (await app.request(PATHS.openApi)).text();
  assert.ok(!openApi.includes("/staff"), "the OpenAPI document leaves the console out");
});

Deno.test("malformed paging cursors and limits are refused with 400 before any read", async (t) => {
  await using app = await createApp();
  const sam = await signedIn(app);
  const queries = [
    "/staff/audit?before=1.x",
    "/staff/audit?before=-1.00000000-0000-0000-0000-000000000000",
    "/staff/audit?before=1e3.00000000-0000-0000-0000-000000000000",
    "/staff/audit?before=9999999999999999.00000000-0000-0000-0000-000000000000",
    `/staff/audit?before=${"9".repeat(2000)}`,
    "/staff/?limit=0",
    "/staff/?limit=100000",
    "/staff/?before=%22%3E%3Cscript%3E",
  ];
  for (const path of queries) {
    await t.step(path.slice(0, 60), async () => {
      const res = await staffGet(app, sam, path);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform");
      assert.doesNotMatch(await res.text(), /<script>/);
    });
  }
});
