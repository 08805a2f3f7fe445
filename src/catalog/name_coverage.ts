/**
 * @module
 * The place resolver: what a place name means, and its published coverage; the site reader
 * (coverage.ts) calls it with the whole text, then with the part of a site read as the place.
 * A name is read, in this order, as one of the service's
 * location ids (`fra`), an airport code (`LHR`; not "USA"), a US ZIP code (`20147`), a country
 * or a state alone (`Germany`, `Texas`, `NY`; with the places of that name, if any:
 * `Virginia`), or a place of the gazetteer (catalog/places.ts: GeoNames' towns of 5,000 people
 * or more, by any of their names, "Londres" or "Muenchen"), optionally followed by its
 * subdivision and country in any order ("Ashburn, VA", "Sydney NSW", "New York, NY, USA").
 * A place within {@linkcode NEARBY_KM} of a covered city is covered by it; any other gets the
 * nearest covered cities. A name several places share is answered with its candidates unless
 * one is {@linkcode DOMINANCE} times as populous as the next ("London" is the English one).
 * A close spelling is only ever a suggestion, never the answer.
 */

import type { Catalog } from "./catalog.ts";
import type { Location } from "./records.ts";
import type { Airport, GazetteerPlace } from "./places.ts";
import { normalizeName } from "./names.ts";
import { clip } from "../http/errors.ts";
import { countryCode, countryName } from "./regions.ts";
import {
  type Candidate,
  candidateLabel,
  closeSpellings,
  coveringLocation,
  inRegion,
  locationSubdivision,
  named,
  nearestLocations,
  placeLabel,
  POSTCODE,
  type Reading,
  readings,
  regionAlone,
  together,
} from "./place_reading.ts";
import type { Coverage, CoverageQuery, SiteCoverage } from "./coverage_types.ts";

/** A name several places share means the largest when it is this many times the next. */
const DOMINANCE = 10;

/** Most candidates an ambiguous answer lists. */
const MAX_CANDIDATES = 5;

/** Most close spellings suggested. */
const SPELLINGS = 3;

/**
 * The coverage of a place name, and its IANA time zone: the covered location's, or the
 * place's the name resolved to; null when the name resolves to no one place. `shown` is the
 * text the summaries quote, when the name looked up was taken from it (a site's part).
 */
export function nameCoverage(
  catalog: Catalog,
  query: CoverageQuery,
  shown = query.city,
): SiteCoverage {
  const country = query.country?.toUpperCase();
  // Full-width digits and letters ("２０１４７") as their ASCII forms.
  const text = query.city.normalize("NFKC").trim();
  const key = normalizeName(text);
  const capitals = /\p{Lu}/u.test(text) && text === text.toUpperCase();
  const base: _Base = {
    query: { city: query.city, country: country ?? null },
    // Echoed in summaries, which estimates store: at most 60 characters of it.
    asked: clip(shown.trim(), 60),
  };
  const unzoned = (coverage: Coverage) => ({ coverage, timeZone: null, point: null });

  const byId = catalog.locationById.get(key);
  if (byId && (!country || byId.country === country)) {
    return _coveredSite(catalog, base, byId);
  }
  if (POSTCODE.test(text)) return _postcode(catalog, base, text, country);
  // An airport code in capitals ("LHR"); the word "the" is not Teresina's airport (THE).
  const airport = /^[A-Z]{3}$/.test(text) ? catalog.places.airport(text) : undefined;
  // "USA" is the country, not Concord-Padgett Regional Airport.
  if (airport && !countryCode(text)) {
    return _atAirport(catalog, base, airport);
  }

  const alone = regionAlone(catalog, key, country);
  if (alone) return unzoned(_region(catalog, base, alone.codes, alone.places));

  let misplaced: { reading: Reading; all: Candidate[] } | undefined;
  let state: Coverage | undefined;
  const ways = readings(catalog, text);
  for (const reading of ways) {
    const qualifiers = country ? [...reading.qualifiers, [country]] : reading.qualifiers;
    const fits = (c: Pick<Candidate, "country" | "subdivision">) =>
      qualifiers.every((codes) => codes.some((r) => inRegion(c, r)));
    // "Virginia, USA", "Bavaria, Germany": the state, not a town of that name there.
    const region = reading.qualifiers.length
      ? regionAlone(catalog, reading.key, country)
      : undefined;
    const states = region?.codes.filter((code) =>
      fits({ country: code.slice(0, 2), subdivision: code.length > 2 ? code : null })
    );
    if (region && states?.length) {
      // Unless another part is the city ("USA, NY, New York"): tried after every reading.
      state ??= _region(catalog, base, states, region.places.filter(fits));
      continue;
    }
    const all = named(catalog, reading.key, capitals);
    if (all.length === 0) continue;
    const fit = all.filter(fits);
    if (fit.length === 0) {
      misplaced ??= { reading, all };
      continue;
    }
    const read = reading.qualifiers.length ? { ...base.query, country: fit[0]!.country } : null;
    return _decide(catalog, read ? { ...base, query: read } : base, fit);
  }
  if (state) return unzoned(state);
  if (airport) return _atAirport(catalog, base, airport);
  if (misplaced) {
    const where = country ?? misplaced.reading.where;
    return unzoned(_otherCountry(catalog, base, where, misplaced.all));
  }
  // "EC1A 1BB", "1012 AB": a postcode of another country.
  if (/\d/.test(text) && /^[\p{L}\d][\p{L}\d -]{2,9}$/u.test(text)) {
    return _postcode(catalog, base, text, country);
  }
  const spelled = ways.at(-1)?.key ?? key;
  // "lhr": an airport code written in small letters is suggested, not read.
  const code = /^[a-z]{3}$/i.test(text) ? catalog.places.airport(text.toUpperCase()) : undefined;
  return unzoned(_unknown(catalog, base, spelled, country, code));
}

