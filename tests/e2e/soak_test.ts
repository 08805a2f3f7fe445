import assert from "node:assert/strict";
import { formatSoak, runSoak } from "../../bench/soak.ts";

const SECONDS = Number(Deno.env.get("SOAK_SECONDS") ?? 10);

// Memory growth is printed with the report but never asserted: it depends on what else the
// machine runs. `deno task soak --max-growth 0.2` checks it on a quiet machine.
Deno.test(`a ${SECONDS} s mixed soak has no 5xx and no connection error`, async () => {
  const report = await runSoak({ seconds: SECONDS });
  console.log(formatSoak(report));
  assert.deepEqual(report.failures, []);
  assert.equal(report.connectionErrors, 0);
  assert.ok(report.requests > 1000, `only ${report.requests} requests`);
  assert.deepEqual(
    Object.keys(report.statuses).filter((s) => Number(s) >= 500),
    [],
  );
  for (const route of Object.keys(report.routes)) assert.ok(report.routes[route]!.count > 0, route);
  assert.equal(Object.keys(report.routes).length, 8);
});
