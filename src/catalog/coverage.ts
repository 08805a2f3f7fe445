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
 *    or Irving, TX, never Irving silently); the rest agree when they lie within reach of each
 *    other ("Docklands, London"), and the first of them in the text, the most precise, is the
 *    place; a name of several places beside a place is the one within reach of it ("Hayes,
 *    London": Hayes, GB). A facility is the site when the
 *    places agree with it. What disagrees (places far apart, a facility in another city than
 *    the place named) is answered as ambiguous, with each reading: never one of them at random.
 *
 * A name alone is read as a name; a text whose second part names a place or an operator too
 * ("Dallas, Ashburn", "Iron Mountain, Ashburn") is read as a site. The answer says which part
 * was read as the place, the facility, and the parts read as no place (`site`), and its
 * summary says so (site_answer.ts writes it).
 */

import type { Catalog } from "./catalog.ts";
import type { Coverage, CoverageQuery, SiteCoverage } from "./coverage_types.ts";
import type { FacilityMention } from "./facilities.ts";
import { haversineKm, NEARBY_KM } from "./places.ts";
import { nameCoverage } from "./name_coverage.ts";
import { inRegion, named, readings, regionAlone } from "./place_reading.ts";
import type { Facility } from "./records.ts";
import {
  conflictAnswer,
  disagreeing,
  facilityAnswer,
  facilityElsewhere,
  placeAnswer,
  type PlaceRead,
} from "./site_answer.ts";
import { isBuildingWord, placeWords, type SitePart, siteParts, spans } from "./site_reading.ts";
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
  // A name alone, read: as it was (a site's extra words would only be read as no place);
  // but not when another part names a place or an operator too ("Dallas, Ashburn", "Iron
  // Mountain, Ashburn"): the name reading reads the first and passes over the rest.
  const name = direct.coverage.match !== "unknown" && !facility && !/\d/.test(text);
  if (name && !_severalPlaces(catalog, parts, query.country?.toUpperCase())) return direct;
  return _readSite(catalog, query, parts) ?? direct;
}

/** Whether two parts or more name a place (not a region alone) or an operator. */
function _severalPlaces(catalog: Catalog, parts: _Part[], country: string | undefined) {
  const naming = parts.length < 2 ? [] : parts.filter((p) =>
    p.operator ||
    (p.whole.length > 0 && _names(catalog, p.whole.join(" ")) &&
      !_region(catalog, p.whole, country))
  );
  return naming.length >= 2;
}

/** A part of a site with the facilities it names and the words left to read as a place. */
interface _Part extends SitePart {
  mentions: FacilityMention[];
  /** The part is an operator's name alone ("Iron Mountain"): no place. */
  operator: boolean;
  whole: string[];
  core: string[];
  /** Words of a building, a floor or "data center" were left out of the core. */
  cut: boolean;
}

function _annotate(catalog: Catalog, part: SitePart): _Part {
  // "Building S1", "Rack VA2": a building's or a rack's name, not a facility's code.
  const mentions = catalog.facilityIndex.find(part.all).filter((m) =>
    m.how !== "code" || !isBuildingWord(part.all[m.start - 1] ?? "")
  );
  const named = new Set<number>();
  for (const m of mentions) for (let i = m.start; i < m.end; i++) named.add(i);
  for (let i = 0; i < part.all.length; i++) {
    const n = catalog.facilityIndex.operatorAt(part.all, i);
    for (let j = i; j < i + n; j++) named.add(j);
  }
  const rest = part.all.filter((_, i) => !named.has(i));
  const operator = !mentions.length && part.all.length > 0 && rest.length === 0;
  const whole = operator ? [] : placeWords(part.all).whole;
  const { whole: left, core } = placeWords(rest);
  return { ...part, mentions, operator, whole, core, cut: core.length < left.length };
}

/** A part read as a place. */
interface _Read extends PlaceRead {
  part: _Part;
}

