/**
 * The quote builder's document (src/mcp/app/), read as an MCP host reads it: through
 * `resources/read` on POST /api/v1/mcp, in-process. It is the same bytes for every caller
 * and read, built from the catalog alone; it names every covered city on its map and every
 * service in its form; it points at nothing outside itself, carries no event-handler
 * attribute, and its script never turns text into markup. What it does in a browser, behind
 * a host, is for the Chromium host test.
 */

import assert from "node:assert/strict";
import { buildCatalog, type Catalog, PLACES_FILE } from "../../src/catalog/catalog.ts";
import servicesFile from "../../data/services.v1.json" with { type: "json" };
import locationsFile from "../../data/locations.v1.json" with { type: "json" };
import holidaysFile from "../../data/holidays.v1.json" with { type: "json" };
import { QUOTE_BUILDER } from "../../src/mcp/app/resource.ts";
import { quoteBuilderDocument } from "../../src/mcp/app/document.ts";
import { rawElementText } from "../../src/web/html.ts";
import { createApp, mcpPost, mcpResult, mcpToolCall, type Requester } from "../_helpers.ts";

const placesFile = Deno.readFileSync(PLACES_FILE);

const SCRIPT = new URL("../../src/mcp/app/quote_builder.js", import.meta.url);
const HOSTILE = `<img src=x onerror="alert(1)">Zzyzx</script><!--`;

/** `resources/read` of the quote builder, as one stateless request. */
async function readDocument(app: Requester): Promise<string> {
  const res = await mcpPost(
    app,
    { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: QUOTE_BUILDER.uri } },
    { "MCP-Protocol-Version": "2025-11-25" },
  );
  assert.equal(res.status, 200);
  const { contents } = mcpResult(await res.text());
  assert.equal(contents.length, 1);
  assert.equal(contents[0].mimeType, "text/html;profile=mcp-app");
  return contents[0].text;
}

/** The shipped catalog with its first location and first service renamed. */
function renamedCatalog(): Catalog {
  const locations = structuredClone(locationsFile);
  locations.locations[0]!.city = "Frankfurt Rhein-Main";
  const services = structuredClone(servicesFile);
  services.services[0]!.name = "Remote hands, any hour";
  return buildCatalog({ services, locations, places: placesFile, holidays: holidaysFile });
}

/** The markup alone: the contents of `<script>` and `<style>` elements left out. */
function markupOf(doc: string): string {
  return doc.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, "<$1></$1>");
}

