/**
 * @module
 * The coverage of a site as customers write it: one reading for every surface that takes a
 * city (the coverage check over REST and MCP, the web page, the estimate and both
 * submissions). The text is read as a place name first (name_coverage.ts). A site written as
 * more than a name (a street address, a building, a district, a place with its postcode, more
 * parts than a city and its regions) is then taken apart (site_reading.ts) and read the way a
 * person reads it:
 *
 * 1. the parts that are a region alone ("VA", "Germany") are hints, kept beside the place;
 * 2. each other part is read as a place whole ("60326 Frankfurt am Main" without its number),
 *    else, unless it is a street, word by word, the longest place first ("Frankfurt-Sossenheim"
 *    is Frankfurt); a US ZIP code at the end of a part is read as its town;
 * 3. of the places read, those a ZIP code or a postcode's country contradicts are dropped;
 *    the rest agree when they lie within reach of each other ("Docklands, London", "Hayes,
 *    London"), and the first of them in the text, the most precise, is the site; places far
 *    apart are answered as ambiguous, never one of them at random.
 *
 * The answer says which part was read as the place and which parts were no place
 * (`site`), and its summary says so first.
 */

import type { Catalog } from "./catalog.ts";
import type { Coverage, CoverageQuery, SiteCoverage } from "./coverage_types.ts";
import { haversineKm, NEARBY_KM } from "./places.ts";
import { nameCoverage } from "./name_coverage.ts";
import { named, readings, regionAlone } from "./place_reading.ts";
import { type SitePart, siteParts, spans } from "./site_reading.ts";
import { normalizeName } from "./names.ts";
import { clip } from "../http/errors.ts";

export type { Coverage, CoverageQuery } from "./coverage_types.ts";

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
  // A name alone, read: as it was (a site's extra words would only be read as no place).
  if (direct.coverage.match !== "unknown" && !_siteLike(text)) return direct;
  return _readSite(catalog, query, text, direct) ?? direct;
}

/** Whether a text is more than a place name: digits, or more parts than a city and its regions. */
function _siteLike(text: string): boolean {
  return /\d/.test(text) || siteParts(text).length > 3;
}

/** A part read as a place: the text looked up, as shown, and what it resolved to. */
interface _Read {
  part: SitePart;
  /** The words of the part read as the place, as looked up. */
  place: string;
  /** The part as written, with the regions read beside it ("Ashburn, VA 20147"). */
  shown: string;
  site: SiteCoverage;
}

function _readSite(
  catalog: Catalog,
  query: CoverageQuery,
  text: string,
  direct: SiteCoverage,
): SiteCoverage | undefined {
  const parts = siteParts(text);
  const country = query.country?.toUpperCase();
  const regions = parts.filter((p) => !p.street && _region(catalog, p.words, country));
  const where = regions.map((p) => p.words.join(" "));
  const read: _Read[] = [];
  for (const part of parts) {
    if (regions.includes(part)) continue;
    const place = _placeIn(catalog, part);
    if (!place) continue;
    const shown = [part.text, ...regions.map((r) => r.text)].join(", ");
    const site = nameCoverage(catalog, { city: [place, ...where].join(", "), country }, shown);
    if (site.coverage.match !== "unknown") read.push({ part, place, shown, site });
  }
  const zip = parts.find((p) => p.zip)?.zip;
  const zipSite = zip ? nameCoverage(catalog, { city: zip, country }) : undefined;
  const postcodeCountries = new Set(parts.flatMap((p) => p.countries));
  // A postcode's country or a ZIP code's town rules out places elsewhere.
  const fits = read.filter((r) =>
    (!postcodeCountries.size || postcodeCountries.has(_country(r.site) ?? "")) &&
    (!zipSite?.point || !r.site.point || haversineKm(zipSite.point, r.site.point) <= NEARBY_KM)
  );
  const ignored = parts.filter((p) => p.street || (!regions.includes(p) && !_placeIn(catalog, p)))
    .map((p) => clip(p.text, 60));
  const one = fits.filter((r) => r.site.point);
  if (one.length) {
    const [first] = one;
    const far = one.filter((r) => haversineKm(first!.site.point!, r.site.point!) > 2 * NEARBY_KM);
    if (far.length) return _conflict(query, [first!, ...far], ignored);
    return _answer(query, first!, ignored, zipSite?.point ? zip : undefined);
  }
  if (fits.length) return _answer(query, fits[0]!, ignored);
  if (zipSite && zipSite.coverage.match !== "unknown") {
    const part = parts.find((p) => p.zip)!;
    return _answer(query, { part, place: zip!, shown: part.text, site: zipSite }, ignored);
  }
  return direct.coverage.match === "unknown" ? undefined : direct;
}