function _readSite(catalog: Catalog, query: CoverageQuery, parts: _Part[]) {
  const country = query.country?.toUpperCase();
  const regions = parts.filter((p) => !p.street && _region(catalog, p.whole, country));
  const where = regions.map((p) => p.whole.join(" "));
  const { read, ignored } = _readParts(catalog, parts, regions, country);
  const { zipPart, zip, fits } = _hinted(catalog, parts, regions, read, country);
  // A name of several places beside a place ("Hayes, London"): the one of them in its
  // country, when that one is within reach of it (Hayes, GB).
  const anchor = fits.find((r) => r.site.point)?.site;
  const placed = anchor ? _narrowed(catalog, fits, where, _country(anchor)!, anchor.point!) : fits;
  const one = placed.filter((r) => r.site.point);
  // A name of several places ("Chester", "Manchester") beside a place or a facility.
  const vague = placed.filter((r) => !r.site.point);
  const agrees = zip?.point && one.length ? zipPart!.zip : undefined;
  const mentioned = [
    ...new Map(parts.flatMap((p) => p.mentions).map((m) => [m.facility.id, m])).values(),
  ].map((m) => m.facility);
  // The country given narrows the facilities too ("Equinix LD8" in the US is none).
  const facilities = mentioned.filter((f) =>
    !country || catalog.locationById.get(f.location)!.country === country
  );
  if (mentioned.length && !facilities.length && !read.length) {
    return facilityElsewhere(catalog, query, mentioned);
  }
  if (facilities.length) {
    return _facilitySite(catalog, query, facilities, { one, vague }, ignored, agrees);
  }
  // A ZIP code far from every place named, and from their namesakes ("Paris 75015": a
  // French postcode, or Irving, TX?): both readings, never the ZIP code's town silently.
  const pointed = read.filter((r) => r.site.point);
  if (
    zip?.point && !one.length && pointed.length &&
    !pointed.some((r) => _namesakeNear(catalog, r.place, zip.point!, NEARBY_KM))
  ) {
    const { place, covered } = zip.coverage;
    const town = { city: place!.name, country: place!.country, covered };
    const readings = [...pointed.map(disagreeing), {
      text: `ZIP code ${zipPart!.zip}`,
      candidates: [town],
    }];
    return conflictAnswer(query, readings, ignored);
  }
  if (one.length) {
    const [first] = one;
    const far = one.filter((r) => haversineKm(first!.site.point!, r.site.point!) > 2 * NEARBY_KM);
    // "Hayes, London": one of the places of the name is within reach; "Manchester, London":
    // none is.
    const apart = vague.filter((r) =>
      !_namesakeNear(catalog, r.place, first!.site.point!, 2 * NEARBY_KM)
    );
    if (far.length || apart.length) {
      return conflictAnswer(query, [first!, ...far, ...apart].map(disagreeing), ignored);
    }
    return placeAnswer(query, first!, ignored, agrees);
  }
  // "Portland 97201": the ZIP code says which Portland.
  const which = zip?.point &&
    fits.every((r) => _namesakeNear(catalog, r.place, zip.point!, NEARBY_KM));
  if (fits.length && !which) return placeAnswer(query, fits[0]!, ignored);
  if (zip && zip.coverage.match !== "unknown") {
    const shown = zipPart!.text;
    return placeAnswer(query, { part: zipPart!, place: zipPart!.zip!, shown, site: zip }, ignored);
  }
  return undefined;
}

/** Each part but the regions read as its place, or as no place. */
function _readParts(
  catalog: Catalog,
  parts: _Part[],
  regions: _Part[],
  country: string | undefined,
) {
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
      if (site.coverage.match === "unknown" || (span && !_mayStand(site.coverage, span))) continue;
      found = { part, place, shown, site };
      break;
    }
    if (found) read.push(found);
    else if (!part.mentions.length) ignored.push(clip(part.text, 60));
  }
  return { read, ignored };
}

/**
 * The hints a site gives beside its places, and the places read they leave: a ZIP code's town
 * rules out places far from it, a postcode's country those elsewhere.
 */
function _hinted(
  catalog: Catalog,
  parts: _Part[],
  regions: _Part[],
  read: _Read[],
  country: string | undefined,
) {
  const where = regions.map((p) => p.whole.join(" "));
  // A site said to be in another country than the US has no ZIP code: "Paris, France 75015"
  // is not Irving, TX.
  const said = regions.flatMap((p) =>
    regionAlone(catalog, p.whole.join(" "), country)?.codes.map((c) => c.slice(0, 2)) ?? []
  );
  const zipPart = said.length && !said.includes("US") ? undefined : parts.find((p) => p.zip);
  const zip = zipPart && nameCoverage(catalog, { city: zipPart.zip!, country });
  const postcodeCountries = new Set(parts.flatMap((p) => p.countries));
  // A postcode's format rules out places elsewhere only when a place read is in its country
  // ("1100 NE Frankfort Ave, Chicago IL": a house number and a compass point, not a Dutch
  // postcode).
  const inPostcodeCountry = (r: _Read) => postcodeCountries.has(_country(r.site) ?? "");
  // A name of several places with a postcode of one country ("Reading RG2 6GP"): the one there.
  const [postcodeCountry, another] = postcodeCountries;
  const sharp = postcodeCountry && !another && !country
    ? _narrowed(catalog, read, where, postcodeCountry)
    : read;
  const byPostcode = sharp.some(inPostcodeCountry) ? sharp.filter(inPostcodeCountry) : sharp;
  const fits = byPostcode.filter((r) =>
    !zip?.point || !r.site.point || haversineKm(zip.point, r.site.point) <= NEARBY_KM
  );
  return { zipPart, zip, fits };
}

