/**
 * `/llms.txt` and `/robots.txt` through the handler: the llmstxt.org layout, links that
 * the service itself serves, the tools from the tool list, the configured limits, and
 * robots rules that keep crawlers off every write and every credentialed endpoint.
 */

import assert from "node:assert/strict";
import { TOOLS } from "../../src/mcp/tools.ts";
import { PATHS, templatePath } from "../../src/http/paths.ts";
import { createApp } from "../_helpers.ts";

const BASE = "https://api.test";

/** The `- [title](url): note` lines of each `## Section`. */
function sections(text: string): Map<string, { title: string; url: string; note: string }[]> {
  const out = new Map<string, { title: string; url: string; note: string }[]>();
  let current: { title: string; url: string; note: string }[] | undefined;
  for (const line of text.split("\n")) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) out.set(heading[1]!, current = []);
    const item = /^- \[([^\]]+)\]\(([^)]+)\)(?:: (.*))?$/.exec(line);
    if (item && current) current.push({ title: item[1]!, url: item[2]!, note: item[3] ?? "" });
  }
  return out;
}

Deno.test("/llms.txt follows llmstxt.org: H1, summary, notes, then link lists", async () => {
  await using app = await createApp();
  const res = await app.request("/llms.txt");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
  assert.equal(res.headers.get("cache-control"), "public, max-age=300");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.match(res.headers.get("etag") ?? "", /^"[\w-]+"$/);
  const text = await res.text();
  const lines = text.split("\n");
  assert.equal(lines[0], "# DC Field Services");
  assert.equal(lines[1], "");
  assert.match(lines[2]!, /^> \S/);
  // Only the H1 above the sections, and no heading but H2 after it.
  assert.deepEqual(lines.filter((l) => /^#{1,6} /.test(l)).map((l) => l.split(" ")[0]), [
    "#",
    "##",
    "##",
    "##",
  ]);
  assert.deepEqual([...sections(text).keys()], ["Discovery", "Tools", "Optional"]);
  for (
    const rule of [
      /anonymous/,
      /billed|billable/,
      /human review/,
      /non-binding/,
      /429 rate_limited.*Retry-After/,
      /client[\s_]credentials/,
      /Idempotency-Key/,
    ]
  ) {
    assert.match(text, rule);
  }
});

Deno.test("/llms.txt states the de-duplication rule that tests/intake/same_request_test.ts proves", async () => {
  await using app = await createApp();
  const text = (await (await app.request("/llms.txt")).text()).replace(/\s+/g, " ");
  for (
    const sentence of [
      "An identical submission from the same address within 10 minutes returns the first " +
      "answer (`replayed: true`) and stores nothing new, whatever key it carries (the same, " +
      "another or none) and over REST or MCP alike.",
      "A key (`Idempotency-Key` on REST, `idempotency_key` on MCP) that stored a submission " +
      "replays its answer for 24 h; the same key with a different body is `409`.",
    ]
  ) {
    assert.ok(text.includes(sentence), sentence);
  }
});

Deno.test("/llms.txt links only to what the service serves, with absolute URLs", async () => {
  await using app = await createApp();
  const text = await (await app.request("/llms.txt")).text();
  const links = [...sections(text).values()].flat();
  for (const { url } of links) assert.ok(url.startsWith(`${BASE}/`), url);
  const discovery = sections(text).get("Discovery")!.map((l) => new URL(l.url).pathname);
  for (
    const path of [
      PATHS.openApi,
      PATHS.toolDescriptor,
      PATHS.serverCard,
      PATHS.aiCatalog,
      PATHS.authorizationServerMetadata,
      PATHS.protectedResourceMetadata,
      PATHS.mcp,
    ]
  ) {
    assert.ok(discovery.includes(path), path);
  }
  for (const path of discovery.filter((p) => p !== PATHS.mcp)) {
    const res = await app.request(path);
    await res.body?.cancel();
    assert.equal(res.status, 200, path);
  }
});

Deno.test("/llms.txt lists every tool of the tool list, and no other", async () => {
  await using app = await createApp();
  const tools = sections(await (await app.request("/llms.txt")).text()).get("Tools")!;
  assert.deepEqual(tools.map((t) => t.title), TOOLS.map((t) => t.name));
  for (const [i, tool] of TOOLS.entries()) {
    assert.equal(tools[i]!.url, BASE + templatePath(tool.http.path));
    assert.ok(tools[i]!.note.includes(`${tool.http.method} ${templatePath(tool.http.path)}`));
    assert.ok(tools[i]!.note.endsWith(tool.description), tool.name);
    assert.equal(tools[i]!.note.includes("reviewed by a person"), tool.submits, tool.name);
  }
});

Deno.test("/llms.txt states the configured base URL and limits", async () => {
  await using app = await createApp({
    env: { BASE_URL: "https://fs.example", RATE_LIMIT_SUBMIT: "7", RATE_LIMIT_ESTIMATE: "0" },
  });
  const text = await (await app.request("/llms.txt")).text();
  assert.match(text, /7 submissions/);
  assert.doesNotMatch(text, /estimates,/);
  assert.ok(text.includes("(https://fs.example/api/v1/openapi.json)"));
  assert.ok(!text.includes(BASE));
});

Deno.test("HEAD /llms.txt and /robots.txt: the GET's headers, no body", async () => {
  await using app = await createApp();
  for (const path of ["/llms.txt", "/robots.txt"]) {
    const get = await app.request(path);
    const length = (await get.bytes()).byteLength;
    const head = await app.request(path, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    assert.equal(head.headers.get("content-length"), String(length));
    assert.equal(head.headers.get("etag"), get.headers.get("etag"));
  }
});

/** Whether RFC 9309 rules allow `path`: the longest matching rule wins, Allow on a tie. */
function allowed(robots: string, path: string): boolean {
  let best = { length: -1, allow: true };
  for (const line of robots.split("\n")) {
    const rule = /^(Allow|Disallow):\s*(\S*)$/i.exec(line);
    if (!rule || !path.startsWith(rule[2]!)) continue;
    const length = rule[2]!.length;
    const allow = rule[1]!.toLowerCase() === "allow";
    if (length > best.length || (length === best.length && allow)) best = { length, allow };
  }
  return best.allow;
}

Deno.test("/robots.txt keeps crawlers off writes and credentials, not off the documents", async () => {
  await using app = await createApp();
  const res = await app.request("/robots.txt");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(res.headers.get("cache-control"), "public, max-age=300");
  const robots = await res.text();
  assert.match(robots, /^User-agent: \*$/m);
  for (
    const path of [
      "/",
      "/assets/styles.css",
      "/llms.txt",
      PATHS.openApi,
      PATHS.toolDescriptor,
      PATHS.serverCard,
      PATHS.aiCatalog,
      PATHS.mcpCatalog,
      PATHS.authorizationServerMetadata,
      PATHS.protectedResourceMetadata,
      PATHS.services,
      PATHS.locations,
    ]
  ) {
    assert.ok(allowed(robots, path), `${path} should be allowed`);
  }
  for (
    const path of [
      PATHS.mcp,
      PATHS.identity,
      PATHS.token,
      PATHS.revoke,
      PATHS.agentServices,
      PATHS.agentCoverage,
      PATHS.intake,
      PATHS.quotes,
      `${PATHS.estimate}?city=Frankfurt`,
      "/api/v1/requests/req_123",
      PATHS.leadForm,
      PATHS.quoteForm,
    ]
  ) {
    assert.ok(!allowed(robots, path), `${path} should be disallowed`);
  }
});
