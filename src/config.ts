/**
 * @module
 * Environment → frozen {@linkcode Config}. Parsed once at start-up so that bad
 * configuration fails with one clear line instead of at the first request.
 */

/**
 * Requests per minute, per client address unless marked "all callers together";
 * `0` switches a limit off.
 */
interface RateLimits {
  readonly register: number;
  /** All callers together, on registrations that are about to be stored. */
  readonly registerGlobal: number;
  readonly token: number;
  readonly revoke: number;
  readonly submit: number;
  /** All callers together, on lead and quote submissions that are about to be stored. */
  readonly submitGlobal: number;
  /** Requests to the MCP endpoint. */
  readonly mcp: number;
  /** Estimates: `GET /api/v1/estimate` and the MCP tool `estimate_quote` together. */
  readonly estimate: number;
  /** Staff console passkey ceremonies (sign-in and enrolment) begun and finished. */
  readonly staff: number;
  /**
   * All callers together, on staff passkey ceremonies begun (each stores a challenge; an
   * enrolment's checks an invite or the enrolment code), whatever they answer.
   */
  readonly staffGlobal: number;
}

export interface Config {
  readonly port: number;
  readonly hostname: string;
  /** Issuer, protected resource identifier and token audience. An origin, no trailing slash. */
  readonly baseUrl: string;
  /** A file path, `:memory:`, a KV Connect URL, or `undefined` for the Deno default. */
  readonly kvPath: string | undefined;
  readonly rateLimits: RateLimits;
  /** Requests handled at once; past it, `503` with `Retry-After`. `0` switches the cap off. */
  readonly maxInFlight: number;
  /** Extra browser origins allowed to call the MCP endpoint, beside the service's own. */
  readonly allowedOrigins: readonly string[];
  /** When true the client address is the last `X-Forwarded-For` entry. */
  readonly trustProxy: boolean;
  /** Where review notifications are POSTed; unset: they are only logged (request id only). */
  readonly reviewWebhookUrl: string | undefined;
  /** Signs webhook bodies with HMAC-SHA256 when set. */
  readonly reviewWebhookSecret: string | undefined;
  /**
   * `REVIEW_WEBHOOK_TIMELINES`: the Deno Deploy timelines whose notices are POSTed, `all` or
   * `production` (the default: elsewhere they are logged; ops/platform.ts).
   */
  readonly reviewWebhookTimelines: "production" | "all";
  /**
   * Decided submissions are erased this many days after their decision; `undefined`
   * (the default) keeps them until staff erase or purge them.
   */
  readonly submissionRetentionDays: number | undefined;
  /**
   * Submissions still pending are erased this many days after they were made; `undefined`
   * (the default) keeps them until staff decide, erase or purge them.
   */
  readonly pendingRetentionDays: number | undefined;
  /** Hours within which a submission is expected to be reviewed, stated in every answer. */
  readonly reviewHours: ReviewHours;
  /** `STAFF_CONSOLE`: false serves no `/staff/` path at all. */
  readonly staffConsole: boolean;
  /**
   * `STAFF_ENROL_CODE`: a one-time code that enrols a staff member where no shell can print
   * an invite (Deno Deploy). Spent by its first use, whatever the variable still says.
   */
  readonly staffEnrolCode: string | undefined;
}

/** `REVIEW_HOURS` and `REVIEW_HOURS_EMERGENCY`: `urgency: emergency` gets the second. */
interface ReviewHours {
  readonly standard: number;
  readonly emergency: number;
}

