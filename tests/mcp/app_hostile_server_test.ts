/**
 * The quote builder's server side attacked: catalog text with markup reaches the document
 * only as text; the script and stylesheet inlining refuses every way to end its element
 * early; `resources/read` with odd URIs, in both eras, serves the one document or nothing.
 */

import assert from "node:assert/strict";
import { buildCatalog, type Catalog, PLACES_FILE } from "../../src/catalog/catalog.ts";
import servicesFile from "../../data/services.v1.json" with { type: "json" };
import locationsFile from "../../data/locations.v1.json" with { type: "json" };
import holidaysFile from "../../data/holidays.v1.json" with { type: "json" };
import { rawElementText } from "../../src/web/html.ts";
import { createApp, mcpPost } from "../_helpers.ts";

const placesFile = Deno.readFileSync(PLACES_FILE);

const URI = "ui://dc-field-services/quote-builder";
const CITY = `</script><img src=x onerror=alert(1)><!--`;
const SERVICE = `"><svg onload=alert(1)>'</style><style>`;

function hostileCatalog(): Catalog {
  const locations = structuredClone(locationsFile);
  locations.locations[0]!.city = CITY;
  const services = structuredClone(servicesFile);
  services.services[0]!.name = SERVICE;
  return buildCatalog({ services, locations, places: placesFile, holidays: holidaysFile });
}

/** One `resources/read` in an era: the parsed JSON-RPC answer and the HTTP status. */
async function read(app: Awaited<ReturnType<typeof createApp>>, era: string, uri: unknown) {
  const modern = era === "2026-07-28";
  const headers: Record<string, string> = { "MCP-Protocol-Version": era };
  const params: Record<string, unknown> = { uri };
  if (modern) {
    headers["Mcp-Method"] = "resources/read";
    if (typeof uri === "string") headers["Mcp-Name"] = uri;
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": era,
      "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
  }
  const res = await mcpPost(
    app,
    { jsonrpc: "2.0", id: 3, method: "resources/read", params },
    headers,
  );
  const body = await res.text();
  return { status: res.status, message: JSON.parse(body.slice(body.indexOf("{"))) };
}

/** The sequence of tags of a document, `<script>` and `<style>` contents left out. */
function tagsOf(doc: string): string[] {
  const markup = doc.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, "<$1></$1>");
  return [...markup.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[0]!);
}

Deno.test("catalog text with markup reaches the quote builder's document only as text", async () => {
  await using plain = await createApp();
  await using hostile = await createApp({ catalog: hostileCatalog() });
  const docOf = async (app: typeof plain) =>
    (await read(app, "2025-11-25", URI)).message.result.contents[0].text as string;
  const [before, after] = [await docOf(plain), await docOf(hostile)];
  assert.notEqual(after, before);
  assert.deepEqual(tagsOf(after), tagsOf(before), "the same elements, in the same order");
  assert.equal(after.match(/<\/script/gi)?.length, 1, "one script element, ended once");
  assert.ok(after.includes('data-city="&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&lt;!--"'));
  assert.ok(after.includes('<option value="&quot;&gt;&lt;svg onload=alert(1)&gt;&#39;&lt;/style'));
  assert.ok(!after.includes(CITY) && !after.includes(SERVICE));
});

Deno.test("rawElementText refuses every way its text could end the element or open a comment", () => {
  const script = [
    "</script>",
    "</SCRIPT>",
    "</script >",
    "</ScRiPt\t",
    "</script/",
    "x = '</script'",
    "<!--",
    "<!---->",
    "// <!-- a comment to the parser",
  ];
  for (const text of script) {
    assert.throws(() => rawElementText("script", `a ${text} b`), /end the element early/, text);
  }
  const style = ["</style>", "</STYLE", "/* </style> */", "a { content: '</style ' }", "<!--"];
  for (const text of style) {
    assert.throws(() => rawElementText("style", `a ${text} b`), /end the element early/, text);
  }
  for (const attributes of [' type="module"><script>', " onload=x()", ' type="a"b"']) {
    assert.throws(() => rawElementText("script", "1", attributes), /attributes/, attributes);
  }
  // What cannot end the element is kept as it is.
  const fine = "a < b; c = '</scrip'; d = '<\\/script>'; e = '< /script>'";
  assert.equal(rawElementText("script", fine).toString(), `<script>${fine}</script>`);
});

Deno.test("resources/read with odd URIs, both eras: the one document or an error, never another", async (t) => {
  await using app = await createApp();
  const canonical = (await read(app, "2025-11-25", URI)).message.result.contents[0].text;
  const refused = [
    `${URI}#x`,
    `${URI}?`,
    `${URI}%00`,
    `${URI}/`,
    "ui://DC-FIELD-SERVICES/quote-builder",
    "ui://dc-field-services/",
    "ui://dc-field-services/quote-builder-",
    "ui:dc-field-services/quote-builder",
    "file:///etc/passwd",
    "https://evil.example/quote-builder",
    "",
    "x".repeat(50_000),
    5,
    null,
    [URI],
    { uri: URI },
  ];
  for (const era of ["2025-11-25", "2026-07-28"]) {
    await t.step(era, async () => {
      for (const uri of refused) {
        const { status, message } = await read(app, era, uri);
        const said = `${JSON.stringify(uri).slice(0, 60)}: ${
          JSON.stringify(message).slice(0, 200)
        }`;
        assert.ok(status === 200 || status === 400, said);
        assert.equal(message.result, undefined, said);
        assert.equal(typeof message.error.code, "number", said);
      }
      // What the SDK reads as the same URL (scheme case, dot segments) is the same document.
      for (
        const uri of [
          URI,
          "UI://dc-field-services/quote-builder",
          `ui://dc-field-services/./quote-builder`,
        ]
      ) {
        const { message } = await read(app, era, uri);
        assert.equal(message.result.contents[0].text, canonical, uri);
        assert.equal(message.result.contents[0].uri, URI, uri);
      }
    });
  }
  assert.deepEqual(app.logs.filter((l) => l.level === "error"), [], "nothing logged as an error");
});
