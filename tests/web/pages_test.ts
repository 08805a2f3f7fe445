import assert from "node:assert/strict";
import { CONTENT_SECURITY_POLICY, renderHome } from "../../src/web/pages.ts";
import { TOOL_NAMES } from "../_fixtures.ts";
import { LEAD, QUOTE } from "../_fixtures.ts";
import {
  catalog,
  createApp,
  mcpToolCall,
  post,
  type Requester,
  type TestApp,
} from "../_helpers.ts";
import type { SubmissionRecord } from "../../src/store/submissions.ts";

const DISCOVERY_LINKS = [
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  "/.well-known/mcp.json",
  "/api/v1/mcp/server-card",
  "/.well-known/ai-catalog.json",
  "/api/v1/openapi.json",
];

Deno.test("the CSP allows only 'self' sources, no inline code, no framing", () => {
  const directives = CONTENT_SECURITY_POLICY.split(";").map((d) => d.trim().split(/\s+/));
  const byName = new Map(directives.map(([name, ...sources]) => [name!, sources]));
  for (const name of ["default-src", "script-src", "style-src", "img-src", "connect-src"]) {
    assert.deepEqual(byName.get(name), ["'self'"], name);
  }
  assert.deepEqual(byName.get("frame-ancestors"), ["'none'"]);
  assert.deepEqual(byName.get("base-uri"), ["'none'"]);
  for (const [name, ...sources] of directives) {
    for (const source of sources) {
      assert.ok(source === "'self'" || source === "'none'", `${name} allows ${source}`);
    }
  }
  assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-|data:|https?:|\*/);
});

Deno.test("GET / is the home page under the CSP, with no inline script, style or handler", async () => {
  await using app = await createApp();
  const res = await app.request("/");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(res.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  const html = await res.text();
  assert.match(html, /^<!doctype html>/i);
  assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);

  const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
  assert.deepEqual(scripts, ['<script type="module" src="/assets/app.js">']);
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, "a <script> without src");
  assert.doesNotMatch(html, /<script[^>]*>[^<]+<\/script>/i, "a script with inline content");
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i, "an inline event handler");
  assert.doesNotMatch(html, /\sstyle\s*=/i, "a style attribute");
  assert.doesNotMatch(html, /<style/i, "an inline stylesheet");
  assert.doesNotMatch(html, /javascript:/i);
  assert.match(html, /<link rel="stylesheet" href="\/assets\/styles.css">/);
  // Self-contained: nothing is loaded from another origin.
  for (const m of html.matchAll(/\s(?:src|href)="([^"]*)"/g)) {
    assert.match(m[1]!, /^(\/(?!\/)|#)/, `non-local reference ${m[1]}`);
  }
  for (const link of DISCOVERY_LINKS) {
    assert.ok(html.includes(`href="${link}"`), `links ${link}`);
  }
});

Deno.test("GET / names every MCP tool the descriptor lists, and counts them right", async () => {
  const app = await createApp();
  const res = await app.request("/");
  assert.equal(res.status, 200);
  const html = await res.text();
  const descriptor = await (await app.request("/.well-known/mcp.json")).json();
  const names: string[] = descriptor.tools.map((t: { name: string }) => t.name);
  assert.deepEqual([...names].sort(), [...TOOL_NAMES].sort());
  const said = html.match(/Tools: ([^.]*)\./)?.[1];
  assert.deepEqual([...said!.matchAll(/<code>([a-z_]+)<\/code>/g)].map((m) => m[1]), names);
  const words = ["four", "five", "six", "seven", "eight", "nine"];
  const counts = [...html.matchAll(/\b(\w+) tools\b/g)].map((m) => m[1]!).filter((w) =>
    words.includes(w) || /^\d+$/.test(w)
  );
  assert.equal(counts.length, 2, "the descriptor link and the WebMCP note count the tools");
  for (const c of counts) assert.equal(c, words[names.length - 4] ?? String(names.length));
});

