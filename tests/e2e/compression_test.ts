/**
 * Compression on a real port, the service started as it is run (`deno task start`): with
 * Deno's own automatic compression on (`DENO_SERVE_AUTOMATIC_COMPRESSION=1`, off by default
 * since Deno 2.9), no answer that carries a secret or a form token goes out compressed, and a
 * public one does (tests/e2e/_length_oracle.ts; deploy_test.ts checks the same on Deno
 * Deploy's runtime).
 */

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