/** What every answer starts from: the query as read, and the name as echoed back. */
interface _Base {
  query: Coverage["query"];
  asked: string;
}

/**
 * One place, or the candidates when no one of them dominates. Candidates all within reach of
 * the largest (the airport of Orly and the town beside it) are one place to a caller.
 */
function _decide(catalog: Catalog, base: _Base, fit: Candidate[]) {
  const [top, next] = fit;
  const rivals = fit.filter((c) => c !== top && top!.population < DOMINANCE * c.population);
  if (next && rivals.some((c) => !together(top!, c))) {
    return { coverage: _ambiguous(catalog, base, fit), timeZone: null, point: null };
  }
  if (top!.location) {
    return _coveredSite(catalog, base, top!.location);
  }
  if (top!.airport) return _atAirport(catalog, base, top!.airport);
  return _atPlace(catalog, base, top!.place!, placeLabel(top!.place!));
}

/** The coverage at a point: covered by a location within reach, or the nearest ones. */
function _atPlace(
  catalog: Catalog,
  base: _Base,
  place: Omit<GazetteerPlace, "id">,
  label: string,
) {
  const nearest = nearestLocations(catalog, place);
  const first = nearest[0];
  const at = {
    name: place.name,
    country: place.country,
    subdivision: place.subdivision,
    timezone: place.timezone,
  };
  const location = coveringLocation(catalog, place, first);
  // A ZIP code or an airport in the covered city itself: that city, covered, and how it was read.
  const inCity = location && location.country === place.country &&
    normalizeName(location.city) === normalizeName(place.name);
  const coverage = location
    ? {
      ...coveredAnswer(catalog, base, location),
      match: inCity ? "covered" as const : "nearby" as const,
      place: at,
      nearest,
      summary: (inCity
        ? `${label} is in ${location.city}, ${location.country}, which is covered`
        : `${label} is not a listed city, but it is ${first!.distance_km} km from ` +
          `${location.city}, ${location.country}, which covers it`) +
        `: ${location.services.length} services, an engineer on site within ` +
        `${location.response_time_hours} h.`,
    }
    : {
      ...emptyAnswer(base.query, "known_uncovered"),
      place: at,
      nearest,
      summary: `${label} is not covered.` +
        (first
          ? ` The nearest covered city is ${first.city}, ${first.country}, ` +
            `${first.distance_km.toLocaleString("en-US")} km away, where an engineer is on ` +
            `site within ${first.response_time_hours} h of a request; a quote can still be ` +
            "requested."
          : ""),
    };
  return { coverage, timeZone: place.timezone, point: place };
}

