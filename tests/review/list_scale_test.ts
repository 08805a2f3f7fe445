/**
 * `deno task review list` on a store of 150,000 submissions, as the real CLI: the case
 * that crashed (`Math.max(...rows)` past about 125k rows) prints its page, and `--all`
 * streams every row. The records are written as the service writes them (record and time
 * index key), many to a commit, so the store fills in seconds.
 */

import assert from "node:assert/strict";
import { newRequestId } from "../../src/intake/ids.ts";
import { submissionKey, timeIndexKey } from "../../src/store/keys.ts";
import type { SubmissionRecord } from "../../src/store/submissions.ts";
import { reviewCli } from "../_service.ts";

const TOTAL = 150_000;

Deno.test(`review list on ${TOTAL} submissions prints a page, and --all streams them all`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "dcfs-list-scale-" });
  const kvPath = `${dir}/kv.sqlite3`;
  try {
    const kv = await Deno.openKv(kvPath);
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < TOTAL; i += 400) {
      const op = kv.atomic();
      for (let j = i; j < Math.min(TOTAL, i + 400); j++) {
        const created = start + j * 1000;
        const id = newRequestId(j % 3 ? "lead" : "quote", created);
        const record: SubmissionRecord = {
          request_id: id,
          kind: j % 3 ? "lead" : "quote",
          summary: { company: `Company ${j}`, contact: `Contact ${j}`, city: "Frankfurt" },
          email_hash: null,
          channel: "api",
          status: "pending",
          created_at: new Date(created).toISOString(),
          payload: { chunks: 0, bytes: 0 },
          service_id: null,
          covered: true,
          site: null,
          urgency: null,
          budget_estimate: null,
          notified_at: new Date(created).toISOString(),
          decision: null,
          idempotent: false,
        };
        op.set(submissionKey(id), record).set(timeIndexKey(created, id), true);
      }
      assert.ok((await op.commit()).ok);
    }
    kv.close();

    const page = await reviewCli(kvPath, "list");
    assert.equal(page.code, 0, page.stderr);
    const rows = page.stdout.trim().split("\n").filter((l) => /^(lead|quote)_/.test(l));
    assert.equal(rows.length, 50, page.stdout.slice(0, 500));
    assert.match(rows[0]!, /Company 149999/, "newest first");
    assert.match(page.stderr, /--before (lead|quote)_/, "says how to get the next page");

    const all = await reviewCli(kvPath, "list", "--all");
    assert.equal(all.code, 0, all.stderr.slice(0, 500));
    const allRows = all.stdout.split("\n").filter((l) => /^(lead|quote)_/.test(l));
    assert.equal(allRows.length, TOTAL);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
