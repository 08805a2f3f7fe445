import assert from "node:assert/strict";
import { isIP } from "node:net";
import fc from "npm:fast-check@4.10.2";
import { addressBucket, parseAddress } from "../../src/http/client_address.ts";
import { createApp } from "../_helpers.ts";

Deno.test("addressBucket: IPv4 counts alone, IPv6 per /64, ports and brackets are stripped", async (t) => {
  const cases: [string, string | undefined][] = [
    ["192.0.2.7", "192.0.2.7"],
    ["203.0.113.7:40001", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["[2001:0db8:0001:0002::1]", "2001:db8:1:2::/64"],
    ["[2001:db8:1:2::1]:443", "2001:db8:1:2::/64"],
    ["2001:DB8::1", "2001:db8:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ['"[2001:db8::1]:80"', "2001:db8:0:0::/64"],
  ];
  for (const [input, bucket] of cases) {
    await t.step(input, () => assert.equal(addressBucket(input), bucket));
  }
});

Deno.test("addressBucket: an IPv6 address that carries an IPv4 address counts as that IPv4 address", async (t) => {
  const cases: [string, string][] = [
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::ffff:c000:201", "192.0.2.1"], // hex IPv4-mapped, once one shared 0:0:0:0::/64 bucket
    ["::FFFF:C000:0201", "192.0.2.1"],
    ["::ffff:0:c000:201", "192.0.2.1"], // SIIT IPv4-translated
    ["64:ff9b::192.0.2.1", "192.0.2.1"], // NAT64 well-known prefix
    ["64:ff9b::c633:6407", "198.51.100.7"],
    ["2002:c000:201::1", "192.0.2.1"], // 6to4: every /64 of the site
    ["2002:c000:201:ffff::1", "192.0.2.1"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"], // Teredo: the client's public IPv4, inverted
  ];
  for (const [input, bucket] of cases) {
    await t.step(input, () => assert.equal(addressBucket(input), bucket));
  }
  await t.step("two NAT64 clients are two buckets", () => {
    assert.notEqual(addressBucket("64:ff9b::192.0.2.1"), addressBucket("64:ff9b::192.0.2.2"));
  });
});

Deno.test("addressBucket: dotted IPv4 text is its bucket exactly when its parsed bytes say so", () => {
  // The fast path returns the (trimmed) text; the bytes are what it stands for.
  const texts = fc.tuple(
    fc.constantFrom("", " ", "\t"),
    fc.oneof(fc.ipV4(), fc.ipV4Extended()),
    fc.constantFrom("", " "),
  ).map(([before, ip, after]) => before + ip + after);
  fc.assert(
    fc.property(texts, (s) => {
      const bytes = parseAddress(s);
      assert.equal(addressBucket(s), bytes && [...bytes].join("."), s);
    }),
    { seed: 11, numRuns: 3000 },
  );
});

Deno.test("addressBucket: anything that is not an IP address is no bucket", async (t) => {
  for (
    const input of [
      "",
      "unknown",
      "_hidden",
      "example.com",
      "01.2.3.4",
      "256.1.1.1",
      "1.2.3",
      "1.2.3.4.5",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7:8::",
      "12345::1",
      "1.2.3.4::",
      "[1.2.3.4]",
      "g::1",
      "1".repeat(80),
    ]
  ) {
    await t.step(JSON.stringify(input.slice(0, 20)), () => {
      assert.equal(addressBucket(input), undefined);
    });
  }
});

Deno.test("parseAddress accepts exactly the addresses node:net isIP accepts (no port, no brackets)", () => {
  const chars = fc.constantFrom(..."0123456789abcdefABCDEF:.".split(""));
  const texts = fc.oneof(
    fc.string({ unit: chars, maxLength: 45 }),
    // Likely-valid shapes, so both branches are exercised.
    fc.ipV4(),
    fc.ipV6(),
    fc.tuple(fc.ipV6(), fc.constantFrom("", "%eth0", "%1")).map(([a, z]) => a + z),
  );
  fc.assert(
    fc.property(texts, (s) => {
      if (/^[0-9.]+:\d{1,5}$/.test(s)) return; // an IPv4 address with a port: ours only
      assert.equal(parseAddress(s) !== undefined, isIP(s) !== 0, s);
    }),
    { seed: 10, numRuns: 3000 },
  );
});

Deno.test("parseAddress reads every spelling of one IPv6 address as the same bytes", () => {
  const spellings = (words: number[]) => {
    const full = words.map((w) => w.toString(16).padStart(4, "0")).join(":");
    const short = words.map((w) => w.toString(16)).join(":");
    // Compress the longest run of zero words, as RFC 5952 writes it.
    let best = [-1, 0];
    for (let i = 0; i < 8; i++) {
      let n = 0;
      while (i + n < 8 && words[i + n] === 0) n++;
      if (n > best[1]!) best = [i, n];
    }
    const [at, n] = best as [number, number];
    const compressed = n >= 1
      ? `${words.slice(0, at).map((w) => w.toString(16)).join(":")}::${
        words.slice(at + n).map((w) => w.toString(16)).join(":")
      }`
      : short;
    return [full, full.toUpperCase(), short, compressed, `[${compressed}]:8080`];
  };
  const word = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
  fc.assert(
    fc.property(fc.array(word, { minLength: 8, maxLength: 8 }), (words) => {
      const expected = parseAddress(words.map((w) => w.toString(16)).join(":"));
      assert.ok(expected);
      for (const s of spellings(words)) assert.deepEqual(parseAddress(s), expected, s);
    }),
    { seed: 11, numRuns: 1000 },
  );
});

Deno.test("TRUST_PROXY: an X-Forwarded-For entry with a source port counts as its address", async (t) => {
  const register = (app: Awaited<ReturnType<typeof createApp>>, xff: string) =>
    app.request("/agent/identity", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": xff },
      body: '{"type":"anonymous"}',
      address: "10.0.0.1",
    });
  await t.step("every source port shares one budget", async () => {
    await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "2", TRUST_PROXY: "1" } });
    const statuses = [];
    for (const port of [40001, 40002, 40003]) {
      const res = await register(app, `203.0.113.7:${port}`);
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [201, 201, 429]);
  });
  await t.step("hex IPv4-mapped and NAT64 forms of one address share its budget", async () => {
    await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "2", TRUST_PROXY: "1" } });
    const statuses = [];
    for (const xff of ["192.0.2.1", "::ffff:c000:201", "64:ff9b::192.0.2.1"]) {
      const res = await register(app, xff);
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [201, 201, 429]);
    // ... and another NAT64 client is not locked out with it.
    const other = await register(app, "64:ff9b::192.0.2.2");
    assert.equal(other.status, 201);
    await other.body?.cancel();
  });
  await t.step("an entry that is not an IP address counts as the socket address", async () => {
    await using app = await createApp({ env: { RATE_LIMIT_REGISTER: "1", TRUST_PROXY: "1" } });
    const first = await register(app, "unknown");
    assert.equal(first.status, 201);
    await first.body?.cancel();
    const second = await register(app, "_hidden");
    assert.equal(second.status, 429, "both counted against 10.0.0.1");
    await second.body?.cancel();
  });
});
