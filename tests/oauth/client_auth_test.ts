import assert from "node:assert/strict";
import { decodeBasic } from "../../src/oauth/client_auth.ts";

Deno.test("decodeBasic splits at the first colon and form-decodes each half", () => {
  assert.deepEqual(decodeBasic("Basic " + btoa("a%3Ab:c:d+e")), { id: "a:b", secret: "c:d e" });
});

Deno.test("decodeBasic accepts any case of the scheme and extra spaces", () => {
  assert.deepEqual(decodeBasic("bAsIc   " + btoa("id:secret") + " "), {
    id: "id",
    secret: "secret",
  });
});

Deno.test("decodeBasic returns null for anything malformed", async (t) => {
  const cases: (string | null)[] = [
    null,
    "",
    "Basic",
    "Basic ",
    "Bearer " + btoa("a:b"),
    "Basic " + btoa("ab"),
    "Basic " + btoa(":secret"),
    "Basic " + btoa("id:"),
    "Basic " + btoa("id:%"),
    "Basic YTpi=", // bad padding
    "Basic YTpi!!!!",
    "Basic " + btoa("a:b") + " extra",
    "Basic /w==", // 0xff: not UTF-8
  ];
  for (const header of cases) {
    await t.step(String(header), () => assert.equal(decodeBasic(header), null));
  }
});
