/**
 * The audit trail's store (store/staff_audit.ts): entries newest first, a page at a time,
 * each kept AUDIT_RETENTION_MS; an action of more than one commit appends its entry alone.
 */

import assert from "node:assert/strict";
import { FakeClock, testStore } from "../_helpers.ts";
import {
  appendAudit,
  AUDIT_RETENTION_MS,
  type AuditEntry,
  type AuditFact,
  listAudit,
} from "../../src/store/staff_audit.ts";

const fact = (target: string): AuditFact => ({
  member_id: null,
  actor: "cli",
  session: "cli",
  action: "remove_member",
  target,
  detail: null,
});

Deno.test("listAudit pages the trail newest first and leaves out entries past their retention", async () => {
  using kv = await testStore();
  const clock = new FakeClock();
  for (let i = 0; i < 5; i++) {
    await appendAudit(kv, fact(`m${i}`), clock.now());
    clock.advance(1000);
  }
  const first: AuditEntry[] = await listAudit(kv, clock.now(), 2);
  assert.deepEqual(first.map((e) => e.target), ["m4", "m3"]);
  const last = first.at(-1)!;
  const next = await listAudit(kv, clock.now(), 2, { atMs: last.at, id: last.entry_id });
  assert.deepEqual(next.map((e) => e.target), ["m2", "m1"]);
  assert.ok(next.every((e) => e.entry_id && e.at < last.at));

  clock.advance(AUDIT_RETENTION_MS - 3000);
  assert.deepEqual((await listAudit(kv, clock.now(), 10)).map((e) => e.target), ["m4", "m3"]);
});
