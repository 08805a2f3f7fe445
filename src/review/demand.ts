/**
 * @module
 * `deno task review demand [--days N] [--limit N] [--json]`: the places outside coverage
 * asked about most over the last days, the table the console's demand page shows
 * (store/demand.ts `topDemand`). Aggregated places only: nothing of a request is stored.
 */

import { DEMAND_DAYS, DEMAND_RETENTION_DAYS, DEMAND_ROWS, topDemand } from "../store/demand.ts";
import { type ReviewIo, UsageError } from "./io.ts";
import { tableRow } from "./terminal.ts";

/** Most places one run may ask for. */
const MAX_ROWS = 1000;

interface DemandOptions {
  days: number;
  limit: number;
  json?: boolean;
}

/** `--days` (1 to 40: what is kept) and `--limit` (1 to 1000); a usage error otherwise. */
export function demandOptions(
  o: { days?: string; limit?: string; json?: boolean },
): DemandOptions {
  return {
    days: _whole(o.days, DEMAND_DAYS, DEMAND_RETENTION_DAYS, "--days"),
    limit: _whole(o.limit, DEMAND_ROWS, MAX_ROWS, "--limit"),
    json: o.json,
  };
}

function _whole(text: string | undefined, given: number, max: number, name: string): number {
  const n = text === undefined ? given : Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new UsageError(`${name} must be a whole number from 1 to ${max}`);
  }
  return n;
}

const _COLUMNS = [
  ["PLACE", 32],
  ["SUBDIVISION", 11],
  ["COUNTRY", 7],
  ["REQUESTS", 8],
  ["DAYS", 4],
] as const;

/** Prints the places most asked for, as a table or one JSON object. */
export async function printDemand(io: ReviewIo, o: DemandOptions): Promise<void> {
  const top = await topDemand(io.kv, io.now(), o.days, o.limit);
  if (o.json) {
    const { from, to, places, rows, cut } = top;
    io.out(JSON.stringify({ days: o.days, from, to, places, rows, cut }));
    return;
  }
  if (!top.rows.length) {
    io.out(`no place outside coverage asked about from ${top.from} to ${top.to}`);
    return;
  }
  const widths = _COLUMNS.map(([, width]) => width);
  const rows = top.rows.map((r) =>
    tableRow([r.name, r.subdivision ?? "-", r.country, String(r.requests), String(r.days)], widths)
  );
  io.out([tableRow(_COLUMNS.map(([name]) => name), widths), ...rows].join("\n"));
  io.err(
    `${top.rows.length} of ${top.places} places outside coverage, ${top.from} to ${top.to} (UTC)`,
  );
  if (top.cut.length) {
    io.err(`${top.cut.join(", ")}: more places than one day's read takes; counted in part`);
  }
}
