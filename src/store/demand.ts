/**
 * @module
 * Where demand falls outside coverage, as stored: per UTC day, how many requests read each
 * place as known but not covered. catalog/demand.ts counts them in memory and hands them
 * here in batches ({@linkcode addDemand}); the staff console and `deno task review demand`
 * read them back aggregated by place ({@linkcode topDemand}). A place is the gazetteer's
 * name, country and subdivision, never what a caller typed, and nothing of a request (its
 * id, address or time of day) is kept.
 *
 * Keys (keys.ts):
 * - `["demand", day, place_key]` → `{ n, name, country, subdivision, by }`, kept
 *   {@linkcode DEMAND_RETENTION_DAYS} days after its last write
 *
 * **A batch** is written ten place-days to a commit (KV's 10 checks, limits.ts), one commit
 * after the other: each ten read eventually in one `getMany`, then added by check-and-set.
 * A commit whose check failed (another instance added to one of its keys meanwhile) is
 * tried again on what its strong read-back shows, so two instances' counts add up; past
 * {@linkcode _ATTEMPTS} conflicts in a row its counts are given up. A batch of P
 * place-days costs ⌈P/10⌉ eventual `getMany` and ⌈P/10⌉ commits, 2⌈P/10⌉ round trips when
 * nothing conflicts (tests/store/round_trips_test.ts).
 *
 * **Never added twice.** Over KV Connect a commit whose answer was lost comes back
 * `ok: false` after landing (store/commits.ts). `by`, a random tag of the commit written on
 * each of its keys, tells that from a conflict: a key of the read-back holding the tag
 * shows the commit landed, and it is not tried again. Only if another instance rewrote
 * every key of the commit between its landing and the read-back would it count twice.
 *
 * **Reading** ({@linkcode topDemand}) lists the last `days` UTC days at once, each up to
 * {@linkcode DAY_CAP} entries (two pages). The gazetteer holds some 50,000 places and a
 * day of real demand a few hundred at most, so only a flood of distinct places reaches
 * the cap; such a day is read in key order (country, subdivision, name) up to it, and the
 * answer names it in `cut`.
 */

import type { Kv } from "./store.ts";
import { commitOrReadBack } from "./commits.ts";
import { demandKey, demandOfDay } from "./keys.ts";
import { KV_LIMITS } from "./limits.ts";
import { pagesOf } from "./pages.ts";
import { DAY_MS } from "../time.ts";

/** Days a day's counts are kept after their last write: the 30 shown and a margin. */
export const DEMAND_RETENTION_DAYS = 40;
const DEMAND_RETENTION_MS = DEMAND_RETENTION_DAYS * DAY_MS;
/** Days and places shown unless asked otherwise: the console's page, `review demand`. */
export const DEMAND_DAYS = 30;
export const DEMAND_ROWS = 20;
/** Entries read of one day at most: two list pages. */
export const DAY_CAP = 2 * KV_LIMITS.listBatch;
/** Commits tried for ten place-days while other instances keep changing them. */
const _ATTEMPTS = 8;

/** A place as counted: the gazetteer's, never a caller's text. */
interface DemandPlace {
  name: string;
  country: string;
  /** ISO 3166-2 (`US-ID`), or null where the gazetteer gives none. */
  subdivision: string | null;
}

/** Requests that read `place` as not covered on `day` (UTC, `YYYY-MM-DD`). */
export interface DemandCount {
  day: string;
  place: DemandPlace;
  n: number;
}

/** One stored count. */
interface DemandRecord extends DemandPlace {
  n: number;
  /** A random tag of the commit that wrote it last (see "Never added twice"). */
  by: string;
}

/** The UTC day of `ms`, as the keys name it: `2026-11-22`. */
export function demandDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A place's part of its key: the same place always gives the same key. */
export function placeKey(place: DemandPlace): string {
  return [place.country, place.subdivision ?? "", place.name]
    .map((part) => part.normalize("NFC").toLowerCase().replace(/\s+/g, " ").trim())
    .join("|");
}

/**
 * Adds `counts` to the stored ones, ten place-days a commit, one commit at a time. Never
 * throws: it answers the requests it could not count, and the store's error if one ended
 * the batch (what was committed before it stays).
 */