/** Thrown for invalid configuration; `message` is the one line printed at start-up. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Defaults for `RATE_LIMIT_*`, per minute per client address. */
export const DEFAULT_RATE_LIMITS: RateLimits = Object.freeze({
  register: 10,
  registerGlobal: 60,
  token: 60,
  revoke: 60,
  submit: 20,
  submitGlobal: 120,
  mcp: 300,
  // One a second on average: a person pricing a job on the page makes a few, an agent
  // comparing sites and services a few dozen; a flood from one address stops after 60.
  estimate: 60,
  // A person signing in makes two requests (the challenge, the answer); ten a minute lets a
  // few people behind one address in and stops guessing at once.
  staff: 10,
  // Staff are a handful and a ceremony begins once per sign-in or enrolment. The cap bounds
  // the guesses at an enrolment code or invite (30 a minute) and the live challenges (a
  // challenge lives 5 minutes: at most 6 windows' worth, 180 rows of about 100 bytes).
  staffGlobal: 30,
});

/**
 * Default `MAX_IN_FLIGHT`. Each request in flight may hold a body of up to 64 KiB, so
 * a full house holds at most about 16 MiB of bodies.
 */
const DEFAULT_MAX_IN_FLIGHT = 256;

/** Defaults of `REVIEW_HOURS` and `REVIEW_HOURS_EMERGENCY`. */
export const DEFAULT_REVIEW_HOURS: ReviewHours = Object.freeze({ standard: 24, emergency: 2 });

/** The longest review time either variable takes: 30 days. */
const MAX_REVIEW_HOURS = 720;

/** `RATE_LIMIT_*` variable of each limit. */
const _RATE_LIMIT_ENV: Readonly<Record<keyof RateLimits, string>> = {
  register: "RATE_LIMIT_REGISTER",
  registerGlobal: "RATE_LIMIT_REGISTER_GLOBAL",
  token: "RATE_LIMIT_TOKEN",
  revoke: "RATE_LIMIT_REVOKE",
  submit: "RATE_LIMIT_SUBMIT",
  submitGlobal: "RATE_LIMIT_SUBMIT_GLOBAL",
  mcp: "RATE_LIMIT_MCP",
  estimate: "RATE_LIMIT_ESTIMATE",
  staff: "RATE_LIMIT_STAFF",
  staffGlobal: "RATE_LIMIT_STAFF_GLOBAL",
};

/**
 * Every environment variable the service reads. `deno task start` grants exactly these,
 * plus `DENO_KV_ACCESS_TOKEN`, which `Deno.openKv` reads for a KV Connect URL.
 */
