/**
 * The facilities data (data/facilities.v1.json) and its index, as the site reader of issue 38
 * calls it: every entry lies within its location's radius, the loader refuses a bad entry by
 * name, and `find` reads "Equinix DC11", "Interxion AMS8" or "FR5" among a site's words.
 */

import assert from "node:assert/strict";
import { buildCatalog, PLACES_FILE } from "../../src/catalog/catalog.ts";
import type { FacilityMention } from "../../src/catalog/facilities.ts";
import { normalizeName } from "../../src/catalog/names.ts";
import { haversineKm, NEARBY_KM } from "../../src/catalog/places.ts";
import { catalog } from "../_helpers.ts";
import services from "../../data/services.v1.json" with { type: "json" };
import locations from "../../data/locations.v1.json" with { type: "json" };
import holidays from "../../data/holidays.v1.json" with { type: "json" };
import facilities from "../../data/facilities.v1.json" with { type: "json" };

const places = Deno.readFileSync(PLACES_FILE);

/** The words the site reader passes: a text's normalised words. */
const words = (text: string) => normalizeName(text).split(" ");

/** What `find` answers for a text, as `id [start, end) how`. */
function found(text: string): string[] {
  return catalog().facilityIndex.find(words(text)).map((m: FacilityMention) =>
    `${m.facility.id} [${m.start}, ${m.end}) ${m.how}`
  );
}

Deno.test("every facility lies within its location's coverage radius", () => {
  const byId = new Map(locations.locations.map((l) => [l.id, l]));
  const far = facilities.facilities.flatMap((f) => {
    const location = byId.get(f.location);
    assert.ok(location, `${f.id}: location ${f.location}`);
    const km = haversineKm(f, location);
    return km > NEARBY_KM ? [`${f.id}: ${km.toFixed(1)} km`] : [];
  });
  assert.deepEqual(far, []);
  assert.equal(catalog().facilities.length, facilities.facilities.length);
});

Deno.test("the facilities file is sorted by location, operator and code, ids derived from them", () => {
  const rest = (f: { operator: string; codes: string[]; name: string }) =>
    f.codes[0] ?? f.name.slice(f.operator.length).trim();
  const key = (f: (typeof facilities.facilities)[number]) => [f.location, f.operator, rest(f)];
  const list = facilities.facilities;
  for (let i = 1; i < list.length; i++) {
    const [a, b] = [key(list[i - 1]!), key(list[i]!)];
    const order = a.map((x, k) =>
      x.localeCompare(b[k]!, "en", { numeric: true, sensitivity: "base" })
    ).find((c) => c !== 0);
    assert.ok(order === -1, `${list[i - 1]!.id} before ${list[i]!.id}`);
  }
  for (const f of list) {
    const slug = (s: string) => normalizeName(s).replaceAll(" ", "-");
    assert.equal(f.id, `${f.location}-${slug(f.operator)}-${slug(rest(f))}`);
    assert.ok(f.name.startsWith(f.operator), `${f.id}: its name starts with its operator`);
  }
});

Deno.test("buildCatalog refuses a facility it cannot place, naming the entry", async (t) => {
  const build = (edit: (file: typeof facilities) => void) => () => {
    const file = structuredClone(facilities);
    edit(file);
    buildCatalog({ services, locations, places, holidays, facilities: file });
  };
  const dc11 = (file: typeof facilities) =>
    file.facilities.find((f) => f.id === "iad-equinix-dc11")!;
  await t.step("an unknown location", () => {
    assert.throws(
      build((file) => dc11(file).location = "bos"),
      /^Error: facilities\.v1\.json: iad-equinix-dc11 is served by unknown location bos$/,
    );
  });
  await t.step("beyond the radius of its location (CyrusOne Aurora, 52 km from Chicago)", () => {
    assert.throws(
      build((file) =>
        file.facilities.push({
          ...dc11(file),
          id: "chi-cyrusone-chi1",
          location: "chi",
          operator: "CyrusOne",
          codes: ["CHI1"],
          name: "CyrusOne Aurora I",
          address: "2905 Diehl Road, Aurora, IL 60502, United States",
          latitude: 41.8036,
          longitude: -88.2426,
        })
      ),
      /facilities\.v1\.json: chi-cyrusone-chi1 lies 51\.\d km from Chicago \(chi\), beyond the 40 km a location covers/,
    );
  });
  await t.step("a duplicate id", () => {
    assert.throws(
      build((file) => file.facilities.push({ ...dc11(file), codes: ["DC99"], name: "x" })),
      /facilities\.v1\.json: duplicate id iad-equinix-dc11/,
    );
  });
  await t.step("a code one operator gives two facilities, written either way", () => {
    assert.throws(
      build((file) => file.facilities.find((f) => f.id === "iad-equinix-dc6")!.codes = ["DC-11"]),
      /facilities\.v1\.json: Equinix code DC11 is both iad-equinix-dc6 and iad-equinix-dc11/,
    );
  });
  await t.step("an operator the file does not list", () => {
    assert.throws(
      build((file) => dc11(file).operator = "Equinox"),
      /facilities\.v1\.json: iad-equinix-dc11: operator Equinox is not in operators/,
    );
  });
  await t.step("a name of two facilities", () => {
    assert.throws(
      build((file) => dc11(file).aliases = ["KleyerHaus"]),
      /facilities\.v1\.json: "KleyerHaus" names both fra-equinix-fr5 and iad-equinix-dc11/,
    );
  });
  await t.step("a code without a letter or digit", () => {
    assert.throws(
      build((file) => dc11(file).codes = ["--"]),
      /facilities\.v1\.json: facilities\.\d+\.codes\.0: a letter or digit/,
    );
  });
});