function _atAirport(catalog: Catalog, base: _Base, airport: Airport) {
  const place = { ...airport, name: `${airport.name} (${airport.code})`, subdivision: null };
  return _atPlace(catalog, base, { ...place, population: 0 }, `${place.name}, ${place.country}`);
}

/** A US ZIP code as its town; any other postcode refused with what to send instead. */
function _postcode(catalog: Catalog, base: _Base, text: string, country: string | undefined) {
  const zip = /^\d{5}(-\d{4})?$/.test(text) && (!country || country === "US")
    ? catalog.places.zip(text.slice(0, 5))
    : undefined;
  if (zip) {
    const label = `ZIP code ${text.slice(0, 5)} (${placeLabel(zip)})`;
    return _atPlace(catalog, { ...base, query: { ...base.query, country: "US" } }, zip, label);
  }
  return {
    coverage: {
      ...emptyAnswer(base.query, "unknown"),
      summary: `"${base.asked}" is read as a postcode, and only US ZIP codes are known` +
        (/^\d{5}$/.test(text) && (!country || country === "US") ? " (this one is not)" : "") +
        ": send the name of the city or town of the site instead.",
    },
    timeZone: null,
    point: null,
  };
}

/** The fields an answer leaves empty unless its kind fills them (site_answer.ts's too). */
export function emptyAnswer(
  query: Coverage["query"],
  match: Coverage["match"],
): Omit<Coverage, "summary"> {
  return {
    query,
    match,
    covered: false,
    location: null,
    place: null,
    services: [],
    response_time_hours: null,
    nearest: [],
    candidates: [],
    site: null,
  };
}

function _ambiguous(catalog: Catalog, base: _Base, fit: Candidate[]): Coverage {
  const { shown, candidates } = _shown(catalog, fit);
  const listed = shown.map((c, i) => `${candidateLabel(c)} (${_state(candidates[i]!.covered)})`);
  return {
    ...emptyAnswer(base.query, "ambiguous"),
    candidates,
    summary: `"${base.asked}" names ${fit.length > shown.length ? "more than " : ""}` +
      `${shown.length} places: ${listed.join("; ")}. Ask again with the country (or state) ` +
      "to choose one.",
  };
}

function _coveredSite(catalog: Catalog, base: _Base, loc: Location): SiteCoverage {
  return { coverage: coveredAnswer(catalog, base, loc), timeZone: loc.timezone, point: loc };
}

/** The answer for a covered location (site_answer.ts builds a facility's on it). */
export function coveredAnswer(catalog: Catalog, base: _Base, loc: Location): Coverage {
  return {
    ...emptyAnswer(base.query, "covered"),
    covered: true,
    location: {
      id: loc.id,
      city: loc.city,
      country: loc.country,
      region: loc.region,
      timezone: loc.timezone,
    },
    services: [...catalog.servicesAt.get(loc.id) ?? []],
    response_time_hours: loc.response_time_hours,
    // Read otherwise than as the city's name ("FRA", "Londres", "Ashburn, VA"): say how.
    summary:
      (normalizeName(base.asked) === normalizeName(loc.city)
        ? `${loc.city}, ${loc.country} is covered`
        : `"${base.asked}" is read as ${loc.city}, ${loc.country}, which is covered`) +
      `: ${loc.services.length} services, an engineer on site within ` +
      `${loc.response_time_hours} h.`,
  };
}

/**
 * A country or region alone: its covered cities, or, when places elsewhere share the name
 * ("Virginia": the US state, and towns in South Africa and Minnesota), those places too.
 */
