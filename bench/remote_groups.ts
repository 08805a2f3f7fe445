/**
 * @module
 * Group commit over a far-away store: how many submission-shaped writes a second one
 * instance commits when every commit is a round trip, by group shape. Each write is what a
 * submission commits (3 checks, 8 sets, a 2 KiB payload); `tests/_remote_store.ts` adds the
 * latency and refuses what denokv or Deno Deploy would. Prints one line per shape:
 *
 *   deno run -A bench/remote_groups.ts [--writes 300] [--latency 90]
 */

import { parseArgs } from "node:util";
import { GROUP_LIMITS, GroupCommit, REMOTE_PIPELINE } from "../src/store/group_commit.ts";
import { SQLITE_CHECKS } from "../src/store/limits.ts";
import { remoteStore } from "../tests/_remote_store.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    writes: { type: "string", default: "300" },
    latency: { type: "string", default: "90" },
  },
});
const writes = Number(values.writes);
const latencyMs = Number(values.latency);

const SHAPES = [
  { label: "10 checks, 2 in flight", checks: GROUP_LIMITS.checks, inFlight: 2 },
  {
    label: `10 checks, ${REMOTE_PIPELINE} in flight (remote)`,
    checks: 10,
    inFlight: REMOTE_PIPELINE,
  },
  {
    label: `${SQLITE_CHECKS} checks, 2 in flight (Deploy's docs only)`,
    checks: SQLITE_CHECKS,
    inFlight: 2,
  },
];

const payload = new Uint8Array(2048);
for (const shape of SHAPES) {
  const local = await Deno.openKv(":memory:");
  const far = remoteStore(local, { latencyMs, limits: { checks: shape.checks } });
  const kv = new GroupCommit((apply) => {
    const op = far.atomic();
    apply(op);
    return op.commit();
  }, { ...GROUP_LIMITS, checks: shape.checks, inFlight: shape.inFlight });
  far.mark();
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: writes }, (_, i) => {
    const op = kv.atomic();
    for (const part of ["s", "o", "i"]) op.check({ key: [part, i], versionstamp: null });
    for (const part of ["s", "o", "i", "t", "n", "d", "p"]) op.set([part, i], { i });
    return op.set(["payload", i, 0], payload).commit();
  }));
  const ms = performance.now() - started;
  if (!results.every((r) => r.ok) || far.stats.refused) throw new Error(`${shape.label}: failed`);
  console.log(
    `${shape.label}: ${Math.round(writes / ms * 1000)} writes/s, ${far.sinceMark().commit} ` +
      `commits, ${far.trips()} round trips for ${writes} writes at ${latencyMs} ms`,
  );
  local.close();
}