Deno.test("find reads facilities as customers write them", async (t) => {
  const rows: [string, string[]][] = [
    ["Equinix DC11, Ashburn", ["iad-equinix-dc11 [0, 2) operator and code"]],
    ["Equinix FR5 Frankfurt", ["fra-equinix-fr5 [0, 2) operator and code"]],
    ["Interxion AMS8, Amsterdam", ["ams-digital-realty-ams8 [0, 2) operator and code"]],
    ["Digital Realty LHR20", ["lon-digital-realty-lhr20 [0, 3) operator and code"]],
    ["DLR FRA13", ["fra-digital-realty-fra13 [0, 2) operator and code"]],
    ["NTT Frankfurt 1", ["fra-ntt-frankfurt-1 [0, 3) operator and code"]],
    ["e-shelter Frankfurt 2", ["fra-ntt-frankfurt-2 [0, 4) operator and code"]],
    ["Telehouse North Two, London", ["lon-telehouse-north-two [0, 3) operator and code"]],
    // The data has no NTT site in Tokyo: the reader reads the town.
    ["NTT Tokyo 3", []],
    // A code split or hyphenated, in any case, with any punctuation.
    ["Equinix DC-11", ["iad-equinix-dc11 [0, 3) operator and code"]],
    ["equinix dc 11", ["iad-equinix-dc11 [0, 3) operator and code"]],
    ["EQUINIX, dc11!!", ["iad-equinix-dc11 [0, 2) operator and code"]],
    ["(equinix) « DC11 »", ["iad-equinix-dc11 [0, 2) operator and code"]],
    // A code alone, only when it looks like one; shared codes name every facility.
    ["FR5", ["fra-equinix-fr5 [0, 1) code"]],
    ["fr5", ["fra-equinix-fr5 [0, 1) code"]],
    ["AMS8", ["ams-digital-realty-ams8 [0, 1) code"]],
    ["LHR20, Docklands", ["lon-digital-realty-lhr20 [0, 1) code"]],
    ["dc 11", []],
    ["3", []],
    ["North", []],
    ["Equinix", []],
    ["Digital Realty", []],
    [
      "SV1",
      [
        "sjc-cologix-sv1 [0, 1) code",
        "sjc-coresite-sv1 [0, 1) code",
        "sjc-equinix-sv1 [0, 1) code",
        "sjc-ntt-sv1 [0, 1) code",
      ],
    ],
    ["AMS1", ["ams-digital-realty-ams1 [0, 1) code", "ams-iron-mountain-ams-1 [0, 1) code"]],
    // With its operator, a shared code is that operator's only.
    ["Equinix SV1, San Jose", ["sjc-equinix-sv1 [0, 2) operator and code"]],
    // A code of the wrong city is still found: the reader decides the conflict.
    ["Equinix FR5 London", ["fra-equinix-fr5 [0, 2) operator and code"]],
    // Names and aliases as phrases.
    ["KleyerHaus", ["fra-equinix-fr5 [0, 1) name"]],
    ["Telehouse Paris 2 Voltaire", ["par-telehouse-th2 [0, 4) name"]],
    ["RagingWire VA1, Ashburn", ["iad-ntt-va1 [0, 2) operator and code"]],
    // Two facilities in one text, longest first.
    ["Equinix LD8 or Telehouse North Two", [
      "lon-telehouse-north-two [3, 6) operator and code",
      "lon-equinix-ld8 [0, 2) operator and code",
    ]],
    // One facility written twice is mentioned once, by its longest span.
    ["FR5 = Equinix FR5", ["fra-equinix-fr5 [1, 3) operator and code"]],
  ];
  for (const [text, expected] of rows) {
    await t.step(text, () => assert.deepEqual(found(text), expected));
  }
});

Deno.test("find picks DC11 out of 200 random words", () => {
  let seed = 38;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () =>
    random() < 0.2
      ? String(Math.floor(random() * 100_000))
      : Array.from({ length: 2 + Math.floor(random() * 8) }, () =>
        "abcdefghijklmnopqrstuvwxyz"[Math.floor(random() * 26)]).join("");
  const text = Array.from({ length: 200 }, word);
  text.splice(137, 0, "dc11");
  assert.deepEqual(
    catalog().facilityIndex.find(text).map((m) => [m.facility.id, m.start, m.how]),
    [["iad-equinix-dc11", 137, "code"]],
  );
});

Deno.test("find costs a few comparisons a word, even on a hostile text", () => {
  const index = catalog().facilityIndex;
  // No first word leads to more than a handful of phrases (Digital Realty's "fra" codes).
  assert.ok(index.widest <= 20, `${index.widest}`);
  // 200 characters of operator names and code prefixes, each position a look-up.
  for (const unit of ["interxion fra ", "equinix dc ", "sv1 ", "ntt global data centers "]) {
    const mentions = index.find(words(unit.repeat(50).slice(0, 200)));
    assert.ok(mentions.length <= 4, `${unit}: ${mentions.length}`);
  }
});

Deno.test("operatorAt spans an operator's name so the reader never reads it as a town", () => {
  const index = catalog().facilityIndex;
  const at = (text: string, i: number) => index.operatorAt(words(text), i);
  assert.equal(at("Equinix Ashburn", 0), 1);
  assert.equal(at("Digital Realty LHR20", 0), 2);
  assert.equal(at("NTT Global Data Centers Tokyo 3", 0), 4);
  assert.equal(at("ashburn equinix", 1), 1);
  assert.equal(at("Realty", 0), 0);
  assert.equal(at("Ashburn", 0), 0);
  assert.equal(at("Equinix", 5), 0);
});
