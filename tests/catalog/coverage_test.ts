import assert from "node:assert/strict";
import { buildCatalog, PLACES_FILE } from "../../src/catalog/catalog.ts";
import { checkCoverage } from "../../src/catalog/coverage.ts";
import { normalizeName } from "../../src/catalog/names.ts";
import { catalog } from "../_helpers.ts";
import services from "../../data/services.v1.json" with { type: "json" };
import locations from "../../data/locations.v1.json" with { type: "json" };
import holidays from "../../data/holidays.v1.json" with { type: "json" };

const places = Deno.readFileSync(PLACES_FILE);

Deno.test("the shipped catalog has about 10 services and 30 covered cities", () => {
  const c = catalog();
  assert.equal(c.services.length, 10);
  assert.equal(c.locations.length, 30);
  assert.ok(c.locations.every((l) => /^[A-Z]{2}$/.test(l.country)));
  assert.deepEqual(JSON.parse(c.servicesBody), {
    ok: true,
    services: c.services,
    terms: c.terms,
  });
  assert.deepEqual(JSON.parse(c.locationsBody), { ok: true, locations: c.locations });
});

Deno.test("normalizeName folds case, diacritics and punctuation", () => {
  assert.equal(normalizeName("Zürich"), "zurich");
  assert.equal(normalizeName("  SÃO   paulo "), "sao paulo");
  assert.equal(normalizeName("Frankfurt/Main"), "frankfurt main");
  assert.equal(normalizeName("København"), "kobenhavn");
  assert.equal(normalizeName("Düsseldorf"), "dusseldorf");
});

Deno.test("checkCoverage matches ignoring case, diacritics and aliases", async (t) => {
  const cases: [string, string | undefined, string][] = [
    ["zurich", undefined, "zrh"],
    ["ZÜRICH", "ch", "zrh"],
    ["Frankfurt am Main", undefined, "fra"],
    ["frankfurt", "DE", "fra"],
    ["Muenchen", undefined, "muc"],
    ["münchen", undefined, "muc"],
    ["Sao Paulo", undefined, "sao"],
    ["Kobenhavn", undefined, "cph"],
    ["Bombay", undefined, "bom"],
  ];
  for (const [city, country, id] of cases) {
    await t.step(`${city}${country ? `, ${country}` : ""} → ${id}`, () => {
      const c = checkCoverage(catalog(), { city, country });
      assert.equal(c.covered, true);
      assert.equal(c.match, "covered");
      assert.equal(c.location?.id, id);
      assert.ok(c.services.length > 0);
      assert.equal(typeof c.response_time_hours, "number");
      assert.deepEqual(c.nearest, []);
    });
  }
});

Deno.test("checkCoverage answers covered: false with the nearest covered cities for an uncovered city", () => {
  const c = checkCoverage(catalog(), { city: "Köln" });
  assert.equal(c.covered, false);
  assert.equal(c.match, "known_uncovered");
  assert.equal(c.location, null);
  assert.equal(c.nearest.length, 3);
  assert.equal(c.nearest[0]!.id, "dus");
  assert.ok(c.nearest[0]!.distance_km > 20 && c.nearest[0]!.distance_km < 60);
  assert.ok(c.nearest[0]!.distance_km <= c.nearest[1]!.distance_km);
});

Deno.test("checkCoverage lists candidates for an ambiguous city without a country", () => {
  const c = checkCoverage(catalog(), { city: "San Jose" });
  assert.equal(c.match, "ambiguous");
  assert.equal(c.covered, false);
  assert.deepEqual(
    c.candidates.slice(0, 2).map((x) => `${x.city}/${x.country}/${x.covered}`),
    ["San Jose/US/true", "San José/CR/false"],
    "the covered one first, then the most populous",
  );
  assert.equal(c.candidates.length, 5, "at most five");
  const us = checkCoverage(catalog(), { city: "San Jose", country: "US" });
  assert.equal(us.covered, true);
  const cr = checkCoverage(catalog(), { city: "san jose", country: "cr" });
  assert.equal(cr.covered, false);
  assert.equal(cr.match, "known_uncovered");
});

