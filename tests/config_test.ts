import assert from "node:assert/strict";
import {
  ConfigError,
  DEFAULT_RATE_LIMITS,
  DEFAULT_REVIEW_HOURS,
  loadConfig,
} from "../src/config.ts";

Deno.test("loadConfig applies the documented defaults", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.hostname, "0.0.0.0");
  assert.equal(c.baseUrl, "http://localhost:8000");
  assert.equal(c.kvPath, undefined);
  assert.deepEqual(c.rateLimits, DEFAULT_RATE_LIMITS);
  assert.deepEqual(c.allowedOrigins, []);
  assert.equal(c.trustProxy, false);
  assert.deepEqual(c.reviewHours, { standard: 24, emergency: 2 });
  assert.deepEqual(c.reviewHours, DEFAULT_REVIEW_HOURS);
  assert.equal(c.submissionRetentionDays, undefined);
  assert.equal(c.pendingRetentionDays, undefined, "pending submissions are kept by default");
  assert.ok(Object.isFrozen(c));
  assert.ok(Object.isFrozen(c.reviewHours));
});

Deno.test("loadConfig derives BASE_URL from PORT and normalises a trailing slash", () => {
  assert.equal(loadConfig({ PORT: "9001" }).baseUrl, "http://localhost:9001");
  assert.equal(
    loadConfig({ BASE_URL: "https://API.example.com/" }).baseUrl,
    "https://api.example.com",
  );
});

Deno.test("loadConfig reads every variable", () => {
  const c = loadConfig({
    PORT: "0",
    HOSTNAME: "127.0.0.1",
    BASE_URL: "https://api.example.com",
    KV_PATH: ":memory:",
    RATE_LIMIT_REGISTER: "0",
    RATE_LIMIT_TOKEN: "5",
    RATE_LIMIT_REVOKE: "6",
    RATE_LIMIT_SUBMIT: "7",
    RATE_LIMIT_SUBMIT_GLOBAL: "8",
    RATE_LIMIT_REGISTER_GLOBAL: "9",
    RATE_LIMIT_MCP: "10",
    RATE_LIMIT_ESTIMATE: "11",
    RATE_LIMIT_STAFF: "12",
    RATE_LIMIT_STAFF_GLOBAL: "13",
    ALLOWED_ORIGINS: "https://a.example, https://b.example:8443",
    TRUST_PROXY: "true",
    REVIEW_WEBHOOK_URL: "https://hooks.example.com/review",
    REVIEW_WEBHOOK_SECRET: "0123456789abcdef",
    REVIEW_HOURS: "48",
    REVIEW_HOURS_EMERGENCY: "4",
    STAFF_CONSOLE: "off",
    STAFF_ENROL_CODE: "a-code-of-twenty-four-ch",
    SUBMISSION_RETENTION_DAYS: "365",
    PENDING_RETENTION_DAYS: "3",
  });
  assert.equal(c.submissionRetentionDays, 365);
  assert.equal(c.pendingRetentionDays, 3);
  assert.equal(c.port, 0);
  assert.equal(c.hostname, "127.0.0.1");
  assert.equal(c.kvPath, ":memory:");
  assert.deepEqual(c.rateLimits, {
    register: 0,
    registerGlobal: 9,
    token: 5,
    revoke: 6,
    submit: 7,
    submitGlobal: 8,
    mcp: 10,
    estimate: 11,
    staff: 12,
    staffGlobal: 13,
  });
  assert.equal(c.staffConsole, false);
  assert.equal(c.staffEnrolCode, "a-code-of-twenty-four-ch");
  assert.equal(loadConfig({}).staffConsole, true);
  assert.throws(() => loadConfig({ STAFF_ENROL_CODE: "short" }), /at least 24 characters/);
  assert.deepEqual(c.allowedOrigins, ["https://a.example", "https://b.example:8443"]);
  assert.equal(c.trustProxy, true);
  assert.equal(c.reviewWebhookUrl, "https://hooks.example.com/review");
  assert.equal(c.reviewWebhookSecret, "0123456789abcdef");
  assert.deepEqual(c.reviewHours, { standard: 48, emergency: 4 });
});

Deno.test("loadConfig keeps an emergency's review time at most the standard one", () => {
  // The emergency default (2 h) follows a shorter standard time down, and equal is allowed.
  assert.deepEqual(loadConfig({ REVIEW_HOURS: "1" }).reviewHours, { standard: 1, emergency: 1 });
  assert.deepEqual(
    loadConfig({ REVIEW_HOURS: "6", REVIEW_HOURS_EMERGENCY: "6" }).reviewHours,
    { standard: 6, emergency: 6 },
  );
  assert.deepEqual(loadConfig({ REVIEW_HOURS_EMERGENCY: "1" }).reviewHours, {
    standard: 24,
    emergency: 1,
  });
});

