import assert from "node:assert/strict";
import {
  assertAgentWalkthrough,
  assertPublicWalkthrough,
  documentedBlock,
  runReadmeBlock,
} from "./_docs.ts";
import { startService } from "./_service.ts";

Deno.test("the README agent walkthrough works as printed against deno task start", async () => {
  await using service = await startService();
  assertAgentWalkthrough(await runReadmeBlock("walkthrough", service.baseUrl), service.baseUrl);
});

Deno.test("the README public walkthrough works as printed against deno task start", async () => {
  await using service = await startService();
  assertPublicWalkthrough(await runReadmeBlock("walkthrough-public", service.baseUrl));
});

Deno.test("the README agent walkthrough stops with a clear message when a step fails", async () => {
  await using service = await startService();
  // The same server under another name: the token's audience (BASE_URL) does not match.
  const wrongBase = service.baseUrl.replace("127.0.0.1", "localhost");
  const out = await new Deno.Command("bash", {
    args: ["-uo", "pipefail", "-c", await documentedBlock("README.md", "walkthrough")],
    env: { BASE: wrongBase },
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1, stderr);
  assert.match(stderr, /^stopped: no access_token in this answer: .*"invalid_target"/m);
  assert.match(stderr, /must be the service's BASE_URL/);
  // Nothing after the failed step ran: no reads with an empty token, no revocation.
  assert.doesNotMatch(stdout, /invalid_token|^\d{3}$/m);
});