/**
 * Names of several places read again in `country`: the one of them there, when it is within
 * reach of `near` (if given).
 */
function _narrowed(
  catalog: Catalog,
  reads: _Read[],
  where: string[],
  country: string,
  near?: { latitude: number; longitude: number },
): _Read[] {
  return reads.map((r) => {
    if (r.site.point) return r;
    const site = nameCoverage(catalog, { city: [r.place, ...where].join(", "), country }, r.shown);
    const fits = site.point && (!near || haversineKm(site.point, near) <= 2 * NEARBY_KM);
    return fits ? { ...r, site } : r;
  });
}

/**
 * The site of the facilities a text names: the one the places read agree with (the same
 * location, or within reach; for a name of several places, one of them within reach), or,
 * with no place read, the one location they are all in.
 */
function _facilitySite(
  catalog: Catalog,
  query: CoverageQuery,
  facilities: Facility[],
  places: { one: _Read[]; vague: _Read[] },
  ignored: string[],
  zip: string | undefined,
): SiteCoverage {
  const agree = facilities.filter((f) =>
    places.one.every((r) =>
      r.site.coverage.location?.id === f.location ||
      haversineKm(r.site.point!, f) <= NEARBY_KM
    ) && places.vague.every((r) => _namesakeNear(catalog, r.place, f, NEARBY_KM))
  );
  const locations = [...new Set(agree.map((f) => f.location))];
  if (agree.length && locations.length === 1) {
    // A code several operators use ("SV1"): the location they share, no one of them.
    const facility = agree.length === 1 ? agree[0]! : undefined;
    return facilityAnswer(catalog, query, facility ?? agree, places.one[0], ignored, zip);
  }
  const where = (f: Facility) => catalog.locationById.get(f.location)!;
  const readings = [
    ...facilities.map((f) => ({
      text: f.name,
      candidates: [{ city: where(f).city, country: where(f).country, covered: true }],
    })),
    ...(agree.length ? [] : [...places.one, ...places.vague].map(disagreeing)),
  ];
  return conflictAnswer(query, readings, ignored);
}

/** Whether a place of the name `key` (its regions after it, if any) lies within `km` of `at`. */
function _namesakeNear(
  catalog: Catalog,
  key: string,
  at: { latitude: number; longitude: number },
  km: number,
): boolean {
  return readings(catalog, key).some((r) =>
    named(catalog, r.key).some((c) => {
      const where = c.location ?? c.place ?? c.airport;
      return where !== undefined && haversineKm(where, at) <= km;
    })
  );
}

/** Whether a part's words are a country or subdivision alone ("VA", "Germany", "USA"). */
function _region(catalog: Catalog, words: string[], country: string | undefined): boolean {
  return words.length > 0 && regionAlone(catalog, words.join(" "), country) !== undefined;
}

/**
 * The words of a part to look up as its place, in order: all of them ("Ashburn VA",
 * "Frankfurt am Main"); unless it is a street, those left without its facility and operator
 * ("Chester CH1"), then without building, floor and "data center" words, whole, then the spans
 * of them that name a place, longest first ("Frankfurt-Sossenheim"). Words read with others
 * left out as a building's or a floor's ("Mobile data centre", "Street level") and spans are
 * marked `span`; in a part naming a datacenter, a span is read only as a covered city itself
 * ("our DC2 in Frankfurt"; "Send to: Equinix FR5" is no Send).
 */
function* _placesIn(
  catalog: Catalog,
  part: _Part,
): Generator<{ place: string; span: false | "cut" | "part" | "city" }> {
  const whole = part.whole.join(" ");
  if (whole && _names(catalog, whole)) yield { place: whole, span: false };
  // Word by word only in a short part, from either end: a sentence or a building's name
  // ("Send the quote", "Harbour Exchange") is never searched for a town of one of its words.
  if (part.street || part.core.length > SPAN_WORDS) return;
  for (const [i, place] of spans(part.core).entries()) {
    if (place === whole || !_names(catalog, place)) continue;
    if (part.mentions.length && i > 0) yield { place, span: "city" };
    else if (i > 0) yield { place, span: "part" };
    else yield { place, span: part.cut ? "cut" : false };
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

/**
 * Whether an answer read from some of a part's words may stand: a covered place; or, for the
 * words left beside "data center" or a floor, several places ("Reading Data Centre"), for a
 * span of them several places one of which is covered (not "Green" in "Green Park"); for a
 * span beside a datacenter's name, a covered city itself.
 */
function _mayStand(c: Coverage, span: "cut" | "part" | "city"): boolean {
  if (span === "city") return c.match === "covered";
  if (c.covered) return true;
  return c.match === "ambiguous" && (span === "cut" || c.candidates.some((x) => x.covered));
}

function _country(site: SiteCoverage): string | undefined {
  return site.coverage.location?.country ?? site.coverage.place?.country;
}
