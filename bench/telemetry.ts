/**
 * @module
 * What OpenTelemetry costs: the service with `OTEL_DENO` unset, with it on (exporting
 * OTLP/HTTP to a receiver in this process that keeps nothing), and on with 1 % of traces
 * sampled (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`), side by side in interleaved rounds, driven by `wrk` as `bench/load.ts` drives it: start-up (spawn to
 * the first `/healthz`), token issuance, a protected read and the public catalog.
 *
 *   deno task bench:otel [--seconds 5] [--rounds 2] [--no-save]
 */

import { parseArgs } from "node:util";
import { RATE_LIMITS_OFF } from "../tests/_fixtures.ts";
import { drive, ensureWrk, setupService, type Shape, spawnServer } from "./load.ts";

const ROOT = new URL("..", import.meta.url);
const args = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "2" },
    "no-save": { type: "boolean" },
  },
});
const seconds = Number(args.values.seconds);
const rounds = Number(args.values.rounds);
await ensureWrk();

// The collector stand-in: answers every export at once and keeps nothing.
let exports = 0;
const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  await req.arrayBuffer();
  exports++;
  return new Response("{}", { headers: { "Content-Type": "application/json" } });
});
const OTEL_ON = {
  OTEL_DENO: "true",
  OTEL_SERVICE_NAME: "dcfs-bench",
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
};

const scenarios: { id: string; shape: (s: Awaited<ReturnType<typeof setupService>>) => Shape }[] = [
  {
    id: "token",
    shape: (s) => ({
      method: "POST",
      path: "/oauth2/token",
      headers: { Authorization: s.basic, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    }),
  },
  {
    id: "protected read",
    shape: (s) => ({
      method: "GET",
      path: "/api/v1/agent/services",
      headers: { Authorization: s.bearer },
    }),
  },
  { id: "catalog", shape: () => ({ method: "GET", path: "/api/v1/services" }) },
];

const MODES = {
  off: {},
  on: OTEL_ON,
  sampled: {
    ...OTEL_ON,
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.01",
  },
};
type Mode = keyof typeof MODES;
const results: Record<string, Record<Mode, number[]>> = {};
const record = (id: string, mode: Mode, value: number) => {
  (results[id] ??= { off: [], on: [], sampled: [] })[mode].push(value);
};
const dir = await Deno.makeTempDir({ prefix: "dcfs-otel-bench-" });
try {
  for (let round = 0; round < rounds; round++) {
    for (const mode of Object.keys(MODES) as Mode[]) {
      const kvPath = `${dir}/${mode}-${round}.sqlite3`;
      await using server = await spawnServer({
        command: Deno.execPath(),
        args: ["task", "--quiet", "start"],
        cwd: ROOT,
        env: { KV_PATH: kvPath, ...RATE_LIMITS_OFF, ...MODES[mode] },
        ready: "/healthz",
      });
      record("start-up (ms)", mode, Math.round(server.startedInMs));
      const setup = await setupService(server.base);
      for (const s of scenarios) {
        const run = await drive(server.base, s.shape(setup), seconds);
        if (run.non2xx || run.errors) throw new Error(`${s.id} (${mode}): failures`);
        record(`${s.id} (req/s)`, mode, run.rate);
      }
    }
  }
} finally {
  await receiver.shutdown();
  await Deno.remove(dir, { recursive: true });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const table = [
  `OpenTelemetry cost, ${rounds} interleaved rounds of ${seconds} s, Deno ${Deno.version.deno}, ` +
  `${new Date().toISOString()}; ${exports} OTLP exports received`,
  "",
  "| what | OTEL_DENO unset | OTEL_DENO=true | on / off | 1 % sampled | sampled / off |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...Object.entries(results).map(([id, { off, on, sampled }]) =>
    `| ${id} | ${Math.round(mean(off))} | ${Math.round(mean(on))} | ${
      (mean(on) / mean(off)).toFixed(2)
    } | ${Math.round(mean(sampled))} | ${(mean(sampled) / mean(off)).toFixed(2)} |`
  ),
].join("\n");
console.log(table);
if (!args.values["no-save"]) {
  const name = `otel-${new Date().toISOString().slice(0, 16).replace(":", "-")}.md`;
  await Deno.writeTextFile(new URL(`bench/results/${name}`, ROOT), table + "\n");
  console.log(`saved bench/results/${name}`);
}
