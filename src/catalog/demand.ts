/**
 * @module
 * Where agents ask for work the company does not cover, counted on the way:
 * {@linkcode DemandCounter}'s `note` adds one, in memory, to the place a coverage answer
 * read as known but not covered (`known_uncovered`), under the UTC day. Covered, nearby,
 * ambiguous, unknown and country answers are not counted. What is kept is the gazetteer's
 * place (name, country, subdivision), never the text the caller sent. Batches are written
 * by store/demand.ts; `note` touches memory and a timer only, so a coverage read makes no
 * store call of its own and waits for nothing.
 *
 * **When a batch is written.** {@linkcode INTERVAL_MS} after the first count since the
 * last batch (no timer while nothing is pending); sooner once {@linkcode MAX_PENDING}
 * place-days are pending, though not sooner than {@linkcode FULL_GAP_MS} after the last
 * batch began; and at the drain (ops/drain.ts), once every request is answered. One
 * batch at a time, each written outside any request.
 *
 * **Bounds.** At most {@linkcode MAX_PENDING} place-days pending, beside the batch being
 * written. Past it a new place is not counted until the next batch begins
 * (`dcfs.demand.dropped`, reason `full`); a place already pending still is. Why 250: a
 * full batch is 25 eventual reads and 25 commits one after the other, 2.7 s over the test
 * store at Deno Deploy's 90 ms a commit from Europe (tests/_remote_store.ts), which a
 * drain still writes within its 4 s when its requests end quickly; a minute of real
 * demand is not expected to come near it: the bound is for a flood of distinct places,
 * and memory is no concern (about 500 bytes a place-day measured, 120 KB at the bound,
 * twice that with a batch being written). And why the gap: such a flood would otherwise
 * keep one batch after another going; with it an instance writes at most 25 demand
 * commits every 10 s, whatever the traffic.
 *
 * **What may be lost, what never happens.** A kill (SIGKILL, a crash) loses what is
 * pending: the counts of one interval at most. A batch the store fails (an outage) loses
 * what it had not written (`dcfs.demand.dropped`, reason `failed`, and one warning).
 * These are statistics: losing a minute of them costs less than writing on every read.
 * A count is never added twice from one batch (store/demand.ts, "Never added twice"), and
 * no request waits for a batch: `note` makes no store call, and a batch commits one commit
 * at a time, so it holds at most one of group commit's slots (store/group_commit.ts); under
 * load a request's commit may go out one commit later, never behind a whole batch.
 */

import type { Coverage } from "./coverage_types.ts";
import { type Logger, reason } from "../http/log.ts";
import { addDemand, type DemandCount, demandDay, placeKey } from "../store/demand.ts";
import type { Kv } from "../store/store.ts";
import { countDemandDropped } from "../telemetry/metrics.ts";
import { MINUTE_MS } from "../time.ts";

/** How long counts wait in memory, at most, before they are written. */
const INTERVAL_MS = MINUTE_MS;
/** Place-days pending at most. */
export const MAX_PENDING = 250;
/** The least time between the starts of two batches when the pending bound is reached. */
const FULL_GAP_MS = 10_000;

/** What a counter needs; tests shorten the timings. */
interface DemandOptions {
  now: () => number;
  log: Logger;
  intervalMs?: number;
  maxPending?: number;
  fullGapMs?: number;
}

/** One handler's counts of places outside coverage, written in batches. */
export class DemandCounter {
  #pending = new Map<string, DemandCount>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDue = Infinity;
  #writing = false;
  #lastBatch = -Infinity; // performance.now() when the last batch began
  #tail: Promise<void> = Promise.resolve();
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #interval: number;
  readonly #max: number;
  readonly #fullGap: number;

  constructor(private readonly kv: Kv, options: DemandOptions) {
    this.#now = options.now;
    this.#log = options.log;
    this.#interval = options.intervalMs ?? INTERVAL_MS;
    this.#max = options.maxPending ?? MAX_PENDING;
    this.#fullGap = options.fullGapMs ?? FULL_GAP_MS;
  }

  /** Place-days counted and not yet handed to a batch. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Counts `coverage`'s place when it was read as known but not covered. */
  note(coverage: Coverage): void {
    const at = coverage.match === "known_uncovered" ? coverage.place : null;
    if (!at) return;
    const place = { name: at.name, country: at.country, subdivision: at.subdivision };
    const day = demandDay(this.#now());
    const id = `${day}|${placeKey(place)}`;
    const count = this.#pending.get(id);
    if (count) count.n++;
    else if (this.#pending.size >= this.#max) return countDemandDropped("full");
    else this.#pending.set(id, { day, place, n: 1 });
    this.#schedule();
  }

  /** Writes what is pending, after the batch being written if any. Never rejects. */
  flush(): Promise<void> {
    this.#tail = this.#tail.then(() => this.#write());
    return this.#tail;
  }

  /** Sets the timer of the next batch, unless one is set as soon or a batch is going. */
  #schedule(): void {
    if (this.#writing || !this.#pending.size) return; // the batch's end calls this again
    const now = performance.now();
    const due = this.#pending.size >= this.#max
      ? Math.max(now, this.#lastBatch + this.#fullGap)
      : now + this.#interval;
    if (this.#timer !== undefined && this.#timerDue <= due) return;
    clearTimeout(this.#timer);
    this.#timerDue = due;
    this.#timer = setTimeout(() => void this.flush(), due - now);
    Deno.unrefTimer(this.#timer);
  }

  async #write(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#pending.size) return;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    this.#writing = true;
    this.#lastBatch = performance.now();
    try {
      const { lost, error } = await addDemand(this.kv, batch);
      if (lost) {
        countDemandDropped("failed", lost);
        const why = error === undefined ? "changed by other instances" : reason(error);
        this.#log({ level: "warn", msg: "demand counts not written", lost, reason: why });
      }
    } finally {
      this.#writing = false;
      this.#schedule();
    }
  }
}
