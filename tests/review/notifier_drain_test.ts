/**
 * The notifier under the real process's drain, as Deno Deploy stops an idle instance:
 * SIGINT, and SIGKILL 5 s later. A webhook POST in flight must not hold the drain: the
 * process exits 0 well before the SIGKILL, leaving the notice claimed and unsent.
 */

import assert from "node:assert/strict";
import type { OutboxEntry } from "../../src/store/outbox.ts";
import type { SubmissionRecord } from "../../src/store/submissions.ts";
import { LEAD } from "../_fixtures.ts";
import { startService } from "../_service.ts";
import { silentWebhook } from "./_notices.ts";

/** What Deno Deploy leaves between SIGINT and SIGKILL. */
const DEPLOY_GRACE_MS = 5_000;

Deno.test({
  name:
    "SIGINT with a webhook POST in flight: the process exits 0 within Deploy's 5 s, the notice kept",
  // The server's pid is found through /proc.
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using silent = silentWebhook();
    const dir = await Deno.makeTempDir({ prefix: "dcfs-drain-" });
    try {
      const kvPath = `${dir}/kv.sqlite3`;
      await using service = await startService({
        KV_PATH: kvPath,
        REVIEW_WEBHOOK_URL: silent.url,
      });
      const res = await fetch(`${service.baseUrl}/api/v1/intake`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(LEAD),
      });
      assert.equal(res.status, 202);
      const id: string = (await res.json()).request_id;
      await silent.received; // the notifier's POST is out, and will never be answered

      const started = performance.now();
      Deno.kill(await service.serverPid(), "SIGINT");
      const { code } = await service.child.status;
      const took = performance.now() - started;
      assert.equal(code, 0, "drained, not timed out");
      assert.ok(took < DEPLOY_GRACE_MS, `exited ${Math.round(took)} ms after SIGINT`);
      assert.ok(service.logs.some((r) => r.msg === "review notice cut by a stop"));

      // Claimed once, no failure recorded, not marked sent: the lease sends it again.
      const kv = await Deno.openKv(kvPath);
      try {
        const notice = (await kv.get<OutboxEntry>(["review_outbox", id])).value;
        assert.equal(notice?.attempts, 1);
        assert.equal(notice?.last_error, null);
        const record = (await kv.get<SubmissionRecord>(["submissions", id])).value;
        assert.equal(record?.notified_at, null);
      } finally {
        kv.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
