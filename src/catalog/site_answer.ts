/**
 * @module
 * How the site reader (coverage.ts) writes what it decided: the answer of the part read as
 * the place, of a facility named (or of the datacenters a shared code names in one
 * location), and of readings that disagree, each reading a candidate. Every answer says which
 * part was read as the place, what agreed and what was read as no place, in its summary and in
 * `site`. The decision itself (which part, which facility, what disagrees) is coverage.ts's.
 */

import type { Catalog } from "./catalog.ts";
import type { Coverage, CoverageQuery, SiteCoverage } from "./coverage_types.ts";
import { coveredAnswer, emptyAnswer } from "./name_coverage.ts";
import type { Facility } from "./records.ts";
import { clip } from "../http/errors.ts";

/** A part of a site read as a place: the text looked up, as shown, and what it resolved to. */
export interface PlaceRead {
  part: { text: string; mentions: readonly unknown[] };
  /** The words of the part read as the place, as looked up. */
  place: string;
  /** The part as written, with the regions read beside it ("Ashburn, VA 20147"). */
  shown: string;
  site: SiteCoverage;
}

/** One reading of a site that disagrees with another, and the places it may be. */
interface Disagreeing {
  /** The words of the site it comes from. */
  text: string;
  candidates: Coverage["candidates"];
}

/**
 * The answer of a part read as the place: its own summary, then which site it came from, what
 * agreed and what was read as no place.
 */
export function placeAnswer(
  query: CoverageQuery,
  read: PlaceRead,
  ignored: string[],
  zip?: string,
): SiteCoverage {
  const whole = read.shown.trim() === query.city.trim();
  const notes = [
    ...(whole ? [] : [`read from the site "${clip(query.city.trim(), 60)}"`]),
    ...(zip ? [`ZIP code ${zip} agrees`] : []),
    ..._ignored(ignored),
  ];
  const coverage: Coverage = {
    ...read.site.coverage,
    query: _query(query),
    summary: read.site.coverage.summary + _notes(notes),
    site: { read_from: clip(read.shown, 60), facility: null, ignored },
  };
  return { ...read.site, coverage };
}

/** The coverage of a facility named (or of several in one location), with what agreed. */
export function facilityAnswer(
  catalog: Catalog,
  query: CoverageQuery,
  facility: Facility | Facility[],
  place: PlaceRead | undefined,
  ignored: string[],
  zip: string | undefined,
): SiteCoverage {
  const one = Array.isArray(facility) ? undefined : facility;
  const all = Array.isArray(facility) ? facility : [facility];
  const loc = catalog.locationById.get(all[0]!.location)!;
  const notes = [
    ...(place
      ? [`"${place.part.mentions.length ? _titled(place.place) : clip(place.shown, 60)}" agrees`]
      : []),
    ...(zip ? [`ZIP code ${zip} agrees`] : []),
    ..._ignored(ignored),
  ];
  const coverage: Coverage = {
    ...coveredAnswer(catalog, { query: _query(query), asked: loc.city }, loc),
    summary: `"${clip(query.city.trim(), 60)}" is read as ` +
      (one
        ? `the datacenter ${one.name} (${one.address})`
        : `one of the datacenters ${all.map((f) => f.name).join(", ")}`) +
      `, which ${loc.city}, ${loc.country} covers: ${loc.services.length} services, an ` +
      `engineer on site within ${loc.response_time_hours} h.${_notes(notes)}`,
    site: {
      read_from: place ? clip(place.shown, 60) : null,
      facility: one
        ? {
          id: one.id,
          operator: one.operator,
          name: one.name,
          address: one.address,
          location: one.location,
        }
        : null,
      ignored,
    },
  };
  return { coverage, timeZone: loc.timezone, point: one ?? loc };
}

/** Facilities named, none of them in the country given: where they are, to ask again. */
export function facilityElsewhere(
  catalog: Catalog,
  query: CoverageQuery,
  facilities: Facility[],
): SiteCoverage {
  const where = [...new Set(facilities.map((f) => f.location))]
    .map((id) => catalog.locationById.get(id)!);
  const [first] = where;
  const coverage: Coverage = {
    ...emptyAnswer(_query(query), "other_country"),
    candidates: where.map((l) => ({ city: l.city, country: l.country, covered: true })),
    summary: `"${clip(query.city.trim(), 60)}" names the datacenter` +
      `${facilities.length > 1 ? "s" : ""} ${facilities.map((f) => f.name).join(", ")}, in ` +
      `${where.map((l) => `${l.city}, ${l.country}`).join(" and ")}, not in ` +
      `${query.country!.toUpperCase()}: ask again with country ${first!.country} if that is ` +
      "the one.",
    site: { read_from: null, facility: null, ignored: [] },
  };
  return { coverage, timeZone: null, point: null };
}

/**
 * A part's reading as a disagreeing one: the place it was read as, or, for a name of several
 * places ("Chester"), each of them.
 */
export function disagreeing(r: PlaceRead): Disagreeing {
  const c = r.site.coverage;
  const country = c.location?.country ?? c.place?.country;
  if (c.location || (c.place && country)) {
    const city = c.location?.city ?? c.place!.name;
    return { text: r.part.text, candidates: [{ city, country: country!, covered: c.covered }] };
  }
  return { text: r.part.text, candidates: c.candidates };
}

/** Readings that disagree (places far apart, a facility elsewhere): each is a candidate. */
export function conflictAnswer(
  query: CoverageQuery,
  readings: Disagreeing[],
  ignored: string[],
): SiteCoverage {
  const asked = clip(query.city.trim(), 60);
  const state = (covered: boolean) => (covered ? "covered" : "not covered");
  const listed = readings.map((r) =>
    `"${clip(r.text, 40)}" (` +
    [...new Set(r.candidates.map((c) => `${c.city}, ${c.country}, ${state(c.covered)}`))]
      .join("; or ") +
    ")"
  );
  const coverage: Coverage = {
    ...emptyAnswer(_query(query), "ambiguous"),
    // One candidate a place ("Chester CH1": three of Chicago's datacenters are one Chicago).
    candidates: [
      ...new Map(readings.flatMap((r) => r.candidates).map((c) => [JSON.stringify(c), c]))
        .values(),
    ].sort((a, b) => Number(b.covered) - Number(a.covered)),
    summary: `The site "${asked}" names places far apart: ${listed.join(" and ")}. ` +
      "Ask again with the one meant.",
    site: { read_from: null, facility: null, ignored },
  };
  return { coverage, timeZone: null, point: null };
}

function _query(query: CoverageQuery): Coverage["query"] {
  return { city: query.city, country: query.country?.toUpperCase() ?? null };
}

/** The parts read as no place, as a note says them: three at most, each clipped. */
function _ignored(ignored: string[]): string[] {
  if (!ignored.length) return [];
  const shown = ignored.slice(0, 3).map((p) => `"${clip(p, 40)}"`).join(", ");
  return [`not read as a place: ${shown}${ignored.length > 3 ? " and more" : ""}`];
}

function _notes(notes: string[]): string {
  if (!notes.length) return "";
  const text = notes.join("; ");
  return ` ${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Normalized words as a name is written: "frankfurt am main" → "Frankfurt Am Main". */
function _titled(words: string): string {
  return words.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}