export const ENV_NAMES = [
  "PORT",
  "HOSTNAME",
  "BASE_URL",
  "KV_PATH",
  "RATE_LIMIT_REGISTER",
  "RATE_LIMIT_REGISTER_GLOBAL",
  "RATE_LIMIT_TOKEN",
  "RATE_LIMIT_REVOKE",
  "RATE_LIMIT_SUBMIT",
  "RATE_LIMIT_SUBMIT_GLOBAL",
  "RATE_LIMIT_MCP",
  "RATE_LIMIT_ESTIMATE",
  "RATE_LIMIT_STAFF",
  "RATE_LIMIT_STAFF_GLOBAL",
  "MAX_IN_FLIGHT",
  "ALLOWED_ORIGINS",
  "TRUST_PROXY",
  "REVIEW_WEBHOOK_URL",
  "REVIEW_WEBHOOK_SECRET",
  "REVIEW_WEBHOOK_TIMELINES",
  "SUBMISSION_RETENTION_DAYS",
  "PENDING_RETENTION_DAYS",
  "REVIEW_HOURS",
  "REVIEW_HOURS_EMERGENCY",
  "STAFF_CONSOLE",
  "STAFF_ENROL_CODE",
] as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Builds the configuration from an environment map such as `Deno.env.toObject()`. */
export function loadConfig(env: Env): Config {
  const port = _integer(env, "PORT", 8000, 0, 65535);
  const hostname = _value(env, "HOSTNAME") ?? "0.0.0.0";
  const baseUrl = _origin("BASE_URL", _value(env, "BASE_URL") ?? `http://localhost:${port}`);
  const kvPath = _value(env, "KV_PATH");
  const rateLimits = { ...DEFAULT_RATE_LIMITS };
  for (const [key, name] of Object.entries(_RATE_LIMIT_ENV) as [keyof RateLimits, string][]) {
    rateLimits[key] = _integer(env, name, DEFAULT_RATE_LIMITS[key], 0, 1_000_000);
  }
  Object.freeze(rateLimits);
  const maxInFlight = _integer(env, "MAX_IN_FLIGHT", DEFAULT_MAX_IN_FLIGHT, 0, 1_000_000);
  const allowedOrigins = Object.freeze(
    (_value(env, "ALLOWED_ORIGINS") ?? "").split(",").map((s) => s.trim()).filter(Boolean)
      .map((o) => _origin("ALLOWED_ORIGINS", o)),
  );
  const trustProxy = _boolean(env, "TRUST_PROXY");
  const reviewWebhookUrl = _url(env, "REVIEW_WEBHOOK_URL");
  const reviewWebhookSecret = _value(env, "REVIEW_WEBHOOK_SECRET");
  if (reviewWebhookSecret !== undefined && reviewWebhookSecret.length < 16) {
    throw new ConfigError("REVIEW_WEBHOOK_SECRET must be at least 16 characters");
  }
  const submissionRetentionDays = _days(env, "SUBMISSION_RETENTION_DAYS");
  const reviewHours = _reviewHours(env);
  return Object.freeze({
    port,
    hostname,
    baseUrl,
    kvPath,
    rateLimits,
    maxInFlight,
    allowedOrigins,
    trustProxy,
    reviewWebhookUrl,
    reviewWebhookSecret,
    reviewWebhookTimelines: _webhookTimelines(env),
    submissionRetentionDays,
    pendingRetentionDays: _pendingRetention(env, reviewHours),
    reviewHours,
    staffConsole: _value(env, "STAFF_CONSOLE") === undefined || _boolean(env, "STAFF_CONSOLE"),
    staffEnrolCode: _enrolCode(env),
  });
}

/** `REVIEW_WEBHOOK_TIMELINES`: production (the default) or all. */
function _webhookTimelines(env: Env): "production" | "all" {
  const timelines = _value(env, "REVIEW_WEBHOOK_TIMELINES") ?? "production";
  if (timelines === "production" || timelines === "all") return timelines;
  throw new ConfigError(`REVIEW_WEBHOOK_TIMELINES must be production or all; got "${timelines}"`);
}

/** A number of days from 1 to 100 years, or undefined when the variable is unset. */
function _days(env: Env, name: string): number | undefined {
  return _value(env, name) === undefined ? undefined : _integer(env, name, 0, 1, 36_500);
}

/**
 * `PENDING_RETENTION_DAYS`: longer than `REVIEW_HOURS`, so no submission is erased before
 * the review every answer promises it.
 */
function _pendingRetention(env: Env, hours: ReviewHours): number | undefined {
  const days = _days(env, "PENDING_RETENTION_DAYS");
  if (days !== undefined && days * 24 <= hours.standard) {
    throw new ConfigError(
      `PENDING_RETENTION_DAYS must be longer than REVIEW_HOURS (${hours.standard} h), got "${days}"`,
    );
  }
  return days;
}

/** Shortest `STAFF_ENROL_CODE`: it is a credential, guessed only through a rate limit. */
const MIN_ENROL_CODE = 24;
/** Least strength of `STAFF_ENROL_CODE`, in bits as {@linkcode _codeBits} judges them. */
const MIN_ENROL_CODE_BITS = 100;
/** How {@linkcode _codeBits} judges, as the refusal says it. */
const _CODE_RULE = "judged as a random string (each character is worth log2 of the alphabet its " +
  "classes span: a-z 26, A-Z 26, 0-9 10, others 33; a repeat, a step such as ab or 98, or the " +
  "end of three characters seen before is worth nothing)";