Deno.test("an ambiguous name says which candidate is covered and that country resolves it", () => {
  const c = checkCoverage(catalog(), { city: "San Jose" });
  assert.equal(c.covered, false, "covered stays true only for a single match");
  assert.match(
    c.summary,
    /^"San Jose" names more than 5 places: San Jose, US \(covered\); San José, CR-SJ \(not covered\); .* Ask again with the country \(or state\) to choose one\.$/,
  );
});

Deno.test("a city asked for in the wrong country says where it is covered", () => {
  const c = checkCoverage(catalog(), { city: "Frankfurt", country: "US" });
  assert.equal(c.match, "other_country");
  assert.equal(c.covered, false);
  assert.deepEqual(c.candidates, [{ city: "Frankfurt", country: "DE", covered: true }]);
  assert.match(c.summary, /Frankfurt, DE is covered: ask again with country DE/);
  const fixed = checkCoverage(catalog(), { city: "Frankfurt", country: "DE" });
  assert.equal(fixed.covered, true);
});

Deno.test("every coverage answer carries a summary sentence", () => {
  for (const city of ["Zurich", "Köln", "San Jose", "Qwxyzburg"]) {
    const c = checkCoverage(catalog(), { city });
    assert.ok(c.summary.length > 20 && c.summary.endsWith("."), `${city}: ${c.summary}`);
  }
  assert.match(
    checkCoverage(catalog(), { city: "Köln" }).summary,
    /^Köln, DE-NW is not covered\. The nearest covered city is Düsseldorf, DE, 35 km away, where an engineer is on site within 4 h of a request/,
  );
});

Deno.test("checkCoverage answers an unknown city with covered: false and match unknown", () => {
  const c = checkCoverage(catalog(), { city: "Qwxyzburg" });
  assert.equal(c.covered, false);
  assert.equal(c.match, "unknown");
  assert.deepEqual(c.nearest, []);
  // A covered city asked for in the wrong country is not covered (see other_country).
  assert.equal(checkCoverage(catalog(), { city: "Paris", country: "US" }).covered, false);
});

Deno.test("buildCatalog rejects data that fails its schema or cross-checks", async (t) => {
  const clone = <T>(x: T): T => structuredClone(x);
  await t.step("wrong version", () => {
    assert.throws(
      () =>
        buildCatalog({ services: { ...clone(services), version: 2 }, locations, places, holidays }),
      /services\.v1\.json: version/,
    );
  });
  await t.step("a location offering an unknown service", () => {
    const bad = clone(locations);
    bad.locations[0]!.services.push("teleportation");
    assert.throws(
      () => buildCatalog({ services, locations: bad, places, holidays }),
      /unknown service\(s\) teleportation/,
    );
  });
  await t.step("a duplicate service id", () => {
    const bad = clone(services);
    bad.services.push(bad.services[0]!);
    assert.throws(
      () => buildCatalog({ services: bad, locations, places, holidays }),
      /duplicate id remote-hands/,
    );
  });
  await t.step("a places file of another version", () => {
    assert.throws(
      () => {
        const text = new TextDecoder().decode(places).replace('{"version":3', '{"version":1');
        return buildCatalog({
          services,
          locations,
          places: new TextEncoder().encode(text),
          holidays,
        });
      },
      /places\.v3\.bin: .*version/,
    );
  });
  await t.step("a subdivision of another country", () => {
    const bad = clone(locations);
    bad.locations[0]!.subdivision = "US-VA";
    assert.throws(
      () => buildCatalog({ services, locations: bad, places, holidays }),
      /fra is in DE, not US-VA/,
    );
  });
  await t.step("holidays made for another region than the location's", () => {
    const bad = clone(locations);
    bad.locations[0]!.subdivision = "DE-BY";
    assert.throws(
      () => buildCatalog({ services, locations: bad, places, holidays }),
      /fra has the holidays of DE-HE, not DE-BY: run deno task data:holidays/,
    );
  });
  await t.step("a lower-case country", () => {
    const bad = clone(locations);
    bad.locations[0]!.country = "de";
    assert.throws(
      () => buildCatalog({ services, locations: bad, places, holidays }),
      /locations\.v1\.json: locations\.0\.country/,
    );
  });
  await t.step("a service priced in another currency than the terms'", () => {
    const bad = clone(services);
    bad.services[1]!.pricing.currency = "USD";
    assert.throws(
      () => buildCatalog({ services: bad, locations, places, holidays }),
      /services\.v1\.json: smart-hands is priced in USD, not the terms' EUR/,
    );
  });
  await t.step("a covered country without its tax, or a country with two", () => {
    const untaxed = clone(services);
    untaxed.terms.tax = untaxed.terms.tax.filter((rule) => !rule.countries.includes("JP"));
    assert.throws(
      () => buildCatalog({ services: untaxed, locations, places, holidays }),
      /services\.v1\.json: terms tax does not name JP/,
    );
    const twice = clone(services);
    twice.terms.tax.push({ tax: "sales tax", countries: ["DE"] });
    assert.throws(
      () => buildCatalog({ services: twice, locations, places, holidays }),
      /services\.v1\.json: terms tax lists DE twice/,
    );
  });
  await t.step("terms that say prices include tax", () => {
    const bad = clone(services) as unknown as { terms: { tax_included: boolean } };
    bad.terms.tax_included = true;
    assert.throws(
      () => buildCatalog({ services: bad, locations, places, holidays }),
      /services\.v1\.json: terms\.tax_included/,
    );
  });
});