Deno.test("every form control has a label and each submission field its error slot", async () => {
  await using app = await createApp();
  const html = await (await app.request("/")).text();
  const ids = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((m) =>
    m[1]!
  );
  assert.ok(ids.length >= 20, `found ${ids.length} controls`);
  for (const id of ids) assert.ok(html.includes(`<label for="${id}"`), `label for #${id}`);
  const forms = {
    "coverage-form": ["city", "country"],
    "lead-form": ["email", "description", "company", "contact_name", "city", "service_type"],
    "quote-form": [
      "company",
      "contact_name",
      "email",
      "city",
      "service_type",
      "description",
      "phone",
      "country",
      "site_address",
      "requested_date",
      "requested_time",
      "engineer_count",
      "estimated_hours",
      "out_of_hours",
    ],
  };
  for (const [form, fields] of Object.entries(forms)) {
    const start = html.indexOf(`<form id="${form}"`);
    assert.ok(start >= 0, form);
    const markup = html.slice(start, html.indexOf("</form>", start));
    assert.match(markup, /\bnovalidate\b/, `${form} leaves validation to the service`);
    for (const field of fields) {
      assert.match(markup, new RegExp(`name="${field}"`), `${form} has ${field}`);
      assert.match(
        markup,
        new RegExp(`data-error-for="${field}"`),
        `${form} shows ${field} errors`,
      );
    }
  }
  assert.match(html, /name="requested_date" type="date"/);
  assert.match(html, /name="requested_time" type="time"/);
  assert.match(html, /name="engineer_count" type="number"[^>]*min="1" max="50"/);
  assert.match(html, /<select id="q-service" name="service_type"/);
  assert.match(html, /name="out_of_hours" type="checkbox"/);
});

Deno.test("the assets are served with their content types under the same CSP", async (t) => {
  await using app = await createApp();
  for (
    const [path, type] of [
      ["/assets/app.js", "text/javascript; charset=utf-8"],
      ["/assets/styles.css", "text/css; charset=utf-8"],
      ["/assets/words.js", "text/javascript; charset=utf-8"],
      ["/assets/favicon.svg", "image/svg+xml"],
    ]
  ) {
    await t.step(path!, async () => {
      const res = await app.request(path!);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), type);
      assert.equal(res.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.ok((await res.text()).length > 100);
    });
  }
});