/** Whether a part's words are a country or subdivision alone ("VA", "Germany", "USA"). */
function _region(catalog: Catalog, words: string[], country: string | undefined): boolean {
  return words.length > 0 && regionAlone(catalog, words.join(" "), country) !== undefined;
}

/**
 * The words of a part to look up as its place: all of them ("Ashburn VA", "Frankfurt am
 * Main"); unless it is a street, those left without a building or floor; else the longest
 * span of them that names a place ("Frankfurt-Sossenheim"). Undefined when none does.
 */
function _placeIn(catalog: Catalog, part: SitePart): string | undefined {
  const whole = part.words.join(" ");
  if (whole && _names(catalog, whole)) return whole;
  if (part.street) return undefined;
  return spans(part.core).find((span) => _names(catalog, span));
}

/**
 * Whether a normalized text names a place, alone or before its regions ("ashburn va"): table
 * lookups only, no close spellings, so trying every span of a part stays cheap.
 */
function _names(catalog: Catalog, key: string): boolean {
  return readings(catalog, key).some((r) => named(catalog, r.key).length > 0);
}

function _country(site: SiteCoverage): string | undefined {
  return site.coverage.location?.country ?? site.coverage.place?.country;
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
  const asked = clip(query.city.trim(), 60);
  const notes = [
    ...(read.shown.trim() === query.city.trim() ? [] : [`Read from the site "${asked}"`]),
    ...(zip ? [`ZIP code ${zip} agrees`] : []),
    ...(ignored.length ? [`not read as a place: "${ignored.join('", "')}"`] : []),
  ];
  const note = notes.length ? ` ${_sentence(notes.join("; "))}.` : "";
  const coverage: Coverage = {
    ...read.site.coverage,
    query: { city: query.city, country: query.country?.toUpperCase() ?? null },
    summary: read.site.coverage.summary + note,
    site: { read_from: clip(read.shown, 60), facility: null, ignored },
  };
  return { ...read.site, coverage };
}

/** Parts that name places far apart: each is a candidate, covered first. */
function _conflict(
  query: CoverageQuery,
  reads: _Read[],
  ignored: string[],
): SiteCoverage {
  const asked = clip(query.city.trim(), 60);
  const candidates = reads.map((r) => {
    const c = r.site.coverage;
    const city = c.location?.city ?? c.place?.name ?? r.place;
    return { city, country: _country(r.site) ?? "", covered: c.covered };
  }).sort((a, b) => Number(b.covered) - Number(a.covered));
  const listed = reads.map((r) => `"${clip(r.part.text, 40)}" (${_label(r)})`);
  const coverage: Coverage = {
    query: { city: query.city, country: query.country?.toUpperCase() ?? null },
    match: "ambiguous",
    covered: false,
    location: null,
    place: null,
    services: [],
    response_time_hours: null,
    nearest: [],
    candidates,
    summary: `The site "${asked}" names places far apart: ${listed.join(" and ")}. ` +
      "Ask again with the one meant.",
    site: { read_from: null, facility: null, ignored },
  };
  return { coverage, timeZone: null, point: null };
}

function _label(r: _Read): string {
  const c = r.site.coverage;
  if (c.location) return `${c.location.city}, ${c.location.country}, covered`;
  const name = c.place ? `${c.place.name}, ${c.place.country}` : normalizeName(r.place);
  return `${name}, ${c.covered ? "covered" : "not covered"}`;
}

function _sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