/** Every start tag's attributes, as `[tag, name, value]`. */
function attributesOf(markup: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const tag of markup.matchAll(/<([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    for (const attr of tag[2]!.matchAll(/\s+([^\s=>/]+)(?:="([^"]*)")?/g)) {
      out.push([tag[1]!.toLowerCase(), attr[1]!.toLowerCase(), attr[2] ?? ""]);
    }
  }
  return out;
}

/** The content of the first `<tag attributes>` element. */
function elementText(doc: string, tag: string, attributes = ""): string {
  const start = doc.indexOf(`<${tag}${attributes}>`);
  assert.ok(start >= 0, `the document has a <${tag}${attributes}>`);
  const from = start + tag.length + attributes.length + 2;
  return doc.slice(from, doc.indexOf(`</${tag}>`, from));
}

function unescape(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

Deno.test("resources/read serves the quote builder: the same bytes on every read, for every caller", async (t) => {
  await using app = await createApp();
  const first = await readDocument(app);

  await t.step(
    "a second read, and another app on the same catalog, get the same bytes",
    async () => {
      assert.equal(await readDocument(app), first);
      await using other = await createApp({ catalog: app.catalog });
      assert.equal(await readDocument(other), first);
    },
  );

  await t.step("it holds no caller data: hostile calls first change nothing", async () => {
    await using fresh = await createApp();
    const args = { city: HOSTILE, country: HOSTILE, service_type: HOSTILE };
    assert.equal((await mcpToolCall(fresh, "check_coverage", args)).isError, true);
    assert.equal((await mcpToolCall(fresh, "estimate_quote", args)).isError, true);
    await mcpToolCall(fresh, "check_coverage", { city: "Zzyzx" });
    const doc = await readDocument(fresh);
    assert.equal(doc, first);
    assert.ok(!doc.includes("Zzyzx"));
  });

  await t.step("it is built from the catalog: another catalog, another document", async () => {
    const catalog = renamedCatalog();
    await using renamed = await createApp({ catalog });
    const doc = await readDocument(renamed);
    assert.notEqual(doc, first);
    assert.equal(doc, quoteBuilderDocument(catalog).trim());
    assert.ok(doc.includes('data-city="Frankfurt Rhein-Main"'));
    assert.ok(doc.includes('<option value="Remote hands, any hour" data-id="remote-hands">'));
  });

  await t.step("it weighs well under 64 KB", () => {
    // About 49 KB, 8 KB of it the script's comments (its JSDoc types among them), shipped as written.
    const bytes = new TextEncoder().encode(first).length;
    assert.ok(bytes < 56 * 1024, `the document is ${bytes} bytes`);
  });
});

Deno.test("the quote builder's map has every covered city, with its id and name, apart from each other", async () => {
  await using app = await createApp();
  const doc = await readDocument(app);
  const svg = doc.match(
    /<svg id="map" role="img"[^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"[\s\S]*?<\/svg>/,
  );
  assert.ok(svg, "svg#map with role=img and a viewBox");
  assert.match(svg[0], /<title id="map-title">Map of the 30 covered cities<\/title>/);
  const [width, height] = [Number(svg[1]), Number(svg[2])];
  const circles = [
    ...svg[0].matchAll(
      /<circle class="city" data-id="([^"]+)" data-city="([^"]+)" data-country="([A-Z]{2})"\s+cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)">\s*<title>([^<]+)<\/title>\s*<\/circle>/g,
    ),
  ].map((m) => ({
    id: m[1]!,
    city: unescape(m[2]!),
    country: m[3]!,
    x: Number(m[4]),
    y: Number(m[5]),
    r: Number(m[6]),
    title: unescape(m[7]!),
  }));
  assert.equal((svg[0].match(/data-id=/g) ?? []).length, circles.length, "every city as a circle");
  assert.deepEqual(
    circles.map((c) => c.id).sort(),
    app.catalog.locations.map((l) => l.id).sort(),
  );
  for (const loc of app.catalog.locations) {
    const c = circles.find((c) => c.id === loc.id)!;
    assert.equal(c.city, loc.city);
    assert.equal(c.country, loc.country);
    assert.equal(
      c.title,
      `${loc.city}, ${loc.country}: on site within ${loc.response_time_hours} h`,
    );
    assert.ok(c.x - c.r >= 0 && c.x + c.r <= width && c.y - c.r >= 0 && c.y + c.r <= height);
  }
  for (const a of circles) {
    for (const b of circles) {
      if (a.id >= b.id) continue;
      const gap = Math.hypot(a.x - b.x, a.y - b.y) - a.r - b.r;
      assert.ok(gap >= 0.5, `${a.id} and ${b.id} are ${gap.toFixed(1)} apart`);
    }
  }
  assert.ok(/<text id="map-label"/.test(svg[0]), "a label the script writes the selected city in");
});

Deno.test("the quote builder's form: every field labelled, every service in the datalist", async () => {
  await using app = await createApp();
  const markup = markupOf(await readDocument(app));
  const ids = [...markup.matchAll(/<(?:input|select)\b[^>]*\bid="([^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(ids, [
    "city",
    "country",
    "service",
    "engineers",
    "hours",
    "date",
    "time",
    "out-of-hours",
  ]);
  for (const id of ids) assert.ok(markup.includes(`<label for="${id}">`), `#${id} has a label`);
  assert.match(markup, /<form id="job"/);
  assert.match(markup, /<input id="service" name="service" list="services"/);
  const datalist = elementText(markup, "datalist", ' id="services"');
  const options = [...datalist.matchAll(/<option value="([^"]+)" data-id="([^"]+)">/g)]
    .map((m) => [unescape(m[1]!), m[2]!]);
  assert.deepEqual(options, app.catalog.services.map((s) => [s.name, s.id]));
  for (const id of ["coverage", "estimate"]) {
    assert.match(markup, new RegExp(`<section id="${id}" data-state="idle"`));
  }
  for (const id of ["status", "ask-status"]) {
    assert.match(markup, new RegExp(`<p id="${id}" role="status"`));
  }
  assert.match(
    markup,
    /<button id="ask" type="button" disabled[^>]*>\s*Ask for a quote for this job\s*</,
  );
});

Deno.test("the quote builder points at nothing outside itself and carries no event-handler attribute", async () => {
  await using app = await createApp();
  const doc = await readDocument(app);
  const markup = markupOf(doc);
  const attributes = attributesOf(markup);
  assert.ok(attributes.length > 100, `${attributes.length} attributes read`);

  const linking = ["src", "href", "xlink:href", "action", "formaction", "srcset", "poster"];
  const links = attributes.filter(([, name]) => linking.includes(name) || name === "data");
  assert.deepEqual(links, [], "no attribute that loads or links anything");
  assert.deepEqual(attributes.filter(([, name]) => name.startsWith("on")), []);
  // The same, bluntly, for any attribute the reader above might not have parsed.
  assert.ok(!/\son[a-z]+\s*=/i.test(markup), "no on*= anywhere in the markup");
  assert.ok(!/\s(?:src|href|action|formaction|srcset)\s*=/i.test(markup), "no link anywhere");
  assert.deepEqual(attributes.filter(([, , value]) => /url\(|javascript:/i.test(value)), []);
  assert.ok(!/<(?:link|img|iframe|object|embed|base|meta http-equiv)\b/i.test(markup));

  const style = elementText(doc, "style");
  assert.ok(!/url\(|@import|@font-face/i.test(style), "the stylesheet loads nothing");
  assert.ok(!/\b(?:https?:|\/\/[a-z])/i.test(doc), "no absolute URL anywhere in the document");
  const scripts = [...doc.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [' type="module"'], "one inline module script");
});

Deno.test("the quote builder's script never turns text into markup or code", async (t) => {
  const forbidden = [
    "innerHTML",
    "outerHTML",
    "insertAdjacentHTML",
    "document.write",
    "eval(",
    "new Function",
    "createContextualFragment",
    "srcdoc",
    "DOMParser",
    "update-model-context",
    "request_quote",
    "submit_lead",
  ];
  const text = Deno.readTextFileSync(SCRIPT);
  await t.step("quote_builder.js", () => {
    assert.ok(text.startsWith("// @ts-check\n"), "it is type-checked");
    for (const word of forbidden) assert.ok(!text.includes(word), `it uses ${word}`);
    assert.ok(!/setTimeout\(\s*["'`]/.test(text), "it passes code as a string");
  });
  await t.step("the served script is the file whole, importing nothing", async () => {
    await using app = await createApp();
    const served = elementText(await readDocument(app), "script", ' type="module"');
    assert.equal(served, text);
    for (const word of ["ui/initialize", "tools/call", "ui/message", "size-changed"]) {
      assert.ok(served.includes(word), word);
    }
    assert.ok(!/^\s*(?:import|export)\b|\bimport\s*[(.]/m.test(served), "no import or export");
  });
});

Deno.test("rawElementText refuses text that could end its element or open a comment", () => {
  for (const text of ["a</script>b", "a</SCRIPT b", "a<!--b"]) {
    assert.throws(() => rawElementText("script", text), /would end the element early/, text);
  }
  assert.throws(() => rawElementText("style", "a</style>"), /would end the element early/);
  assert.throws(() => rawElementText("script", "a", ' onload="x()"x'), /attributes/);
  assert.equal(
    rawElementText("script", "let a = 1 < 2;", ' type="module"').toString(),
    '<script type="module">let a = 1 < 2;</script>',
  );
});