Deno.test("the script (app.js and every module it imports, each preloaded) builds the DOM as text and takes tool schemas from the descriptor", async () => {
  await using app = await createApp();
  // The script is app.js and the modules it imports, each served under /assets/.
  const modules = new Map<string, string>();
  const pending = ["app.js"];
  for (let name; (name = pending.pop());) {
    if (modules.has(name)) continue;
    const res = await app.request(`/assets/${name}`);
    assert.equal(res.status, 200, name);
    const text = await res.text();
    modules.set(name, text);
    for (const m of text.matchAll(/from "\.\/([a-z_]+\.js)"/g)) pending.push(m[1]!);
    assert.match(text, /^\/\/ @ts-check/, `deno check type-checks ${name}`);
  }
  const js = [...modules.values()].join("\n");
  const html = await (await app.request("/")).text();
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/assets\/([a-z_]+\.js)">/g)]
    .map((m) => m[1]).sort();
  assert.deepEqual(preloaded, [...modules.keys()].filter((m) => m !== "app.js").sort());
  assert.doesNotMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  assert.match(js, /textContent/);
  assert.match(js, /\/\.well-known\/mcp\.json/);
  assert.match(js, /inputSchema: tool\.input_schema/);
  assert.match(js, /page\.modelContext \|\| nav\.modelContext/);
  assert.match(js, /^\/\/ @ts-check/, "deno check type-checks the script");
  // No copy of a tool schema lives in the script.
  assert.doesNotMatch(js, /"properties"|additionalProperties/);
  const css = await (await app.request("/assets/styles.css")).text();
  assert.doesNotMatch(css, /@import|url\(/, "the stylesheet loads nothing else");
});

Deno.test("an unknown asset is 404 in the API error shape", async (t) => {
  await using app = await createApp();
  for (const path of ["/assets/nope.js", "/assets/app.js.map", "/assets/..%2Fapp.ts"]) {
    await t.step(path, async () => {
      const res = await app.request(path);
      assert.equal(res.status, 404);
      const body = await res.json();
      assert.equal(body.ok, false);
      assert.equal(body.error, "not_found");
    });
  }
});

Deno.test("the page carries the catalog, the covered cities and the form choices without script", async (t) => {
  await using app = await createApp();
  const html = await (await app.request("/")).text();
  const { services, locations } = catalog();
  await t.step("every service, with its rate", () => {
    const list = html.slice(
      html.indexOf('<ul id="service-list"'),
      html.indexOf("</ul>", html.indexOf('<ul id="service-list"')),
    );
    assert.equal(list.match(/<li class="service-card">/g)?.length, services.length);
    for (const s of services) {
      assert.ok(list.includes(`<h3>${s.name}</h3>`), s.name);
      assert.ok(list.includes(`data-service="${s.id}"`), s.id);
    }
    assert.match(list, /€95 \/ h/);
  });
  await t.step("every covered city, by region, with its country's name", () => {
    for (const l of locations) {
      assert.ok(html.includes(`<span class="city-name">${l.city}</span>`), l.city);
    }
    assert.ok(html.includes("Germany"));
    assert.match(html, /<h4>Europe <span class="muted">\(\d+\)<\/span><\/h4>/);
  });
  await t.step("the hero states the coverage in figures", () => {
    const countries = new Set(locations.map((l) => l.country)).size;
    assert.ok(html.includes(`${locations.length} cities, ${countries} countries`));
    assert.doesNotMatch(html, /Nothing billable<\/h2>|>Anonymous<\/h2>/);
  });
  await t.step("the service and country boxes list what is offered", () => {
    for (const id of ["q-service", "l-service"]) {
      const start = html.indexOf(`<select id="${id}"`);
      const select = html.slice(start, html.indexOf("</select>", start));
      assert.equal(select.match(/<option value="[a-z-]+">/g)?.length, services.length, id);
    }
    const start = html.indexOf('<select id="q-country"');
    const select = html.slice(start, html.indexOf("</select>", start));
    assert.match(select, /<option value="DE">Germany<\/option>/);
    assert.doesNotMatch(html, /maxlength="2"/, "no country box cut at two characters");
  });
  await t.step("a privacy notice, and no raw status link", () => {
    assert.match(html, /<section id="privacy"/);
    assert.doesNotMatch(html, /href="\/healthz"/);
    assert.doesNotMatch(html, /<!-- slot:/, "every slot is filled");
  });
});

Deno.test("the page escapes what the catalog says", () => {
  const base = catalog();
  const hostile = {
    ...base,
    services: [{ ...base.services[0]!, name: '<img src=x onerror="1">' }],
  };
  const html = renderHome(hostile, "https://api.test");
  assert.ok(html.includes("&lt;img src=x onerror=&quot;1&quot;&gt;"));
  assert.doesNotMatch(html, /<img src=x/);
});

Deno.test("the page prints the MCP endpoint at the configured base URL, script or not", async (t) => {
  for (const base of ["https://api.test", "https://fieldservices.example.com:8443"]) {
    await t.step(base, async () => {
      await using app = await createApp({ env: { BASE_URL: base } });
      const html = await (await app.request("/")).text();
      assert.ok(html.includes(`<code>${base}/api/v1/mcp</code>`), "the real endpoint");
      assert.doesNotMatch(html, /this-host|data-origin/, "no placeholder for a script to fill");
    });
  }
  await t.step("docs/api.md says so", async () => {
    const api = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
    assert.match(
      api,
      /and the MCP endpoint from `BASE_URL`\s+\(`https:\/\/api\.example\.com\/api\/v1\/mcp`\), so the page is complete with JavaScript off/,
    );
  });
  await t.step("the script no longer rewrites it", async () => {
    await using app = await createApp();
    const script = await (await app.request("/assets/app.js")).text();
    assert.doesNotMatch(script, /data-origin|location\.origin/);
  });
});

/** A JSON fixture as a browser posts it: every value a string. */
const asForm = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));

/** The stored submissions, oldest first. */
const submissions = async (app: TestApp) =>
  (await Array.fromAsync(app.kv.list<SubmissionRecord>({ prefix: ["submissions"] })))
    .map((e) => e.value);

/** Posts a form as a browser with script off does. */
function formPost(app: Requester, path: string, fields: Record<string, string>, origin?: string) {
  return app.request(path, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      ...(origin ? { Origin: origin } : {}),
    },
    body: new URLSearchParams(fields).toString(),
  });
}