Deno.test("a city written with its country or state after a comma is the city before it", async (t) => {
  const cases: [string, string, boolean][] = [
    ["Frankfurt, Germany", "covered", true],
    ["Paris, FR", "covered", true],
    ["Ashburn, VA", "covered", true], // VA is Virginia here, not the Vatican
    ["San Jose, CA", "covered", true], // California: the US San Jose, not Canada or Costa Rica
  ];
  for (const [city, match, covered] of cases) {
    await t.step(city, () => {
      const c = checkCoverage(catalog(), { city });
      assert.deepEqual([c.match, c.covered], [match, covered]);
      assert.equal(c.query.city, city, "the query is reported as asked");
    });
  }
});

Deno.test("an unknown name suggests close spellings and lists the covered cities", () => {
  const c = checkCoverage(catalog(), { city: "Frankfrut" });
  assert.equal(c.match, "unknown");
  assert.deepEqual(c.candidates, [{ city: "Frankfurt", country: "DE", covered: true }]);
  assert.match(c.summary, /Did you mean Frankfurt, DE \(covered\)\?/);
  assert.match(c.summary, /Covered cities: Amsterdam \(NL\), Ashburn \(US\), /);
  assert.doesNotMatch(c.summary, /GET \//, "no REST path an MCP agent cannot follow");
});

Deno.test("one city resolver: a city followed by a US state or a country, with or without a comma", async (t) => {
  const cases: [string, string, string | null][] = [
    ["Ashburn VA", "covered", "iad"],
    ["Ashburn, VA", "covered", "iad"],
    ["Ashburn, Virginia", "covered", "iad"],
    ["Ashburn Virginia", "covered", "iad"],
    ["San Jose, CA", "covered", "sjc"],
    ["San Jose CA", "covered", "sjc"],
    ["San Jose California", "covered", "sjc"],
    ["Frankfurt Germany", "covered", "fra"],
    ["Frankfurt, Germany", "covered", "fra"],
    ["New York NY", "covered", "nyc"],
    ["Frankfurt am Main", "covered", "fra"],
    ["Portland Oregon", "known_uncovered", null],
    ["Paris Texas", "known_uncovered", null],
    ["London, US", "ambiguous", null],
    ["Frankfurt, US", "other_country", null],
    ["San Jose", "ambiguous", null],
  ];
  for (const [city, match, id] of cases) {
    await t.step(city, () => {
      const c = checkCoverage(catalog(), { city });
      assert.equal(c.match, match, c.summary);
      assert.equal(c.location?.id ?? null, id);
    });
  }
  await t.step("an ambiguous name says which candidate is covered", () => {
    const c = checkCoverage(catalog(), { city: "San Jose" });
    assert.match(c.summary, /San Jose, US \(covered\); San José, CR-SJ \(not covered\)/);
  });
  await t.step("the nearest-city wording names whose response time it is", () => {
    const c = checkCoverage(catalog(), { city: "Reykjavik" });
    assert.match(c.summary, /Dublin, IE, 1,4\d\d km away, where an engineer is on site within 4 h/);
  });
});
