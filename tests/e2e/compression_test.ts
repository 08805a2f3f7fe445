/**
 * Compression on a real port, the service started as it is run (`deno task start`): the
 * static documents are compressed once it listens, before requests need them; and with Deno's
 * own automatic compression on (`DENO_SERVE_AUTOMATIC_COMPRESSION=1`, off by default since
 * Deno 2.9), no answer that carries a secret or a form token goes out compressed, and a public
 * one does (tests/e2e/_length_oracle.ts; deploy_test.ts checks the same on Deno Deploy's
 * runtime).
 */

import assert from "node:assert/strict";
import { startServiceOnTempKv } from "../_service.ts";
import { assertNoLengthOracle, enrolCode } from "./_length_oracle.ts";

Deno.test("with Deno's automatic compression on, no answer that carries a secret or a form token is compressed", async () => {
  const code = enrolCode();
  await using service = await startServiceOnTempKv({
    STAFF_ENROL_CODE: code,
    DENO_SERVE_AUTOMATIC_COMPRESSION: "1",
  });
  await assertNoLengthOracle(service, code);
});

Deno.test("once the service listens, it compresses its static documents before a request asks", async () => {
  await using service = await startServiceOnTempKv();
  const listening = service.logs.findIndex((l) => l.msg === "listening");
  assert.ok(listening >= 0);
  const done = await service.waitFor((l) => l.msg === "documents compressed");
  assert.ok(service.logs.indexOf(done) > listening);
  assert.ok((done.encodings as number) >= 20, JSON.stringify(done));
  const res = await fetch(`${service.baseUrl}/api/v1/openapi.json`, {
    headers: { "Accept-Encoding": "br" },
  });
  assert.equal(res.headers.get("content-encoding"), "br");
  await res.body?.cancel();
});
