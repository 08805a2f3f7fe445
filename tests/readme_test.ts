import assert from "node:assert/strict";
import { root, startService } from "./_service.ts";

async function walkthrough(): Promise<string> {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const block = readme.match(
    /<!-- walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/,
  )?.[1];
  assert.ok(block, "README.md has a walkthrough block");
  return block;
}

Deno.test("the README walkthrough works as printed against deno task start", async () => {
  await using service = await startService();
  const script = await walkthrough();
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    env: { BASE: service.baseUrl },
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  // 1. discovery documents and the RFC 9728 hint
  assert.ok(stdout.includes(`"resource":"${service.baseUrl}"`));
  assert.ok(stdout.includes(`"issuer":"${service.baseUrl}"`));
  assert.ok(
    stdout.includes(`resource_metadata="${service.baseUrl}/.well-known/oauth-protected-resource"`),
  );
  // 4. reads: services and coverage succeed, locations is out of scope
  assert.match(stdout, /\{"ok":true,"services":\[/);
  assert.match(stdout, /\{"ok":true,"coverage":\{[^\n]*"covered":true/);
  assert.ok(stdout.includes('"error":"insufficient_scope"'));
  // 5. revocation answers 200, the next read 401
  assert.ok(stdout.trimEnd().endsWith("200\n401"), stdout.slice(-200));
});
