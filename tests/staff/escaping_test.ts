/**
 * The console's HTML is safe by construction (issue 28: "submitted text that tries to
 * script the page"): the `html` template escapes every value that is not already `Html`,
 * and every console page carries the no-store, never-framed headers.
 */

import assert from "node:assert/strict";
import { Html, html, STAFF_HEADERS, staffPage } from "../../src/staff/html.ts";
import { escapeHtml } from "../../src/web/html.ts";

const HOSTILE = `"><script>alert(1)</script><img src=x onerror='alert(2)'>&amp;`;

Deno.test("html escapes values, keeps Html as it is, joins arrays and drops empties", () => {
  const item = (s: string) => html`<li>${s}</li>`;
  const page: Html = html`
    <p
      title="${HOSTILE}">${HOSTILE}</p><ul>${[HOSTILE, "b"].map(
        item,
      )}</ul>${null}${undefined}${false}${0}
  `;
  assert.ok(page instanceof Html);
  const text = page.toString();
  assert.ok(!text.includes("<script>"), text);
  assert.ok(!text.includes("<img"), text);
  assert.ok(!text.includes(`"><`), "an attribute cannot be closed from a value");
  assert.equal(
    escapeHtml(HOSTILE),
    "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&#39;alert(2)&#39;&gt;&amp;amp;",
  );
  assert.ok(
    text.includes(`<li>${escapeHtml(HOSTILE)}</li><li>b</li>`),
    "Html items go in as they are",
  );
  assert.match(text, /<\/ul>0\s*$/, "null, undefined and false are nothing; 0 is text");
});

Deno.test("a console page carries STAFF_HEADERS: no store, no framing, the site's CSP", async () => {
  const res = staffPage(HOSTILE, html`<p>${HOSTILE}</p>`, { who: { name: HOSTILE, csrf: "t" } });
  for (const [name, value] of Object.entries(STAFF_HEADERS)) {
    assert.equal(res.headers.get(name), value, name);
  }
  assert.equal(res.headers.get("cache-control"), "no-store, private, no-transform");
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
  const text = await res.text();
  assert.ok(!text.includes("<script>alert"), "the title and the name are text too");
  assert.ok(!/ style=/.test(text), "no style attribute (the CSP forbids inline styles)");
});
