/**
 * @module
 * What a submission and an estimate say of the site: the city as the site reader read it
 * (catalog/coverage.ts), in a few words an agent can relay ("London Heathrow Airport (LHR),
 * GB, 23 km from London, GB") and in the coverage's own sentence, so a site read as another
 * place than the one meant is seen before anything is reviewed; and `site_address`, when a
 * quote gives one, read too: a site address read as another place than the city is stated,
 * never resolved silently. The record keeps the same reading for staff (`review show`, the
 * console), beside the text as sent.
 */

import type { Catalog } from "../catalog/catalog.ts";
import { siteCoverage } from "../catalog/coverage.ts";
import type { Coverage, SiteCoverage } from "../catalog/coverage_types.ts";
import { haversineKm, NEARBY_KM } from "../catalog/places.ts";
import { clip } from "../http/errors.ts";
import type { SiteRecord } from "../store/submissions.ts";

/** How a site was read, as an answer gives it. */
export interface SiteAnswer {
  /** The one place read, in a few words; null when the text named no one place. */
  read_as: string | null;
  covered: boolean;
  /** The coverage's sentence: what was read from which part, and what it means. */
  summary: string;
  /** The covered location, when there is one. */
  location_id: string | null;
  /** The datacenter named, when the site named one. */
  facility: string | null;
  /** `site_address` read too, and whether it agrees with the city; null when none was sent. */
  site_address: { read_as: string | null; agrees: boolean | null; summary: string } | null;
}

/** How `city` (already read, as `site`) and `siteAddress` were read. */
export function siteAnswer(
  catalog: Catalog,
  site: SiteCoverage,
  siteAddress?: { text: string; country?: string | undefined },
): SiteAnswer {
  const c = site.coverage;
  return {
    read_as: readAs(c),
    covered: c.covered,
    summary: c.summary,
    location_id: c.location?.id ?? null,
    facility: c.site?.facility?.name ?? null,
    site_address: siteAddress?.text.trim()
      ? _address(catalog, site, siteAddress.text, siteAddress.country)
      : null,
  };
}

/** What a record keeps of a reading. */
export function siteRecord(answer: SiteAnswer, match: Coverage["match"]): SiteRecord {
  const { summary: _, site_address, ...rest } = answer;
  return {
    ...rest,
    match,
    site_address: site_address && { read_as: site_address.read_as, agrees: site_address.agrees },
  };
}

/** The one place a coverage answer read, in a few words; null for none. */
function readAs(c: Coverage): string | null {
  const loc = c.location;
  const facility = c.site?.facility;
  if (facility && loc) return `${facility.name}, ${loc.city}, ${loc.country}`;
  if (c.match === "covered" && loc) {
    return c.place
      ? `${c.place.name}, ${c.place.country}, in ${loc.city}`
      : `${loc.city}, ${loc.country}`;
  }
  if (c.match === "nearby" && loc && c.place) {
    const km = c.nearest[0]?.distance_km;
    return `${c.place.name}, ${c.place.country}, ${km} km from ${loc.city}, ${loc.country}`;
  }
  if (c.match === "known_uncovered" && c.place) return `${c.place.name}, ${c.place.country}`;
  return null;
}

/**
 * `site_address` read as a site: it agrees when it is the same covered location as the city,
 * or within reach of it; a disagreement is said, for the agent and for the person reviewing.
 */
function _address(
  catalog: Catalog,
  city: SiteCoverage,
  text: string,
  country: string | undefined,
): NonNullable<SiteAnswer["site_address"]> {
  const read = siteCoverage(catalog, { city: text, country });
  const as = readAs(read.coverage);
  const shown = `site_address "${clip(text.trim(), 60)}"`;
  if (!as || !read.point) {
    return {
      read_as: null,
      agrees: null,
      summary: `${shown} names no one place; the city stands.`,
    };
  }
  const cityAs = readAs(city.coverage);
  if (!cityAs || !city.point) {
    return { read_as: as, agrees: null, summary: `${shown} is read as ${as}.` };
  }
  const same =
    (read.coverage.location && read.coverage.location.id === city.coverage.location?.id) ||
    haversineKm(read.point, city.point) <= NEARBY_KM;
  return {
    read_as: as,
    agrees: same,
    summary: same
      ? `${shown} is read as ${as}, which agrees with the city.`
      : `${shown} is read as ${as}, but the city is read as ${cityAs}: the two disagree, and ` +
        "the person reviewing will ask which is meant before quoting.",
  };
}