Deno.test("the forms work without script: a plain post gets a page", async (t) => {
  await using app = await createApp();
  await t.step("a lead gets its receipt as a page, and is recorded as from the web", async () => {
    const res = await formPost(
      app,
      "/forms/lead",
      { ...LEAD, company: "", service_type: "" },
      app.config.baseUrl,
    );
    assert.equal(res.status, 202);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(res.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
    const html = await res.text();
    assert.match(html, /Message received/);
    // no-referrer would make the browser send `Origin: null`, which the origin rule refuses.
    assert.equal((await app.request("/")).headers.get("referrer-policy"), "same-origin");
    assert.match(html, /Waiting for review by our team/);
    const id = html.match(/<code class="request-id">(lead_[0-9A-Z]+)<\/code>/)?.[1];
    assert.ok(id, "the page shows the request id");
    const [stored] = await submissions(app);
    assert.equal(stored?.request_id, id);
    assert.equal(stored?.channel, "web");
  });
  await t.step("a quote with problems lists them in the page's words", async () => {
    const res = await formPost(app, "/forms/quote", {
      email: "not-an-email",
      city: "Zürich",
      engineer_count: "2",
      out_of_hours: "on",
    });
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(html, /Your quote request was not sent/);
    assert.match(html, /<li>Company is required<\/li>/);
    assert.match(html, /<li>Contact name is required<\/li>/);
    assert.match(html, /<li>Email must be a valid email address/);
    assert.doesNotMatch(html, /contact_name/);
  });
  await t.step("a full quote gets its estimate", async () => {
    const res = await formPost(app, "/forms/quote", { ...asForm(QUOTE), out_of_hours: "on" });
    assert.equal(res.status, 202);
    const html = await res.text();
    assert.match(html, /Quote request received/);
    assert.match(html, /Budget estimate \(non-binding\)/);
    // The form's strings are read as the quote's numbers and the checkbox's "on" as true.
    const basis = (await submissions(app)).at(-1)?.budget_estimate?.basis;
    assert.deepEqual([basis?.engineers, basis?.hours, basis?.out_of_hours], [2, 3, true]);
  });
  await t.step("another site's form is refused before anything is stored", async () => {
    const before = (await submissions(app)).length;
    const res = await formPost(app, "/forms/lead", LEAD, "https://evil.example");
    assert.equal(res.status, 403);
    assert.equal((await submissions(app)).length, before);
  });
});

Deno.test("the forms keep the submission rules: human review, nothing billable, limits (SPEC §4.6, §8)", async (t) => {
  await using app = await createApp({ env: { RATE_LIMIT_SUBMIT: "2" } });
  await t.step(
    "the script's JSON answer is the REST answer: pending review, nothing billable",
    async () => {
      const res = await post(app, "/forms/quote", QUOTE);
      assert.equal(res.status, 202);
      const body = await res.json();
      assert.equal(body.status, "pending");
      assert.equal(body.requires_human_approval, true);
      assert.equal(body.billable_order_created, false);
      assert.equal(body.budget_estimate.non_binding, true);
    },
  );
  await t.step("an oversized plain post is a 413 page, and nothing is stored", async () => {
    const before = (await submissions(app)).length;
    const res = await formPost(app, "/forms/lead", { ...LEAD, description: "x".repeat(70_000) });
    assert.equal(res.status, 413);
    assert.match(await res.text(), /Your message was not sent/);
    assert.equal((await submissions(app)).length, before);
  });
  await t.step(
    "plain posts count against the same submission limit, and get a 429 page",
    async () => {
      // RATE_LIMIT_SUBMIT is 2: the JSON quote and the oversized post above spent it.
      const res = await formPost(app, "/forms/lead", LEAD);
      assert.equal(res.status, 429);
      assert.ok(res.headers.get("retry-after"));
      assert.match(await res.text(), /Your message was not sent/);
    },
  );
});

Deno.test("each submission records its channel: web, api or mcp", async () => {
  await using app = await createApp();
  const idOf = async (res: Response) => (await res.json()).request_id as string;
  // Three requests: the same one again, on any channel, would replay the first answer.
  const lead = (n: number) => ({ ...LEAD, description: `${LEAD.description} #${n}` });
  const web = await idOf(await post(app, "/forms/lead", lead(1)));
  const api = await idOf(await post(app, "/api/v1/intake", lead(2)));
  const mcp = String(
    (await mcpToolCall(app, "submit_lead", lead(3))).structuredContent.request_id,
  );
  const channels = new Map((await submissions(app)).map((r) => [r.request_id, r.channel]));
  assert.deepEqual([channels.get(web), channels.get(api), channels.get(mcp)], [
    "web",
    "api",
    "mcp",
  ]);
});
