import assert from "node:assert/strict";
import { root, startService } from "./_service.ts";

async function block(name: string): Promise<string> {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const found = readme.match(
    new RegExp(`<!-- ${name}:start -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`),
  )?.[1];
  assert.ok(found, `README.md has a ${name} block`);
  return found;
}

async function runBlock(name: string, base: string): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", await block(name)],
    env: { BASE: base },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test("the README agent walkthrough works as printed against deno task start", async () => {
  await using service = await startService();
  const stdout = await runBlock("walkthrough", service.baseUrl);
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

Deno.test("the README public walkthrough works as printed against deno task start", async () => {
  await using service = await startService();
  const stdout = await runBlock("walkthrough-public", service.baseUrl);
  assert.match(stdout, /\{"ok":true,"services":\[/);
  assert.match(stdout, /"covered":true,"location":\{"id":"zrh"/);
  assert.match(stdout, /"covered":false[^\n]*"nearest":\[\{"id":"dus"/);
  assert.match(stdout, /\{"ok":true,"request_id":"lead_[0-9A-Z]{26}","status":"pending_review"/);
  assert.match(stdout, /\{"ok":true,"request_id":"quote_[0-9A-Z]{26}"[^\n]*"budget_estimate":\{/);
  assert.match(
    stdout,
    /\{"ok":true,"stored":false,"service_id":"rack-and-stack","budget_estimate":\{"currency":"EUR","tax_included":false,"tax":"Excludes tax: [^"]*sales tax[^"]*United States/,
  );
  assert.match(stdout, /"expected_review":\{"within_hours":24,"by":"[^"]+"\}/);
  assert.equal(stdout.match(/"billable_order_created":false/g)?.length, 2);
});

Deno.test("the README agent walkthrough stops with a clear message when a step fails", async () => {
  await using service = await startService();
  // The same server under another name: the token's audience (BASE_URL) does not match.
  const wrongBase = service.baseUrl.replace("127.0.0.1", "localhost");
  const out = await new Deno.Command("bash", {
    args: ["-uo", "pipefail", "-c", await block("walkthrough")],
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