function _region(
  catalog: Catalog,
  base: _Base,
  regions: string[],
  places: Candidate[],
): Coverage {
  const countries = new Set(regions.map((code) => code.slice(0, 2)));
  const query = countries.size === 1 && !places.length
    ? { ...base.query, country: [...countries][0]! }
    : base.query;
  const citiesIn = (code: string) =>
    catalog.locations.filter((l) =>
      code.length === 2 ? l.country === code : locationSubdivision(catalog, l) === code
    ).map((l) => l.city).sort((a, b) => a.localeCompare(b, "en"));
  const [only] = regions;
  if (regions.length === 1 && only!.length === 2 && places.length === 0) {
    const cities = citiesIn(only!);
    return {
      ...emptyAnswer(query, "country"),
      candidates: cities.map((city) => ({ city, country: only!, covered: true })),
      summary: `${countryName(only!)} is a country: ` +
        (cities.length
          ? `the covered cities there are ${cities.join(", ")}.`
          : "no city there is covered.") +
        " Ask again with the city or town of the site.",
    };
  }
  const described = regions.slice(0, MAX_CANDIDATES).map((code) => {
    const cities = citiesIn(code);
    return (code.length === 2 ? `the country ${countryName(code)}` : `the region ${code}`) +
      ` (${cities.length ? `covered: ${cities.join(", ")}` : "no covered city"})`;
  });
  const { shown, candidates } = _shown(catalog, places);
  const listed = shown.map((c, i) => `${candidateLabel(c)} (${_state(candidates[i]!.covered)})`);
  return {
    ...emptyAnswer(query, places.length ? "ambiguous" : "country"),
    candidates: places.length
      ? candidates
      : regions.flatMap((code) =>
        citiesIn(code).map((city) => ({ city, country: code.slice(0, 2), covered: true }))
      ),
    summary: `"${base.asked}" names ${described.join(" or ")}` +
      (places.length ? `, and places: ${listed.join("; ")}` : "") +
      ". Ask again with the city or town of the site" +
      (places.length ? ", and its state or country." : "."),
  };
}

function _otherCountry(
  catalog: Catalog,
  base: _Base,
  where: string,
  all: Candidate[],
): Coverage {
  const { shown, candidates } = _shown(catalog, all);
  const first = shown[0]!;
  return {
    ...emptyAnswer(base.query, "other_country"),
    candidates,
    summary: `No city "${base.asked}" is known in ${clip(where, 40)}, ` +
      `but ${candidateLabel(first)} is ${_state(candidates[0]!.covered)}: ask again with ` +
      `country ${first.country} if that is the one.`,
  };
}

function _unknown(
  catalog: Catalog,
  base: _Base,
  spelled: string,
  country: string | undefined,
  code?: Airport,
): Coverage {
  const near = _shown(catalog, closeSpellings(catalog, spelled)).candidates.slice(0, SPELLINGS);
  const coveredCities = [...new Set(catalog.locations.map((l) => `${l.city} (${l.country})`))]
    .sort().join(", ");
  const guesses = near.map((c) => `${c.city}, ${c.country} (${_state(c.covered)})`);
  return {
    ...emptyAnswer(base.query, "unknown"),
    candidates: near,
    summary: `"${base.asked}"${country ? ` in ${country}` : ""} is not a city we know.` +
      (code
        ? ` As an airport code, ${code.code} is ${code.name}, ${code.country}: ask with ` +
          `${code.code} in capitals to check it.`
        : "") +
      (near.length ? ` Did you mean ${guesses.join(" or ")}?` : " Try the nearest large city.") +
      ` Covered cities: ${coveredCities}.`,
  };
}

/** Up to {@linkcode MAX_CANDIDATES} of `all`, covered ones (or in reach of one) first. */
function _shown(catalog: Catalog, all: readonly Candidate[]) {
  const listed = all.slice(0, 4 * MAX_CANDIDATES).map((c) => ({
    c,
    covered: Boolean(c.location ?? (c.place && coveringLocation(catalog, c.place))),
  }));
  const ordered = [...listed.filter((x) => x.covered), ...listed.filter((x) => !x.covered)]
    .slice(0, MAX_CANDIDATES);
  return {
    shown: ordered.map((x) => x.c),
    candidates: ordered.map(({ c, covered }) => ({ city: c.city, country: c.country, covered })),
  };
}

function _state(covered: boolean): string {
  return covered ? "covered" : "not covered";
}