export async function addDemand(
  kv: Kv,
  counts: readonly DemandCount[],
): Promise<{ lost: number; error?: unknown }> {
  let lost = 0;
  for (let i = 0; i < counts.length; i += KV_LIMITS.checks) {
    const some = counts.slice(i, i + KV_LIMITS.checks);
    try {
      if (!(await _addSome(kv, some))) lost += _requests(some);
    } catch (error) {
      return { lost: lost + _requests(counts.slice(i)), error };
    }
  }
  return { lost };
}

/** One commit of at most ten place-days, tried again on a conflict; false when given up. */
async function _addSome(kv: Kv, counts: readonly DemandCount[]): Promise<boolean> {
  const keys = counts.map((c) => demandKey(c.day, placeKey(c.place)));
  let seen: Deno.KvEntryMaybe<unknown>[] = await kv.getMany<unknown[]>(keys, {
    consistency: "eventual",
  });
  for (let attempt = 0; attempt < _ATTEMPTS; attempt++) {
    const by = crypto.randomUUID().slice(0, 8);
    const res = await commitOrReadBack(kv, (op) =>
      counts.forEach((c, i) => {
        const entry = seen[i]!;
        const record: DemandRecord = { n: _n(entry.value) + c.n, ...c.place, by };
        op.check(entry).set(entry.key, record, { expireIn: DEMAND_RETENTION_MS });
      }), keys);
    if (res.ok) return true;
    // Its answer lost: the commit landed if any key holds its tag (it wrote all or none).
    if (res.entries.some((e) => (e.value as Partial<DemandRecord> | null)?.by === by)) return true;
    seen = res.entries;
  }
  return false;
}

function _n(value: unknown): number {
  const n = (value as Partial<DemandRecord> | null)?.n;
  return typeof n === "number" && Number.isSafeInteger(n) ? n : 0;
}

function _requests(counts: readonly DemandCount[]): number {
  return counts.reduce((sum, c) => sum + c.n, 0);
}

/** A place's demand over the days read. */
export interface DemandRow extends DemandPlace {
  /** Requests that read it as not covered. */
  requests: number;
  /** Days on which at least one did. */
  days: number;
}

/** The places most asked for over some days. */
interface TopDemand {
  /** The first and the last UTC day read (the last is today). */
  from: string;
  to: string;
  /** Places counted over those days, however many `rows` shows. */
  places: number;
  /** The most asked for first. */
  rows: DemandRow[];
  /** Days that reached {@linkcode DAY_CAP}: read only up to it. */
  cut: string[];
}

/**
 * The `limit` places most asked for over the last `days` UTC days (today included), summed
 * from each day's counts: every day listed at once, each up to {@linkcode DAY_CAP}.
 */
export async function topDemand(
  kv: Kv,
  now: number,
  days = DEMAND_DAYS,
  limit = DEMAND_ROWS,
): Promise<TopDemand> {
  const dayList = Array.from({ length: days }, (_, i) => demandDay(now - i * DAY_MS));
  const byPlace = new Map<string, DemandRow>();
  const cut: string[] = [];
  await Promise.all(dayList.map(async (day) => {
    let read = 0;
    for await (const page of pagesOf<unknown>(kv, demandOfDay(day), KV_LIMITS.listBatch)) {
      for (const entry of page) _tally(byPlace, entry);
      read += page.length;
      if (read >= DAY_CAP) {
        cut.push(day);
        return;
      }
    }
  }));
  const rows = [...byPlace.values()].sort((a, b) =>
    b.requests - a.requests || b.days - a.days || a.country.localeCompare(b.country) ||
    a.name.localeCompare(b.name)
  );
  return {
    from: dayList.at(-1)!,
    to: dayList[0]!,
    places: byPlace.size,
    rows: rows.slice(0, limit),
    cut: cut.sort(),
  };
}

/** Adds one stored count to its place's row. */
function _tally(byPlace: Map<string, DemandRow>, entry: Deno.KvEntry<unknown>): void {
  const v = entry.value as Partial<DemandRecord> | null;
  if (typeof v?.name !== "string" || typeof v.country !== "string") return;
  const key = String(entry.key.at(-1));
  const row = byPlace.get(key);
  if (row) {
    row.requests += _n(v);
    row.days++;
  } else {
    const place = { name: v.name, country: v.country, subdivision: v.subdivision ?? null };
    byPlace.set(key, { ...place, requests: _n(v), days: 1 });
  }
}
