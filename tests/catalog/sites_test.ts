/**
 * Sites as customers write them (issue 38): a facility, a street address, a district, a ZIP
 * code with its town, an airport by name, a small town near a campus, a namesake. Every row is
 * read alike by the public REST check and the MCP tool, and priced by the estimate (REST and
 * MCP) in the time zone of the place read; the place, the facility and the part read are
 * asserted. Submissions answer with the reading on both transports, and a site_address read
 * as another place than the city is stated.
 */

import assert from "node:assert/strict";
import { loadCatalog } from "../../src/catalog/catalog.ts";
import { checkCoverage } from "../../src/catalog/coverage.ts";
import { mulberry32, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { createApp, mcpToolCall, post, type TestApp } from "../_helpers.ts";

interface Expect {
  /** The answer's kind. */
  match: string;
  /** The covered location, when one covers it. */
  location?: string;
  /** The facility named, by id. */
  facility?: string;
  /** What the place was read as: a pattern of coverage.place.name. */
  place?: RegExp;
  /** The part of the text read as the place (coverage.site.read_from). */
  from?: string;
  /** The IANA zone an estimate reads the date in; null for no one place. */
  zone: string | null;
  /** More to check. */
  also?: (c: Coverage) => void;
}

interface Coverage {
  match: string;
  covered: boolean;
  summary: string;
  location: { id: string; timezone: string } | null;
  place?: { name: string; country: string; timezone: string } | null;
  candidates: { city: string; country: string; covered: boolean }[];
  site: { read_from: string | null; facility: { id: string } | null; ignored: string[] } | null;
}

type Row = [city: string, country: string | undefined, expect: Expect];

const NY = "America/New_York";
const LON = "Europe/London";
const FRA = "Europe/Berlin";

const ROWS: Row[] = [
  // Facilities with their city, or alone: the facility named, its location's zone.
  ["Equinix DC11, Ashburn", undefined, {
    match: "covered",
    location: "iad",
    facility: "iad-equinix-dc11",
    from: "Ashburn",
    zone: NY,
  }],
  ["Equinix FR5 Frankfurt", undefined, {
    match: "covered",
    location: "fra",
    facility: "fra-equinix-fr5",
    zone: FRA,
  }],
  ["Interxion AMS8, Amsterdam", undefined, {
    match: "covered",
    location: "ams",
    facility: "ams-digital-realty-ams8",
    from: "Amsterdam",
    zone: "Europe/Amsterdam",
  }],
  ["FR5", undefined, { match: "covered", location: "fra", facility: "fra-equinix-fr5", zone: FRA }],
  ["Digital Realty LHR20", undefined, {
    match: "covered",
    location: "lon",
    facility: "lon-digital-realty-lhr20",
    zone: LON,
  }],
  // A facility in another country than the one given: not the site.
  ["Equinix LD8", "US", {
    match: "other_country",
    zone: null,
    also: (c) => {
      assert.deepEqual(c.candidates, [{ city: "London", country: "GB", covered: true }]);
      assert.match(c.summary, /Equinix LD8.*London, GB.*country GB/);
    },
  }],
  ["SV1", "GB", { match: "other_country", zone: null }],
  ["Equinix DC11, Ashburn", "GB", { match: "other_country", zone: null }],
  // A facility in another city than the place named: both, never one at random.
  ["Equinix FR5, London", undefined, {
    match: "ambiguous",
    zone: null,
    also: (c) => {
      assert.deepEqual(c.candidates.map((x) => x.city).sort(), ["Frankfurt", "London"]);
      assert.match(c.summary, /names places far apart/);
    },
  }],
  // A building's, a suite's or a rack's letter and number is no facility's code (NEXTDC S1 is
  // in Sydney).
  ["Building S1, Ashburn", undefined, { match: "covered", location: "iad", zone: NY }],
  ["Suite S1, 350 E Cermak Rd, Chicago", undefined, {
    match: "covered",
    location: "chi",
    zone: "America/Chicago",
  }],
  ["Rack VA2, cage 10, Equinix DC5", undefined, {
    match: "covered",
    location: "iad",
    facility: "iad-equinix-dc5",
    zone: NY,
  }],
  // A facility's code beside a town of several places, none near it: both readings ("CH1" is
  // Chicago's, "TR1" Toronto's; Chester and Truro are in England and elsewhere).
  ["Chester CH1", undefined, {
    match: "ambiguous",
    zone: null,
    also: (c) => {
      assert.equal(c.candidates.filter((x) => x.city === "Chicago").length, 1);
      assert.ok(c.candidates.some((x) => x.city === "Chester" && x.country === "GB"));
    },
  }],
  ["Truro TR1", undefined, { match: "ambiguous", zone: null }],
  ["Santa Clara SV1", undefined, {
    match: "covered",
    location: "sjc",
    zone: "America/Los_Angeles",
  }],
  // A town of several places beside a place: the one within reach of it, else both readings.
  ["Manchester, London", undefined, {
    match: "ambiguous",
    zone: null,
    also: (c) => {
      assert.ok(c.candidates.some((x) => x.city === "London" && x.covered));
      assert.doesNotMatch(c.summary, /(Manchester, US, not covered).*\1/, "each place once");
    },
  }],
  ["Hayes, London", undefined, { match: "nearby", location: "lon", place: /^Hayes$/, zone: LON }],
  ["Green Park, Reading RG2 6GP", undefined, {
    match: "known_uncovered",
    place: /^Reading$/,
    zone: LON,
  }],
  ["Reading, London", undefined, { match: "known_uncovered", place: /^Reading$/, zone: LON }],
  // A second part naming a place far away is not passed over; an operator's name is no town
  // (Iron Mountain, MI).
  ["Dallas, Ashburn", undefined, { match: "ambiguous", zone: null }],
  ["Iron Mountain, Ashburn", undefined, {
    match: "covered",
    location: "iad",
    from: "Ashburn",
    zone: NY,
  }],
  // Street addresses: the street is no place, the ZIP code agrees.
  ["21715 Filigree Ct, Ashburn, VA 20147", undefined, {
    match: "covered",
    location: "iad",
    from: "Ashburn, VA 20147",
    zone: NY,
    also: (c) => {
      assert.deepEqual(c.site?.ignored, ["21715 Filigree Ct"]);
      assert.match(c.summary, /ZIP code 20147 agrees/);
    },
  }],
  ["1 Fusionopolis Way, Singapore", undefined, {
    match: "covered",
    location: "sin",
    from: "Singapore",
    zone: "Asia/Singapore",
  }],
  ["Kleyerstraße 90, 60326 Frankfurt am Main", undefined, {
    match: "covered",
    location: "fra",
    from: "60326 Frankfurt am Main",
    zone: FRA,
  }],
  ["Suite 200, 3rd Floor, 350 E Cermak Rd, Chicago, IL 60616", undefined, {
    match: "covered",
    location: "chi",
    zone: "America/Chicago",
  }],
  // A floor after a facility's code, a compass point after a house number: no postcode.
  ["Equinix DC11 1st Floor, Ashburn VA", undefined, {
    match: "covered",
    location: "iad",
    facility: "iad-equinix-dc11",
    zone: NY,
  }],
  ["TY1 3rd Floor, Tokyo", undefined, {
    match: "covered",
    location: "tyo",
    facility: "tyo-equinix-ty1",
    zone: "Asia/Tokyo",
  }],
  ["1100 NE Frankfort Ave, Chicago IL", undefined, {
    match: "covered",
    location: "chi",
    from: "Chicago IL",
    zone: "America/Chicago",
  }],
  // A street named after a town is a street: "London Road" is not London.
  ["London Road, Reading", "GB", { match: "known_uncovered", place: /^Reading$/, zone: LON }],
  // Districts and parts of a city: the city.
  ["Frankfurt-Sossenheim", undefined, { match: "covered", location: "fra", zone: FRA }],
  ["Rüsselsheim am Main", undefined, { match: "nearby", location: "fra", zone: FRA }],
  ["Karl-Landsteiner-Ring 4, 65428 Rüsselsheim am Main, Germany", undefined, {
    match: "nearby",
    location: "fra",
    place: /^Rüsselsheim$/,
    zone: FRA,
  }],
  ["Via Savona 125, 20144 Milano MI, Italy", undefined, {
    match: "covered",
    location: "mil",
    zone: "Europe/Rome",
  }],
  // A compass word beside a city is no region ("North": Cameroon's), and no town before one.
  ["Dallas North", undefined, { match: "covered", location: "dfw", zone: "America/Chicago" }],
  ["Frankfurt Nord", undefined, { match: "covered", location: "fra", zone: FRA }],
  ["Paris Nord 2", undefined, { match: "covered", location: "par", zone: "Europe/Paris" }],
  ["Central Tokyo", undefined, { match: "covered", location: "tyo", zone: "Asia/Tokyo" }],
  ["Frankfurt KY", undefined, { match: "other_country", zone: null }],
  // Regions of different countries are no one place's ("KU" is no Japanese ward's region): a
  // Tokyo ward is Tokyo, not Ōta in Gunma or Minato in Wakayama.
  ["Ota-ku, Tokyo", undefined, {
    match: "covered",
    location: "tyo",
    from: "Tokyo",
    zone: "Asia/Tokyo",
  }],
  ["Minato-ku, Tokyo", undefined, { match: "covered", location: "tyo", zone: "Asia/Tokyo" }],
  ["Milano MI, Italy", undefined, { match: "covered", location: "mil", zone: "Europe/Rome" }],
  // A word of a campus's, a building's or a street's name is no town far away: "Grange
  // Castle" is not Grange, AU, "Jebel Ali" not Jebel, RO, "Am Kronberger Hang" not Hangzhou.
  ["Grange Castle", undefined, { match: "unknown", zone: null }],
  ["Jebel Ali", undefined, { match: "unknown", zone: null }],
  ["Wells Fargo Center, Dallas", undefined, {
    match: "covered",
    location: "dfw",
    from: "Dallas",
    zone: "America/Chicago",
  }],
  ["Am Kronberger Hang 2a, 65824 Schwalbach am Taunus", undefined, {
    match: "nearby",
    location: "fra",
    place: /^Schwalbach am Taunus$/,
    zone: FRA,
  }],
  // Nor a word left beside "data center" or a floor, nor words beside a datacenter's name.
  ["Mobile data centre, Ashburn", undefined, { match: "covered", location: "iad", zone: NY }],
  ["Hope Data Center, Dallas", undefined, {
    match: "covered",
    location: "dfw",
    zone: "America/Chicago",
  }],
  ["Street level, 60 Hudson St, New York", undefined, {
    match: "covered",
    location: "nyc",
    zone: NY,
  }],
  ["our DC2 in Frankfurt", undefined, { match: "ambiguous", zone: null }],
  ["Send to: Equinix FR5", undefined, {
    match: "covered",
    location: "fra",
    facility: "fra-equinix-fr5",
    zone: FRA,
  }],
  ["Inzai-shi, Chiba-ken", undefined, {
    match: "known_uncovered",
    place: /^Inzai$/,
    zone: "Asia/Tokyo",
  }],
  ["Slough Trading Estate", undefined, {
    match: "nearby",
    location: "lon",
    place: /^Slough$/,
    zone: LON,
  }],
  ["Docklands, London", undefined, {
    match: "covered",
    location: "lon",
    from: "London",
    zone: LON,
  }],
  // A ZIP code with its town.
  ["Ashburn VA 20147", undefined, { match: "covered", location: "iad", zone: NY }],
  // The state after the town without a comma, the country after one.
  ["Ashburn VA, USA", undefined, { match: "covered", location: "iad", zone: NY }],
  ["Sydney NSW, Australia", undefined, {
    match: "covered",
    location: "syd",
    zone: "Australia/Sydney",
  }],
  ["47 Bourke Road, Alexandria NSW 2015, Australia", undefined, {
    match: "nearby",
    location: "syd",
    place: /^Alexandria$/,
    from: "Alexandria NSW 2015, Australia",
    zone: "Australia/Sydney",
  }],
  ["151 Front St W, Toronto ON M5J 2N1, Canada", undefined, {
    match: "covered",
    location: "yyz",
    zone: "America/Toronto",
  }],
  // A ZIP code of a namesake's town: that town ("Paris 75460" is Paris, TX).
  ["Paris 75460", undefined, {
    match: "known_uncovered",
    place: /^Paris$/,
    zone: "America/Chicago",
  }],
  ["Portland 97201", undefined, {
    match: "known_uncovered",
    place: /^Portland$/,
    zone: "America/Los_Angeles",
  }],
  // Another country's postcode after its town, or a ZIP code of another town: never the
  // ZIP code's town silently (75015 is Irving, TX; 60439 Lemont, IL; 20121 Centreville, VA).
  ["Paris 75015", undefined, {
    match: "ambiguous",
    zone: null,
    also: (c) => {
      assert.deepEqual(c.candidates.map((x) => x.country).sort(), ["FR", "US"]);
      assert.match(c.summary, /"ZIP code 75015" \(Irving/);
    },
  }],
  ["Frankfurt 60439", undefined, { match: "ambiguous", zone: null }],
  // With the country said, a postcode of five digits is that country's.
  ["Paris, France 75015", undefined, { match: "covered", location: "par", zone: "Europe/Paris" }],
  ["Milano 20121, Italy", undefined, { match: "covered", location: "mil", zone: "Europe/Rome" }],
  ["Frankfurt 60439, Germany", undefined, { match: "covered", location: "fra", zone: FRA }],
  ["Milan 20121", undefined, { match: "ambiguous", zone: null }],
  ["Ashburn, VA 90210", undefined, {
    match: "ambiguous",
    zone: null,
    also: (c) => assert.match(c.summary, /"Ashburn" \(Ashburn, US, covered\)/),
  }],
  // Airports by name: a famous airport outranks a small town of the name (Heathrow, FL).
  ["Heathrow", undefined, {
    match: "nearby",
    location: "lon",
    place: /Heathrow.*\(LHR\)/,
    zone: LON,
  }],
  ["Heathrow, UK", undefined, { match: "nearby", location: "lon", place: /\(LHR\)/, zone: LON }],
  ["Heathrow", "GB", { match: "nearby", location: "lon", place: /\(LHR\)/, zone: LON }],
  ["Heathrow Airport", undefined, {
    match: "nearby",
    location: "lon",
    place: /\(LHR\)/,
    zone: LON,
  }],
  ["London Heathrow", undefined, { match: "nearby", location: "lon", place: /\(LHR\)/, zone: LON }],
  ["Kastrup", undefined, {
    match: "nearby",
    location: "cph",
    place: /\(CPH\)/,
    zone: "Europe/Copenhagen",
  }],
  ["Dulles", undefined, { match: "nearby", location: "iad", place: /\(IAD\)/, zone: NY }],
  // An airport by its name with its state: the state of the covered city beside it.
  ["Dulles, VA", undefined, { match: "nearby", location: "iad", place: /\(IAD\)/, zone: NY }],
  ["45901 Nokes Blvd, Dulles, VA", undefined, {
    match: "nearby",
    location: "iad",
    place: /\(IAD\)/,
    zone: NY,
  }],
  ["Heathrow, England", undefined, {
    match: "nearby",
    location: "lon",
    place: /\(LHR\)/,
    zone: LON,
  }],
  ["Love Field, TX", undefined, {
    match: "nearby",
    location: "dfw",
    place: /\(DAL\)/,
    zone: "America/Chicago",
  }],
  // An airport beside a town of some size: both are candidates.
  ["Wilson", undefined, { match: "ambiguous", zone: null }],
  // Small towns near a campus (under GeoNames' old 5,000 threshold), and city sections.
  ["Duivendrecht", undefined, { match: "nearby", location: "ams", zone: "Europe/Amsterdam" }],
  ["Glattbrugg", undefined, { match: "nearby", location: "zrh", zone: "Europe/Zurich" }],
  ["Navi Mumbai", undefined, { match: "nearby", location: "bom", zone: "Asia/Kolkata" }],
  // Namesakes: two alike are one; a country or region narrows them.
  ["Hayes", "GB", { match: "nearby", location: "lon", place: /^Hayes$/, zone: LON }],
  ["Paris", "US", {
    match: "ambiguous",
    zone: null,
    also: (c) => assert.ok(c.candidates.every((x) => x.country === "US")),
  }],
  ["Paris, TX", undefined, { match: "known_uncovered", place: /^Paris$/, zone: "America/Chicago" }],
  ["Frankfurt (Oder)", undefined, { match: "known_uncovered", place: /Oder/, zone: FRA }],
  ["London, ON", undefined, {
    match: "known_uncovered",
    place: /^London$/,
    zone: "America/Toronto",
  }],
  // A misspelling GeoNames lists is read, and the answer says as what.
  ["Londn", undefined, {
    match: "covered",
    location: "lon",
    zone: LON,
    also: (c) => assert.match(c.summary, /^"Londn" is read as London, GB/),
  }],
];

async function coverageEverywhere(app: TestApp, city: string, country?: string) {
  const query = new URLSearchParams({ city, ...(country ? { country } : {}) });
  const rest = await app.request(`/api/v1/locations?${query}`);
  assert.equal(rest.status, 200);
  const coverage = (await rest.json()).coverage as Coverage;
  const tool = await mcpToolCall(app, "check_coverage", { city, ...(country ? { country } : {}) });
  assert.deepEqual(tool.structuredContent.coverage, coverage, "check_coverage answers alike");
  return coverage;
}

async function estimateZone(app: TestApp, city: string, country?: string) {
  const job = { city, ...(country ? { country } : {}), service_type: "remote-hands" };
  const rest = await app.request(`/api/v1/estimate?${new URLSearchParams(job)}`);
  const body = await rest.json();
  assert.equal(rest.status, 200, JSON.stringify(body));
  const tool = await mcpToolCall(app, "estimate_quote", job);
  assert.deepEqual(tool.structuredContent.budget_estimate, body.budget_estimate);
  assert.deepEqual(tool.structuredContent.site, body.site);
  return { zone: body.budget_estimate.basis.time_zone, site: body.site };
}

Deno.test("a site as customers write it is read as its place, alike on REST, MCP and the estimate", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  for (const [city, country, expect] of ROWS) {
    await t.step(`${city}${country ? ` (${country})` : ""} → ${expect.match}`, async () => {
      const c = await coverageEverywhere(app, city, country);
      assert.equal(c.match, expect.match, c.summary);
      if (expect.location) assert.equal(c.location?.id, expect.location, c.summary);
      if (expect.facility) assert.equal(c.site?.facility?.id, expect.facility, c.summary);
      else assert.equal(c.site?.facility ?? null, null);
      if (expect.place) assert.match(c.place?.name ?? "", expect.place, c.summary);
      if (expect.from) assert.equal(c.site?.read_from, expect.from);
      expect.also?.(c);
      const estimate = await estimateZone(app, city, country);
      assert.equal(estimate.zone, expect.zone, "the estimate reads the date at the site");
      assert.equal(estimate.site.covered, c.covered);
      if (c.site?.facility) assert.match(estimate.site.read_as, /^Equinix|^Digital Realty/);
    });
  }
});

const CONTACT = { company: "Example BV", contact_name: "Sam Example", email: "sam@example.com" };

Deno.test("submissions answer with the site as read, on REST and MCP; a site_address read elsewhere is stated", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const quote = {
    ...CONTACT,
    city: "Equinix DC11, Ashburn",
    service_type: "remote-hands",
    description: "Swap a drive",
  };
  await t.step("request_quote and POST /api/v1/quotes name the facility", async () => {
    const rest = await (await post(app, "/api/v1/quotes", quote)).json();
    const tool = await mcpToolCall(app, "request_quote", { ...quote, description: "Swap two" });
    for (const site of [rest.site, tool.structuredContent.site]) {
      assert.equal(site.read_as, "Equinix DC11, Ashburn, US");
      assert.equal(site.facility, "Equinix DC11");
      assert.equal(site.location_id, "iad");
      assert.match(site.summary, /datacenter Equinix DC11 \(21721 Filigree Court/);
      assert.equal(site.site_address, null);
    }
  });
  await t.step("a lead with a city says how it was read; without one, site is null", async () => {
    const read = await (await post(app, "/api/v1/intake", {
      email: "ops@example.com",
      description: "Racks",
      city: "Londn",
    })).json();
    assert.equal(read.site.read_as, "London, GB");
    assert.match(read.site.summary, /^"Londn" is read as London, GB/);
    const tool = await mcpToolCall(app, "submit_lead", {
      email: "ops@example.com",
      description: "Racks again",
      city: "Heathrow",
    });
    assert.match(
      (tool.structuredContent.site as { read_as: string }).read_as,
      /Heathrow Airport \(LHR\), GB, 23 km from London/,
    );
    const none =
      await (await post(app, "/api/v1/intake", { email: "a@example.com", description: "x" }))
        .json();
    assert.equal(none.site, null);
  });
  await t.step(
    "site_address read as another place than the city: stated, not resolved",
    async () => {
      const res = await post(app, "/api/v1/quotes", {
        ...quote,
        description: "Elsewhere",
        site_address: "Kleyerstraße 90, 60326 Frankfurt am Main",
      });
      assert.equal(res.status, 202);
      const site = (await res.json()).site;
      assert.equal(site.location_id, "iad", "the city stands");
      assert.equal(site.site_address.read_as, "Frankfurt, DE");
      assert.equal(site.site_address.agrees, false);
      assert.match(site.site_address.summary, /the two disagree/);
      const agree = await (await post(app, "/api/v1/quotes", {
        ...quote,
        description: "Same place",
        site_address: "21721 Filigree Court, Ashburn, VA 20147",
      })).json();
      assert.equal(agree.site.site_address.agrees, true);
    },
  );
});

Deno.test("a hostile 200-character site costs a bounded number of gazetteer lookups", () => {
  // The catalog's own gazetteer, its lookups counted: work, not time (a time would flake).
  const cat = loadCatalog();
  const places = cat.places as unknown as Record<string, (...args: unknown[]) => unknown>;
  let lookups = 0;
  for (
    const method of ["named", "regions", "airportsNamed", "namesAround", "zip", "airport"]
  ) {
    const call = places[method]!.bind(places);
    places[method] = (...args: unknown[]) => (lookups++, call(...args));
  }
  const random = mulberry32(38);
  const pick = (words: string[]) => words[Math.floor(random() * words.length)]!;
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const word = () =>
    Array.from({ length: 1 + Math.floor(random() * 8) }, () => pick([...letters])).join("");
  const known = [
    "London",
    "Paris",
    "VA",
    "USA",
    "Frankfurt",
    "1",
    "St",
    "Equinix",
    "FR5",
    "Road",
    "3rd",
    "Floor",
  ];
  let worst = 0;
  for (let i = 0; i < 400; i++) {
    const separator = pick([" ", ", ", "-", " / "]);
    const words = Array.from({ length: 60 }, () => (i % 2 ? pick(known) : word()));
    const site = words.join(separator).slice(0, 200);
    lookups = 0;
    checkCoverage(cat, { city: site });
    worst = Math.max(worst, lookups);
  }
  // Region names run on ("va va va …", "st,st,…"): read as a name and its regions from the
  // last words and the first parts only.
  for (const word of ["va", "st", "usa", "virginia", "new south wales"]) {
    for (const separator of [" ", ",", ", "]) {
      lookups = 0;
      checkCoverage(cat, { city: Array(100).fill(word).join(separator).slice(0, 200) });
      worst = Math.max(worst, lookups);
    }
  }
  // At most 8 parts of 8 words, each read whole and from its ends: a few hundred lookups.
  assert.ok(worst <= 400, `${worst} lookups`);
});
