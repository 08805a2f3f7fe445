/**
 * @module
 * The coverage of a site as customers write it: one reading for every surface that takes a
 * city (the coverage check over REST and MCP, the web page, the estimate and both
 * submissions). The text is read as a place name first (name_coverage.ts). A site written as
 * more than a name (a facility, a street address, a building, a district, a place with its
 * postcode) is then taken apart (site_reading.ts) and read the way a person reads it:
 *
 * 1. the datacenters it names (facilities.ts: "Equinix DC11", "FR5", "Interxion AMS8");
 * 2. the parts that are a region alone ("VA", "Germany"): hints, read beside the place;
 * 3. each other part as a place whole ("60326 Frankfurt am Main" without its number), else,
 *    unless it is a street, without its facility, operator and building words and then word
 *    by word, the longest place first ("Frankfurt-Sossenheim" is Frankfurt), where its regions
 *    say, and a run shorter than the part only where the service works ("Grange Castle" is no
 *    Grange in Australia); a US ZIP code at the end of a part is read as its town;
 * 4. places a ZIP code or a postcode's country contradicts are dropped (but a ZIP code far
 *    from every place named and their namesakes is one more reading: "Paris 75015" is Paris
 *    or Irving, TX, never Irving silently); the rest agree when
 *    they lie within reach of each other ("Docklands, London", "Hayes, London"), and the first
 *    of them in the text, the most precise, is the place. A facility is the site when the
 *    places agree with it. What disagrees (places far apart, a facility in another city than
 *    the place named) is answered as ambiguous, with each reading: never one of them at random.
 *
 * The answer says which part was read as the place, the facility, and the parts read as no
 * place (`site`), and its summary says so.
 */

import type { Catalog } from "./catalog.ts";
import type { Coverage, CoverageQuery, SiteCoverage } from "./coverage_types.ts";
import type { FacilityMention } from "./facilities.ts";
import { haversineKm, NEARBY_KM } from "./places.ts";
import { nameCoverage } from "./name_coverage.ts";
import { inRegion, named, readings, regionAlone } from "./place_reading.ts";
import type { Facility } from "./records.ts";
import { placeWords, type SitePart, siteParts, spans } from "./site_reading.ts";
import { clip } from "../http/errors.ts";

export type { Coverage, CoverageQuery } from "./coverage_types.ts";

/** Words a part may have to be read word by word ("Frankfurt-Sossenheim", "Docklands London"). */
const SPAN_WORDS = 3;

/**
 * Resolves a site (and optional country) to its published coverage. "Frankfurt, Germany"
 * and "San Jose, CA" are read as the city and where it is.
 */
export function checkCoverage(catalog: Catalog, query: CoverageQuery): Coverage {
  return siteCoverage(catalog, query).coverage;
}

/** The coverage of a site, its IANA time zone and where it is. */
export function siteCoverage(catalog: Catalog, query: CoverageQuery): SiteCoverage {
  const direct = nameCoverage(catalog, query);
  const text = query.city.normalize("NFKC").trim();
  const parts = siteParts(text).map((part) => _annotate(catalog, part));
  const facility = parts.some((p) => p.mentions.length);
  // A name alone, read: as it was (a site's extra words would only be read as no place).
  if (direct.coverage.match !== "unknown" && !facility && !/\d/.test(text)) return direct;
  return _readSite(catalog, query, parts) ?? direct;
}

/** A part of a site with the facilities it names and the words left to read as a place. */
interface _Part extends SitePart {
  mentions: FacilityMention[];
  whole: string[];
  core: string[];
}

function _annotate(catalog: Catalog, part: SitePart): _Part {
  const mentions = catalog.facilityIndex.find(part.all);
  const named = new Set<number>();
  for (const m of mentions) for (let i = m.start; i < m.end; i++) named.add(i);
  for (let i = 0; i < part.all.length; i++) {
    const n = catalog.facilityIndex.operatorAt(part.all, i);
    for (let j = i; j < i + n; j++) named.add(j);
  }
  const rest = part.all.filter((_, i) => !named.has(i));
  return { ...part, mentions, ...placeWords(rest), whole: placeWords(part.all).whole };
}

/** A part read as a place: the text looked up, as shown, and what it resolved to. */
interface _Read {
  part: _Part;
  /** The words of the part read as the place, as looked up. */
  place: string;
  /** The part as written, with the regions read beside it ("Ashburn, VA 20147"). */
  shown: string;
  site: SiteCoverage;
}

