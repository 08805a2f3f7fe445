/**
 * The webhook verification function printed in docs/operations.md, run as printed against
 * real deliveries of the review notifier.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../src/config.ts";
import { sendNotices, SIGNATURE_HEADER, signWebhook } from "../src/review/notifier.ts";
import { documentedWebhookVerifier } from "./_docs.ts";
import { LEAD } from "./_fixtures.ts";
import { createApp, post } from "./_helpers.ts";

Deno.test("the documented webhook verifier accepts a real delivery and refuses a replay, a change or another secret", async (t) => {
  const verify = await documentedWebhookVerifier();
  const secret = "0123456789abcdef-review";
  await using app = await createApp();
  assert.equal((await post(app, "/api/v1/intake", LEAD)).status, 202);
  const received: { header: string | null; body: string }[] = [];
  await sendNotices({
    kv: app.kv,
    config: loadConfig({
      REVIEW_WEBHOOK_URL: "https://hooks.test/review",
      REVIEW_WEBHOOK_SECRET: secret,
    }),
    now: app.clock.now,
    log: () => {},
    fetch: (_url, init) => {
      const headers = new Headers(init?.headers);
      received.push({ header: headers.get(SIGNATURE_HEADER), body: String(init?.body) });
      return Promise.resolve(new Response(null, { status: 204 }));
    },
  });
  assert.equal(received.length, 1);
  const { header, body } = received[0]!;
  const sentAt = Math.floor(app.clock.now() / 1000);

  await t.step("the delivery as received, checked at its time and 4 minutes later", async () => {
    assert.equal(await verify(secret, header, body, sentAt), true);
    assert.equal(await verify(secret, header, body, sentAt + 240), true);
  });
  await t.step("the same delivery replayed 6 minutes later", async () => {
    assert.equal(await verify(secret, header, body, sentAt + 360), false);
  });
  await t.step("a changed body, a changed time, another secret, no header", async () => {
    assert.equal(await verify(secret, header, body.replace("lead", "quote"), sentAt), false);
    const otherTime = header!.replace(/t=\d+/, `t=${sentAt + 1}`);
    assert.equal(await verify(secret, otherTime, body, sentAt), false);
    assert.equal(await verify("another-secret-0123", header, body, sentAt), false);
    assert.equal(await verify(secret, null, body, sentAt), false);
    assert.equal(await verify(secret, "t=abc,v1=zz", body, sentAt), false);
  });
  await t.step(
    "a later attempt, signed anew by the service, verifies at its own time",
    async () => {
      const later = sentAt + 3600;
      assert.equal(await verify(secret, signWebhook(secret, later, body), body, later), true);
    },
  );
});
