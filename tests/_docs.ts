/**
 * @module
 * Code blocks of the docs, for the tests that run them as printed. A block is marked
 * `<!-- name:start -->` … `<!-- name:end -->` around one fenced block.
 */

import assert from "node:assert/strict";
import { root } from "./_service.ts";

/** The body of the fenced block `name` in `file` (a path from the project root). */
export async function documentedBlock(file: string, name: string): Promise<string> {
  const text = await Deno.readTextFile(new URL(file, root));
  const found = text.match(
    new RegExp(
      `<!-- ${name}:start -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`,
    ),
  )?.[1];
  assert.ok(found, `${file} has a ${name} block`);
  return found;
}

/**
 * Runs the README's fenced block `name` with bash (`-euo pipefail`, as pasted into a shell),
 * `BASE` set to `base`; fails the test on a non-zero exit. Returns its stdout.
 */
export async function runReadmeBlock(
  name: string,
  base: string,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", await documentedBlock("README.md", name)],
    cwd: options.cwd,
    env: { ...options.env, BASE: base },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** What the README's agent walkthrough must print against the service at `baseUrl`. */
export function assertAgentWalkthrough(stdout: string, baseUrl: string): void {
  // 1. discovery documents and the RFC 9728 hint
  assert.ok(stdout.includes(`"resource":"${baseUrl}"`));
  assert.ok(stdout.includes(`"issuer":"${baseUrl}"`));
  assert.ok(stdout.includes(`resource_metadata="${baseUrl}/.well-known/oauth-protected-resource"`));
  // 4. reads: services and coverage succeed, locations is out of scope
  assert.match(stdout, /\{"ok":true,"services":\[/);
  assert.match(stdout, /\{"ok":true,"coverage":\{[^\n]*"covered":true/);
  assert.ok(stdout.includes('"error":"insufficient_scope"'));
  // 5. revocation answers 200, the next read 401
  assert.ok(stdout.trimEnd().endsWith("200\n401"), stdout.slice(-200));
}

/** What the README's public walkthrough must print. */
export function assertPublicWalkthrough(stdout: string): void {
  assert.match(stdout, /\{"ok":true,"services":\[/);
  assert.match(stdout, /"covered":true,"location":\{"id":"zrh"/);
  assert.match(stdout, /"covered":false[^\n]*"nearest":\[\{"id":"dus"/);
  assert.match(stdout, /\{"ok":true,"request_id":"lead_[0-9A-Z]{26}","status":"pending"/);
  assert.match(stdout, /\{"ok":true,"request_id":"quote_[0-9A-Z]{26}"[^\n]*"budget_estimate":\{/);
  assert.match(
    stdout,
    /\{"ok":true,"stored":false,"service_id":"rack-and-stack","budget_estimate":\{"currency":"EUR","tax_included":false,"tax":"Excludes tax: [^"]*sales tax[^"]*United States/,
  );
  assert.match(stdout, /"expected_review":\{"within_hours":24,"by":"[^"]+"\}/);
  assert.equal(stdout.match(/"billable_order_created":false/g)?.length, 2);
}

export type VerifyReviewWebhook = (
  secret: string,
  header: string | null,
  rawBody: string,
  nowS?: number,
  toleranceS?: number,
) => Promise<boolean>;

/** The `verifyReviewWebhook` function of docs/operations.md, imported as printed. */
export async function documentedWebhookVerifier(): Promise<VerifyReviewWebhook> {
  const code = await documentedBlock("docs/operations.md", "verify-webhook");
  const dir = await Deno.makeTempDir({ prefix: "dcfs-webhook-doc-" });
  const file = `${dir}/verify.ts`;
  await Deno.writeTextFile(file, code);
  try {
    return (await import(new URL(`file://${file}`).href)).verifyReviewWebhook;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