function _readSite(catalog: Catalog, query: CoverageQuery, parts: _Part[]) {
  const country = query.country?.toUpperCase();
  const regions = parts.filter((p) => !p.street && _region(catalog, p.whole, country));
  const where = regions.map((p) => p.whole.join(" "));
  const read: _Read[] = [];
  const ignored: string[] = [];
  for (const part of parts) {
    if (regions.includes(part)) continue;
    const shown = [part.text, ...regions.map((r) => r.text)].join(", ");
    let found: _Read | undefined;
    for (const { place, span } of _placesIn(catalog, part)) {
      const site = nameCoverage(catalog, { city: [place, ...where].join(", "), country }, shown);
      // A word or two of a longer part is a place only where the service works: "Grange
      // Castle" is no Grange in Australia, "Wells Fargo Center" no Wells in England.
      if (site.coverage.match === "unknown" || (span && !_inReach(site.coverage))) continue;
      found = { part, place, shown, site };
      break;
    }
    if (found) read.push(found);
    else if (!part.mentions.length) ignored.push(clip(part.text, 60));
  }
  const zipPart = parts.find((p) => p.zip);
  const zip = zipPart && nameCoverage(catalog, { city: zipPart.zip!, country });
  const postcodeCountries = new Set(parts.flatMap((p) => p.countries));
  // A postcode's country or a ZIP code's town rules out places elsewhere; a postcode's format
  // only when a place read is in its country ("1100 NE Frankfort Ave, Chicago IL": a house
  // number and a compass point, not a Dutch postcode).
  const inPostcodeCountry = (r: _Read) => postcodeCountries.has(_country(r.site) ?? "");
  const byPostcode = read.some(inPostcodeCountry) ? read.filter(inPostcodeCountry) : read;
  const fits = byPostcode.filter((r) =>
    !zip?.point || !r.site.point || haversineKm(zip.point, r.site.point) <= NEARBY_KM
  );
  const one = fits.filter((r) => r.site.point);
  const agrees = zip?.point && one.length ? zipPart!.zip : undefined;
  const facilities = [...new Map(parts.flatMap((p) => p.mentions).map((m) => [m.facility.id, m]))
    .values()].map((m) => m.facility);
  if (facilities.length) return _facilitySite(catalog, query, facilities, one, ignored, agrees);
  // A ZIP code far from every place named, and from their namesakes ("Paris 75015": a
  // French postcode, or Irving, TX?): both readings, never the ZIP code's town silently.
  const pointed = read.filter((r) => r.site.point);
  if (
    zip?.point && !one.length && pointed.length &&
    !pointed.some((r) => _namesakeNear(catalog, r.place, zip.point!))
  ) {
    const { place, covered } = zip.coverage;
    const town = {
      text: `ZIP code ${zipPart!.zip}`,
      city: place!.name,
      country: place!.country,
      covered,
      label: `${place!.name}, ${place!.country}, ${covered ? "covered" : "not covered"}`,
    };
    return _conflict(query, [...pointed.map(_readLabel), town], ignored);
  }
  if (one.length) {
    const [first] = one;
    const far = one.filter((r) => haversineKm(first!.site.point!, r.site.point!) > 2 * NEARBY_KM);
    if (far.length) return _conflict(query, [first!, ...far].map(_readLabel), ignored);
    return _answer(query, first!, ignored, agrees);
  }
  if (fits.length) return _answer(query, fits[0]!, ignored);
  if (zip && zip.coverage.match !== "unknown") {
    const shown = zipPart!.text;
    return _answer(query, { part: zipPart!, place: zipPart!.zip!, shown, site: zip }, ignored);
  }
  return undefined;
}

/**
 * The site of the facilities a text names: the one the places read agree with (the same
 * location, or within reach), or, with no place read, the one location they are all in.
 */
function _facilitySite(
  catalog: Catalog,
  query: CoverageQuery,
  facilities: Facility[],
  places: _Read[],
  ignored: string[],
  zip: string | undefined,
): SiteCoverage {
  const agree = facilities.filter((f) =>
    places.every((r) =>
      r.site.coverage.location?.id === f.location ||
      haversineKm(r.site.point!, f) <= NEARBY_KM
    )
  );
  const locations = [...new Set(agree.map((f) => f.location))];
  if (agree.length && locations.length === 1) {
    // A code several operators use ("SV1"): the location they share, no one of them.
    const facility = agree.length === 1 ? agree[0]! : undefined;
    return _atFacility(catalog, query, facility ?? agree, places[0], ignored, zip);
  }
  const where = (f: Facility) => catalog.locationById.get(f.location)!;
  const labels = [
    ...facilities.map((f) => ({
      text: f.name,
      city: where(f).city,
      country: where(f).country,
      covered: true,
      label: `${where(f).city}, ${where(f).country}, covered`,
    })),
    ...(agree.length ? [] : places.map(_readLabel)),
  ];
  return _conflict(query, labels, ignored);
}