Deno.test("loadConfig rejects bad values with one line naming the variable", async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "http" }, /^PORT must be a whole number/],
    [{ PORT: "70000" }, /^PORT must be a whole number from 0 to 65535/],
    [{ RATE_LIMIT_TOKEN: "-1" }, /^RATE_LIMIT_TOKEN/],
    [{ RATE_LIMIT_SUBMIT: "1.5" }, /^RATE_LIMIT_SUBMIT/],
    [{ RATE_LIMIT_ESTIMATE: "sixty" }, /^RATE_LIMIT_ESTIMATE must be a whole number/],
    [{ BASE_URL: "api.example.com" }, /^BASE_URL must be an absolute http\(s\) URL/],
    [{ BASE_URL: "ftp://api.example.com" }, /^BASE_URL must use http or https/],
    [{ BASE_URL: "https://api.example.com/v1" }, /^BASE_URL must be an origin/],
    [{ BASE_URL: "https://api.example.com/?x=1" }, /^BASE_URL must be an origin/],
    [{ ALLOWED_ORIGINS: "https://ok.example,not a url" }, /^ALLOWED_ORIGINS/],
    [{ TRUST_PROXY: "maybe" }, /^TRUST_PROXY must be one of/],
    [{ REVIEW_WEBHOOK_URL: "hooks.example.com" }, /^REVIEW_WEBHOOK_URL must be an absolute/],
    [{ REVIEW_WEBHOOK_URL: "ftp://hooks.example.com" }, /^REVIEW_WEBHOOK_URL must use http/],
    [{ REVIEW_WEBHOOK_SECRET: "short" }, /^REVIEW_WEBHOOK_SECRET must be at least 16/],
    [{ REVIEW_HOURS: "0" }, /^REVIEW_HOURS must be a whole number from 1 to 720/],
    [{ REVIEW_HOURS: "721" }, /^REVIEW_HOURS must be a whole number from 1 to 720/],
    [{ REVIEW_HOURS: "1.5" }, /^REVIEW_HOURS must be a whole number/],
    [{ REVIEW_HOURS_EMERGENCY: "soon" }, /^REVIEW_HOURS_EMERGENCY must be a whole number/],
    [
      { REVIEW_HOURS_EMERGENCY: "30" },
      /^REVIEW_HOURS_EMERGENCY must be at most REVIEW_HOURS \(24\)/,
    ],
    [
      { REVIEW_HOURS: "4", REVIEW_HOURS_EMERGENCY: "8" },
      /^REVIEW_HOURS_EMERGENCY must be at most REVIEW_HOURS \(4\), got "8"/,
    ],
    [{ PENDING_RETENTION_DAYS: "0" }, /^PENDING_RETENTION_DAYS must be a whole number from 1/],
    [{ PENDING_RETENTION_DAYS: "30d" }, /^PENDING_RETENTION_DAYS must be a whole number/],
    [{ PENDING_RETENTION_DAYS: "36501" }, /^PENDING_RETENTION_DAYS must be a whole number/],
    // A pending submission must outlive the review time every answer promises it.
    [
      { PENDING_RETENTION_DAYS: "1" },
      /^PENDING_RETENTION_DAYS must be longer than REVIEW_HOURS \(24 h\), got "1"/,
    ],
    [
      { PENDING_RETENTION_DAYS: "3", REVIEW_HOURS: "72" },
      /^PENDING_RETENTION_DAYS must be longer than REVIEW_HOURS \(72 h\), got "3"/,
    ],
  ];
  for (const [env, message] of cases) {
    await t.step(JSON.stringify(env), () => {
      assert.throws(() => loadConfig(env), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, message);
        assert.ok(!err.message.includes("\n"));
        return true;
      });
    });
  }
});

Deno.test("STAFF_ENROL_CODE must be as strong as a random string of 100 bits", async (t) => {
  await t.step("repeats, runs and a repeated word are refused, with the rule and a command", () => {
    const weak = [
      "aaaaaaaaaaaaaaaaaaaaaaaa", // the finding: 24 characters, about 4 bits
      "abcdefghijklmnopqrstuvwxyz",
      "9876543210zyxwvutsrqponmlk",
      "Password1Password1Password1Password1",
      "qwertyuiopasdfghjklzxcvbnm", // 26 distinct letters: 94 bits
      "0000-1111-2222-3333-4444-5555",
    ];
    for (const code of weak) {
      assert.throws(() => loadConfig({ STAFF_ENROL_CODE: code }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(
          err.message,
          /^STAFF_ENROL_CODE is too weak: about \d+ bits where 100 are needed, judged as a random string \(.*a-z 26, A-Z 26, 0-9 10, others 33.*\); generate one: openssl rand -base64 24$/,
        );
        assert.ok(!err.message.includes(code), "the line never holds the code");
        return true;
      }, code);
    }
  });
  await t.step("what openssl rand -base64 24 prints always passes", () => {
    for (let i = 0; i < 2000; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array(24));
      const code = btoa(String.fromCharCode(...bytes));
      assert.equal(loadConfig({ STAFF_ENROL_CODE: code }).staffEnrolCode, code);
    }
  });
});
