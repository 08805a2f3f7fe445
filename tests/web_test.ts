import assert from "node:assert/strict";
import { CONTENT_SECURITY_POLICY, renderHome } from "../src/web.ts";
import { catalog, createApp } from "./_helpers.ts";

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

Deno.test("the script builds the DOM as text and takes tool schemas from the descriptor", async () => {
  await using app = await createApp();
  const js = await (await app.request("/assets/app.js")).text();
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
    assert.match(html, /<h3>Europe <span class="muted">\(\d+\)<\/span><\/h3>/);
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
  const html = renderHome(hostile);
  assert.ok(html.includes("&#60;img src=x onerror=&#34;1&#34;&#62;"));
  assert.doesNotMatch(html, /<img src=x/);
});