/** The coverage of a facility named (or of several in one location), with what agreed. */
function _atFacility(
  catalog: Catalog,
  query: CoverageQuery,
  facility: Facility | Facility[],
  place: _Read | undefined,
  ignored: string[],
  zip: string | undefined,
): SiteCoverage {
  const one = Array.isArray(facility) ? undefined : facility;
  const all = Array.isArray(facility) ? facility : [facility];
  const loc = catalog.locationById.get(all[0]!.location)!;
  const at = nameCoverage(catalog, { city: loc.id });
  const notes = [
    ...(place
      ? [`"${place.part.mentions.length ? _titled(place.place) : clip(place.shown, 60)}" agrees`]
      : []),
    ...(zip ? [`ZIP code ${zip} agrees`] : []),
    ..._ignored(ignored),
  ];
  const coverage: Coverage = {
    ...at.coverage,
    query: _query(query),
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

/** Whether a place of the name `key` (its regions after it, if any) lies within reach of `at`. */
function _namesakeNear(
  catalog: Catalog,
  key: string,
  at: { latitude: number; longitude: number },
): boolean {
  return readings(catalog, key).some((r) =>
    named(catalog, r.key).some((c) => {
      const where = c.location ?? c.place ?? c.airport;
      return where !== undefined && haversineKm(where, at) <= NEARBY_KM;
    })
  );
}

/** Whether a part's words are a country or subdivision alone ("VA", "Germany", "USA"). */
function _region(catalog: Catalog, words: string[], country: string | undefined): boolean {
  return words.length > 0 && regionAlone(catalog, words.join(" "), country) !== undefined;
}

/**
 * The words of a part to look up as its place, in order: all of them ("Ashburn VA",
 * "Frankfurt am Main"); unless it is a street, those left without its facility, operator,
 * building and floor words, whole, then the spans of them that name a place, longest first
 * ("Frankfurt-Sossenheim"), marked `span`.
 */
function* _placesIn(catalog: Catalog, part: _Part): Generator<{ place: string; span: boolean }> {
  const whole = part.whole.join(" ");
  if (whole && _names(catalog, whole)) yield { place: whole, span: false };
  // Word by word only in a short part, from either end: a sentence or a building's name
  // ("Send the quote", "Harbour Exchange") is never searched for a town of one of its words.
  if (part.street || part.core.length > SPAN_WORDS) return;
  for (const [i, place] of spans(part.core).entries()) {
    if (_names(catalog, place)) yield { place, span: i > 0 };
  }
}

/**
 * Whether a normalized text names a place where its regions say ("ashburn va"; not
 * "russelsheim am", Rüsselsheim in Armenia): table lookups only, no close spellings, so
 * trying every span of a part stays cheap.
 */
function _names(catalog: Catalog, key: string): boolean {
  return readings(catalog, key).some((r) =>
    named(catalog, r.key).some((c) =>
      r.qualifiers.every((codes) => codes.some((code) => inRegion(c, code)))
    )
  );
}

/** Whether an answer is covered, or names a covered candidate among others. */
function _inReach(c: Coverage): boolean {
  return c.covered || (c.match === "ambiguous" && c.candidates.some((x) => x.covered));
}

function _country(site: SiteCoverage): string | undefined {
  return site.coverage.location?.country ?? site.coverage.place?.country;
}

function _query(query: CoverageQuery): Coverage["query"] {
  return { city: query.city, country: query.country?.toUpperCase() ?? null };
}

/**
 * The answer of a part read as the place: its own summary, then which site it came from, what
 * agreed and what was read as no place.
 */
function _answer(
  query: CoverageQuery,
  read: _Read,
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

/** One reading of a site that disagrees with another. */
interface _Label {
  /** The words of the site it comes from. */
  text: string;
  city: string;
  country: string;
  covered: boolean;
  label: string;
}

function _readLabel(r: _Read): _Label {
  const c = r.site.coverage;
  const city = c.location?.city ?? c.place?.name ?? r.place;
  const country = _country(r.site) ?? "";
  const label = c.location
    ? `${c.location.city}, ${c.location.country}, covered`
    : `${city}, ${country}, ${c.covered ? "covered" : "not covered"}`;
  return { text: r.part.text, city, country, covered: c.covered, label };
}

/** Readings that disagree (places far apart, a facility elsewhere): each is a candidate. */
function _conflict(query: CoverageQuery, labels: _Label[], ignored: string[]): SiteCoverage {
  const asked = clip(query.city.trim(), 60);
  const listed = labels.map((l) => `"${clip(l.text, 40)}" (${l.label})`);
  const coverage: Coverage = {
    query: _query(query),
    match: "ambiguous",
    covered: false,
    location: null,
    place: null,
    services: [],
    response_time_hours: null,
    nearest: [],
    candidates: labels.map(({ city, country, covered }) => ({ city, country, covered }))
      .sort((a, b) => Number(b.covered) - Number(a.covered)),
    summary: `The site "${asked}" names places far apart: ${listed.join(" and ")}. ` +
      "Ask again with the one meant.",
    site: { read_from: null, facility: null, ignored },
  };
  return { coverage, timeZone: null, point: null };
}

/** Normalized words as a name is written: "frankfurt am main" → "Frankfurt Am Main". */
function _titled(words: string): string {
  return words.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}
