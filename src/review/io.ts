/**
 * @module
 * What every staff CLI command receives, the refusal that exits 1, the usage error that
 * exits 2, and who the audit trail says the CLI is.
 */

import type { Kv } from "../store/store.ts";

/** The store, the clock and the two output streams of one CLI run. */
export interface ReviewIo {
  kv: Kv;
  now: () => number;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Which store was opened, in words (a path, or the default file), for `list`. */
  store?: string;
  /** The service's public origin (`BASE_URL`, else from `PORT`), for `invite`; may throw. */
  baseUrl?: () => string;
}

/** A refusal that is not a usage error (unknown id, already decided): exit 1. */
export class ReviewError extends Error {}

/** A command line the CLI cannot run (unknown command, missing argument): exit 2, with usage. */
export class UsageError extends Error {}

/**
 * Who the audit trail names for an action of the CLI: a person with the store and no
 * member record, so no member id and no session.
 */
export const CLI_ACTOR = { member_id: null, actor: "cli", session: "cli" } as const;
