/**
 * @module
 * `deno task review audit`: the audit trail of staff actions, newest first, a page at a
 * time (store/staff_audit.ts), as a table or JSON. `--before <at_ms>.<entry_id>` goes on
 * from a page's last entry, the same cursor the console's audit page puts in its "Next
 * page" link ({@linkcode parseAuditCursor}). Entries hold identifiers and fixed words only,
 * never submitted text. A member is named by name and member id (`member_id` in the JSON):
 * two members may share a name.
 */

import { type AuditEntry, listAudit } from "../store/staff_audit.ts";
import type { ReviewIo } from "./io.ts";
import { tableRow } from "./terminal.ts";

/** Entries a page shows unless `--limit` says otherwise. */
export const AUDIT_PAGE = 50;
/** Most entries one page may ask for. */
export const AUDIT_MAX = 1000;

/** Where a page of the trail starts: before the entry at this time with this id. */
interface AuditCursor {
  atMs: number;
  id: string;
}

/** The cursor of the page after `entry`: `<at_ms>.<entry_id>`. */
export function auditCursor(entry: AuditEntry): string {
  return `${entry.at}.${entry.entry_id}`;
}

/** Reads a cursor written by {@linkcode auditCursor}; undefined when it is not one. */
export function parseAuditCursor(text: string): AuditCursor | undefined {
  const m = text.match(
    /^(\d{1,15})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/,
  );
  return m ? { atMs: Number(m[1]), id: m[2]! } : undefined;
}

const _COLUMNS = [
  ["AT", 24],
  ["ACTOR", 20],
  ["MEMBER", 36],
  ["SESSION", 8],
  ["ACTION", 14],
  ["TARGET", 32],
  ["DETAIL", 24],
] as const;

/** `audit [--limit N] [--before <at_ms>.<entry_id>] [--json]`: a page of the trail. */
export async function printAudit(
  io: ReviewIo,
  o: { limit: number; before?: AuditCursor; json?: boolean },
): Promise<void> {
  const entries = await listAudit(io.kv, io.now(), o.limit, o.before);
  if (o.json) {
    io.out(JSON.stringify(entries));
  } else if (!entries.length) {
    io.out(o.before ? "no older entries" : "no staff actions recorded");
  } else {
    const widths = _COLUMNS.map(([, width]) => width);
    const rows = entries.map((e) =>
      tableRow([
        new Date(e.at).toISOString(),
        e.actor,
        e.member_id ?? "-",
        e.session,
        e.action,
        e.target ?? "-",
        e.detail ?? "-",
      ], widths)
    );
    io.out([tableRow(_COLUMNS.map(([name]) => name), widths), ...rows].join("\n"));
  }
  const last = entries.at(-1);
  if (last && entries.length === o.limit) {
    io.err(`more: deno task review audit --before ${auditCursor(last)}`);
  }
}
