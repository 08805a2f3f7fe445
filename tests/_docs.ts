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