function _enrolCode(env: Env): string | undefined {
  const code = _value(env, "STAFF_ENROL_CODE");
  if (code === undefined) return undefined;
  if (code.length < MIN_ENROL_CODE) {
    throw new ConfigError(
      `STAFF_ENROL_CODE must be at least ${MIN_ENROL_CODE} characters (try: openssl rand -base64 24)`,
    );
  }
  const bits = _codeBits(code);
  if (bits < MIN_ENROL_CODE_BITS) {
    throw new ConfigError(
      `STAFF_ENROL_CODE is too weak: about ${bits} bits where ${MIN_ENROL_CODE_BITS} are needed, ` +
        `${_CODE_RULE}; generate one: openssl rand -base64 24`,
    );
  }
  return code;
}

const _CLASSES: readonly [RegExp, number][] = [
  [/[a-z]/, 26],
  [/[A-Z]/, 26],
  [/[0-9]/, 10],
  [/[^a-zA-Z0-9]/, 33],
];

/**
 * The strength of a code judged as the random secret it should be: the characters that
 * count, each worth log2 of the alphabet the code's character classes span. A character
 * does not count when it repeats the one before or is next to it (`ab`, `98`: a run), nor
 * when it ends three characters that appeared together before (a repeated word). So
 * `aaaa…`, `abcd…` and `Password1Password1…` are refused, and `openssl rand -base64 24`
 * (32 characters) judges about 200 bits, never under 140 in 20,000 draws. A phrase of
 * distinct words passes: no rule of this size tells it from a random string.
 */
function _codeBits(code: string): number {
  const chars = [...code];
  const alphabet = _CLASSES.reduce((n, [re, size]) => n + (re.test(code) ? size : 0), 0);
  const chunks = new Set<string>();
  let counted = 0;
  chars.forEach((c, i) => {
    const step = i ? Math.abs(c.codePointAt(0)! - chars[i - 1]!.codePointAt(0)!) : 2;
    const chunk = i >= 2 ? chars.slice(i - 2, i + 1).join("") : undefined;
    const seen = chunk !== undefined && chunks.has(chunk);
    if (chunk !== undefined) chunks.add(chunk);
    if (step > 1 && !seen) counted++;
  });
  return Math.floor(counted * Math.log2(alphabet));
}

/** The review times; an emergency's is at most the standard one (by default, 2 h or less). */
function _reviewHours(env: Env): ReviewHours {
  const defaults = DEFAULT_REVIEW_HOURS;
  const standard = _integer(env, "REVIEW_HOURS", defaults.standard, 1, MAX_REVIEW_HOURS);
  const fallback = Math.min(defaults.emergency, standard);
  const emergency = _integer(env, "REVIEW_HOURS_EMERGENCY", fallback, 1, MAX_REVIEW_HOURS);
  if (emergency > standard) {
    throw new ConfigError(
      `REVIEW_HOURS_EMERGENCY must be at most REVIEW_HOURS (${standard}), got "${emergency}"`,
    );
  }
  return Object.freeze({ standard, emergency });
}

function _value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === "" ? undefined : raw;
}

function _integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = _value(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function _url(env: Env, name: string): string | undefined {
  const raw = _value(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must use http or https, got "${raw}"`);
  }
  return url.href;
}

function _boolean(env: Env, name: string): boolean {
  const raw = _value(env, name)?.toLowerCase();
  if (raw === undefined || ["0", "false", "no", "off"].includes(raw)) return false;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  throw new ConfigError(`${name} must be one of true/false, 1/0, yes/no, on/off; got "${raw}"`);
}

/**
 * The base URL must be a bare origin: RFC 8414 §3 places the metadata of an issuer
 * with a path under a path-suffixed well-known URL, which this service does not serve.
 */
function _origin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must use http or https, got "${raw}"`);
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      `${name} must be an origin such as https://api.example.com (no path, query or credentials), got "${raw}"`,
    );
  }
  return url.origin;
}
