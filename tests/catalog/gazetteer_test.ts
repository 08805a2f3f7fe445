/**
 * The gazetteer's data as issue 38 asks it (data/places.v3.bin, `deno task data:places`):
 * airports by the names people write for them, each with the population it serves; every town
 * near a covered city, however small; and the covered cities' own names unchanged by them.
 */

import assert from "node:assert/strict";
import { checkCoverage } from "../../src/catalog/coverage.ts";
import { haversineKm, NEARBY_KM } from "../../src/catalog/places.ts";
import { POPULATION_MIN, REACH_KM } from "../../scripts/places.ts";
import { catalog } from "../_helpers.ts";

const codes = (key: string) => catalog().places.airportsNamed(key).map((a) => a.code);

/** The place of that name and country, the largest when several. */
function placeNamed(key: string, country: string) {
  const { places } = catalog();
  const found = places.named(key).map(({ id }) => places.place(id))
    .find((p) => p.country === country);
  assert.ok(found, `${key} in ${country}`);
  return found;
}

/** The distance from a place to the covered location `id`. */
function kmFrom(place: { latitude: number; longitude: number }, id: string): number {
  return haversineKm(place, catalog().locationById.get(id)!);
}

Deno.test("an airport is found by its name, and by the part of it that is its own", () => {
  for (
    const key of ["heathrow", "london heathrow", "heathrow airport", "london heathrow airport"]
  ) {
    assert.deepEqual(codes(key), ["LHR"], key);
  }
  assert.deepEqual(codes("orly"), ["ORY"]);
  assert.deepEqual(codes("kastrup"), ["CPH"]);
  assert.deepEqual(codes("schiphol"), ["AMS"]);
  assert.deepEqual(codes("schiphol airport"), ["AMS"]);
  assert.deepEqual(codes("frankfurt am main airport"), ["FRA"]);
  assert.deepEqual(codes("dulles"), ["IAD"]);
});

Deno.test("a city's own name is never an airport's, nor a name that is only common words", () => {
  for (
    const key of ["frankfurt", "frankfurt am main", "am main", "paris", "london", "dubai"]
  ) {
    assert.deepEqual(codes(key), [], key);
  }
  // Luton is a town of 225,262 beside London Luton Airport: the town.
  assert.deepEqual(codes("luton"), []);
  // Sanya Phoenix International Airport does not serve ten times the people of Phoenix, AZ.
  assert.deepEqual(codes("phoenix"), []);
  for (const key of ["international", "airport", "regional", "domestic", "north"]) {
    assert.deepEqual(codes(key), [], key);
  }
});

Deno.test("an airport serves the people of the largest place within 50 km", () => {
  const { places } = catalog();
  const lhr = places.airport("LHR")!;
  assert.ok(lhr.served > 5_000_000, `${lhr.served}`);
  assert.deepEqual(places.airportsNamed("heathrow"), [lhr]);
  // Heathrow, FL: the town of that name is a tenth or less of what the airport serves.
  const town = placeNamed("heathrow", "US");
  assert.equal(town.population, 5_896);
  assert.ok(lhr.served >= 10 * town.population);
  // Goroka, Papua New Guinea: a small airport of a small town.
  const goroka = places.airport("GKA")!;
  assert.ok(goroka.served > 0 && goroka.served < 50_000, `${goroka.served}`);
});

Deno.test("towns of any size near a covered city are known, and sections of a city", () => {
  const small: [string, string, string][] = [
    ["duivendrecht", "NL", "ams"],
    ["lysaker", "NO", "osl"],
    ["dielsdorf", "CH", "zrh"],
    ["glattbrugg", "CH", "zrh"],
  ];
  for (const [key, country, id] of small) {
    const place = placeNamed(key, country);
    assert.ok(place.population < POPULATION_MIN, `${key}: ${place.population}`);
    assert.ok(kmFrom(place, id) <= NEARBY_KM, `${key}: ${kmFrom(place, id)} km`);
  }
  assert.ok(kmFrom(placeNamed("bromma", "SE"), "sto") <= NEARBY_KM);
  const navi = placeNamed("navi mumbai", "IN");
  assert.ok(navi.population > 1_000_000 && kmFrom(navi, "bom") <= NEARBY_KM);
});

Deno.test("away from the covered cities a place has 5,000 people or more", () => {
  const { places, locations } = catalog();
  for (let id = 0; id < places.size; id++) {
    const place = places.place(id);
    if (place.population >= POPULATION_MIN) continue;
    // The file keeps coordinates to 0.01°, some 1 km: Wolhusen, CH is 50 km from Zurich.
    assert.ok(
      locations.some((l) => haversineKm(place, l) <= REACH_KM + 1),
      `${place.name}, ${place.country}: ${place.population} people`,
    );
  }
  // Sterling, MI (513 people), OK (803) and KS (2,293) are far from any covered city.
  const sterlings = places.named("sterling").map(({ id }) => places.place(id));
  assert.ok(sterlings.some((p) => p.subdivision === "US-VA"), "Sterling, VA, by Ashburn");
  assert.ok(sterlings.every((p) => p.population >= POPULATION_MIN), JSON.stringify(sterlings));
});

Deno.test("a place kept for its reach leaves a covered city's name, or a country's, as it was", () => {
  const c = catalog();
  // Chicago has a district named Ashburn: left out, so Ashburn is the covered town in Virginia.
  assert.equal(checkCoverage(c, { city: "Ashburn" }).location?.id, "iad");
  assert.deepEqual(c.places.named("ashburn").length, 1);
  // Us is a village near Paris: left out, so "US" is the country.
  assert.deepEqual(c.places.named("us"), []);
  assert.equal(checkCoverage(c, { city: "US" }).match, "country");
  // Each covered city's gazetteer row is still the most populous of its name within reach.
  assert.equal(c.coverage.twins.get("iad")?.population, 43_511);
  assert.equal(c.coverage.twins.get("lon")?.name, "London");
});
