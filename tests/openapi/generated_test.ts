/**
 * @module
 * Requests generated from the OpenAPI document's own schemas (fast-check, fixed seed, a
 * bounded number of cases per operation), sent in-process to every operation:
 *
 * - a valid request (parameters, headers and body as the document describes them, with its
 *   security) gets a documented status, never a 5xx, and a body that validates against the
 *   documented schema of that status and content type (server-sent events event by event,
 *   their `data` against its `contentSchema`), with documented headers as documented;
 * - a valid request is refused (400) only for a rule no JSON Schema states, each listed in
 *   {@linkcode BEYOND_SCHEMA} and named in the answer's `issues`;
 * - a request made invalid in one place (a parameter, a header, a body member, the media
 *   type, a body that is not JSON, a `Content-Encoding`, the credentials) is refused with a
 *   documented 4xx, its body as documented;
 * - every operation answers at least one generated valid request with a 2xx.
 *
 * What the generator produces is checked against the document first (Ajv), so a slip of
 * the generator fails as such. About 2,200 requests, in a second or two. `FC_SEED` and
 * `FC_SCALE` (a multiplier of the cases) explore further by hand; CI runs the fixed seed.
 */

import assert from "node:assert/strict";
import fc from "npm:fast-check@4.10.2";
import { Ajv2020 } from "npm:ajv@8.20.0/dist/2020.js";
import addFormats from "npm:ajv-formats@3.0.1";
import { basic, createApp, issueToken, post, registerClient, type TestApp } from "../_helpers.ts";
import { QUOTE, RATE_LIMITS_OFF } from "../_fixtures.ts";
import { buildRoutes } from "../../src/routes.ts";
import {
  deref,
  invalidValue,
  type Resolve,
  type Schema,
  validValue,
  type Wire,
} from "./_schema_data.ts";

const SEED = Number(Deno.env.get("FC_SEED") || 39);
const SCALE = Number(Deno.env.get("FC_SCALE") || 1);
const VALID_RUNS = Math.ceil(60 * SCALE);
const INVALID_RUNS = Math.ceil(40 * SCALE);

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  allowEmptyValue?: boolean;
  schema: Schema;
  example?: unknown;
}
interface Media {
  schema: Schema;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  method: string;
  path: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, Json> }>;
  security?: Record<string, string[]>[];
}

/** A request as sent, and, for an invalid one, what was made invalid. */
interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  invalid?: string;
}

/** The document, its schemas compiled, and what a request needs (credentials, a request id). */
interface World {
  app: TestApp;
  doc: Json & { paths: Record<string, Record<string, Json>> };
  ajv: Ajv2020;
  resolve: Resolve;
  bearer: string;
  basic: string;
  requestId: string;
}

const METHODS = ["get", "put", "post", "delete", "patch"];

Deno.test("requests generated from the OpenAPI document get documented answers", async (t) => {
  await using app = await createApp({ env: RATE_LIMITS_OFF });
  const world = await _world(app);
  const operations = Object.entries(world.doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({
      ...(op as unknown as Operation),
      method: method.toUpperCase(),
      path,
    }))
  );
  assert.equal(operations.length, buildRoutes(app.config, app.catalog).length);
  for (const op of operations) {
    const name = `${op.method} ${op.path}`;
    const statuses = new Map<number, number>();
    await t.step(`${name}: valid requests get a documented status and body, no 5xx`, async () => {
      await fc.assert(
        fc.asyncProperty(_validRequest(world, op), async (sent) => {
          const res = await _send(world.app, sent);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          await _checkAnswer(world, op, sent, res);
        }),
        { seed: SEED, numRuns: VALID_RUNS },
      );
      const ok = [...statuses.keys()].filter((s) => s < 300);
      assert.ok(ok.length > 0, `${name}: no generated request succeeded: ${_tally(statuses)}`);
    });
    const invalid = _invalidRequest(world, op);
    if (!invalid) continue;
    await t.step(`${name}: requests invalid in one place get a documented 4xx`, async () => {
      await fc.assert(
        fc.asyncProperty(invalid, async (sent) => {
          await _checkAnswer(world, op, sent, await _send(world.app, sent));
        }),
        { seed: SEED, numRuns: INVALID_RUNS },
      );
    });
  }
});

async function _world(app: TestApp): Promise<World> {
  const doc = await (await app.request("/api/v1/openapi.json")).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, "doc");
  const resolve: Resolve = (ref) => {
    const found = ajv.getSchema(`doc${ref}`)?.schema;
    if (!found) throw new Error(`unresolved ${ref}`);
    return found as Schema;
  };
  const client = await registerClient(app);
  const submitted = await post(app, "/api/v1/quotes", QUOTE);
  return {
    app,
    doc,
    ajv,
    resolve,
    bearer: `Bearer ${await issueToken(app, client)}`,
    basic: basic(client.client_id, client.client_secret),
    requestId: String((await submitted.json()).request_id),
  };
}

function _tally(statuses: Map<number, number>): string {
  return [...statuses].sort().map(([s, n]) => `${s}×${n}`).join(" ");
}

async function _send(app: TestApp, sent: Sent): Promise<Response> {
  return await app.request(sent.url, {
    method: sent.method,
    headers: sent.headers,
    body: sent.body,
  });
}

// ---- Requests ----

/** The parts of a request, as values before they are written on the wire. */
interface Parts {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  /** The media type and the body's value. */
  body?: [string, unknown];
  /** A `Content-Encoding` the body is said to have (it is sent as it is). */
  encoding?: string;
  auth: boolean;
}

function _validParts(w: World, op: Operation): fc.Arbitrary<Parts> {
  const params = op.parameters ?? [];
  const part = (where: Parameter["in"]) =>
    fc.record(
      Object.fromEntries(
        params.filter((p) => p.in === where).map((p) => [p.name, _paramValue(w, p)]),
      ),
      {
        requiredKeys: params.filter((p) => p.in === where && p.required).map((p) => p.name),
      },
    );
  const content = Object.entries(op.requestBody?.content ?? {});
  const body = content.length
    ? fc.oneof(
      ...content.map(([type, media]) =>
        _bodyValue(w, media).map((v): [string, unknown] => [type, v])
      ),
    )
    : fc.constant(undefined);
  return fc.record({
    path: part("path"),
    query: part("query"),
    header: part("header"),
    body,
    auth: fc.constant(true),
  });
}

function _paramValue(w: World, p: Parameter): fc.Arbitrary<unknown> {
  const known = p.name === "request_id"
    ? [w.requestId]
    : p.example !== undefined
    ? [p.example]
    : [];
  if (p.allowEmptyValue) known.push("");
  const generated = validValue(p.schema, w.resolve);
  return known.length ? fc.oneof(fc.constantFrom(...known), generated) : generated;
}

function _bodyValue(w: World, media: Media): fc.Arbitrary<unknown> {
  const examples = Object.values(media.examples ?? {}).map((e) => e.value);
  const generated = validValue(media.schema, w.resolve);
  return examples.length ? fc.oneof(fc.constantFrom(...examples), generated) : generated;
}

function _validRequest(w: World, op: Operation): fc.Arbitrary<Sent> {
  return _validParts(w, op).map((parts) => {
    _assertValid(w, op, parts);
    return _written(w, op, parts);
  });
}

/** A valid request made invalid in exactly one place, or `undefined` when none can be. */
function _invalidRequest(w: World, op: Operation): fc.Arbitrary<Sent> | undefined {
  const changes: fc.Arbitrary<[Parts, string]>[] = [];
  const valid = _validParts(w, op);
  for (const p of op.parameters ?? []) {
    const where = p.in;
    if (p.required && where !== "path") {
      changes.push(valid.map((parts): [Parts, string] => {
        const { [p.name]: _, ...rest } = parts[where];
        return [{ ...parts, [where]: rest }, `without the required ${where} ${p.name}`];
      }));
    }
    const bad = invalidValue(p.schema, w.resolve, "text");
    if (!bad) continue;
    const sendable = ([, [value]]: [Parts, [unknown, string]]) =>
      _survivesHeaders(where, value) && !(p.allowEmptyValue && value === "");
    changes.push(
      fc.tuple(valid, bad).filter(sendable).map(([parts, [value, why]]): [Parts, string] => [
        { ...parts, [where]: { ...parts[where], [p.name]: value } },
        `${where} ${p.name} ${why}`,
      ]),
    );
  }
  for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
    const bad = invalidValue(media.schema, w.resolve, _wire(type));
    if (bad) {
      changes.push(
        fc.tuple(valid, bad).map(([parts, [value, why]]): [Parts, string] => [
          { ...parts, body: [type, value] },
          `${type} body: ${why}`,
        ]),
      );
    }
  }
  if (op.requestBody) {
    changes.push(valid.map((parts): [Parts, string] => [
      { ...parts, body: ["text/plain", parts.body![1]] },
      "a media type the operation does not take",
    ]));
    changes.push(
      fc.tuple(valid, fc.constantFrom("gzip", "br", "deflate", "identity", "x-foo")).map((
        [parts, encoding],
      ): [Parts, string] => [{ ...parts, encoding }, `Content-Encoding: ${encoding}`]),
    );
    for (const type of Object.keys(op.requestBody.content).filter((t) => t.endsWith("json"))) {
      changes.push(valid.map((parts): [Parts, string] => [
        { ...parts, body: [type, _NOT_JSON] },
        "a body that is not JSON",
      ]));
    }
  }
  if (op.security) {
    changes.push(
      valid.map((parts): [Parts, string] => [{ ...parts, auth: false }, "no credentials"]),
    );
  }
  if (!changes.length) return undefined;
  // A change may leave the request valid (a value that another branch of a union takes).
  return fc.oneof(...changes).filter(([parts]) => _problems(w, op, parts).length > 0)
    .map(([parts, why]) => ({ ..._written(w, op, parts), invalid: why }));
}

/** A body that is no JSON at all, sent as JSON. */
const _NOT_JSON = Symbol("not JSON");

/** A header value is what the service reads only if `Headers` keeps it as it is. */
function _survivesHeaders(where: Parameter["in"], value: unknown): boolean {
  if (where !== "header") return true;
  try {
    return new Headers({ h: String(value) }).get("h") === String(value);
  } catch {
    return false;
  }
}

function _wire(mediaType: string): Wire {
  return mediaType.endsWith("json") ? "json" : "text";
}

/** The compiled schema at a place of an operation (`["parameters", 0, "schema"]`). */
function _schemaAt(w: World, op: Operation, ...at: (string | number)[]) {
  const pointer = ["paths", op.path, op.method.toLowerCase(), ...at]
    .map((s) => String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
  const validate = w.ajv.getSchema(`doc#/${pointer}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate;
}

/** What makes the parts invalid, as the document says; none for a valid request. */
function _problems(w: World, op: Operation, parts: Parts): string[] {
  const problems: string[] = [];
  for (const [i, p] of (op.parameters ?? []).entries()) {
    const value = parts[p.in][p.name];
    if (value === undefined) {
      if (p.required) problems.push(`${p.name} missing`);
      continue;
    }
    if (p.allowEmptyValue && value === "") continue;
    if (!_schemaAt(w, op, "parameters", i, "schema")(value)) problems.push(`${p.name}`);
  }
  if (parts.body) {
    const [type, value] = parts.body;
    const media = op.requestBody!.content[type];
    if (!media) problems.push(`media type ${type}`);
    else if (value === _NOT_JSON) problems.push("not JSON");
    else if (!_schemaAt(w, op, "requestBody", "content", type, "schema")(value)) {
      problems.push(`body`);
    }
  }
  if (parts.encoding !== undefined) problems.push("content-encoded");
  if (!parts.auth) problems.push("credentials");
  return problems;
}

/** The generator's own check: a request meant to be valid is, as the document says. */
function _assertValid(w: World, op: Operation, parts: Parts): void {
  const problems = _problems(w, op, parts);
  if (problems.length) {
    throw new Error(`the generator made an invalid request: ${problems.join("; ")}`);
  }
}

/** The parts written as a request: a URL, headers and a body. */
function _written(w: World, op: Operation, parts: Parts): Sent {
  const path = op.path.replace(
    /\{(\w+)\}/g,
    (_, name) => encodeURIComponent(String(parts.path[name])),
  );
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parts.query)) {
    if (value !== undefined) query.append(name, String(value));
  }
  const headers: Record<string, string> = { Accept: _accepted(op) };
  for (const [name, value] of Object.entries(parts.header)) {
    if (value !== undefined) headers[name] = String(value);
  }
  if (parts.auth && op.security) {
    headers.Authorization = "clientBasic" in op.security[0]! ? w.basic : w.bearer;
  }
  let body: string | undefined;
  if (parts.body) {
    const [type, value] = parts.body;
    headers["Content-Type"] = type;
    if (parts.encoding !== undefined) headers["Content-Encoding"] = parts.encoding;
    body = value === _NOT_JSON
      ? '{"unfinished": '
      : type === "application/x-www-form-urlencoded"
      ? _form(value)
      : JSON.stringify(value);
  }
  const q = query.size ? `?${query}` : "";
  return {
    method: op.method,
    url: `${path}${q}`,
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

/** Every media type the operation answers with, as a client that reads them all asks. */
function _accepted(op: Operation): string {
  const types = Object.values(op.responses).flatMap((r) => Object.keys(r.content ?? {}));
  return [...new Set(types)].join(", ") || "*/*";
}

/** A form body: each member as text (OpenAPI's form style), an object or array as JSON. */
function _form(value: unknown): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return String(value);
  const form = new URLSearchParams();
  for (const [name, v] of Object.entries(value)) {
    if (v !== undefined) form.append(name, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return form.toString();
}

// ---- Answers ----

/**
 * What the document's schemas cannot state, each said in words in the field's description:
 * a valid request may be refused with `400` for these fields only, each named in the
 * answer's `issues`.
 */
const BEYOND_SCHEMA: Readonly<Record<string, string>> = {
  city: "names a place: a letter or a postcode, read against the gazetteer",
  country: "an ISO 3166-1 alpha-2 code or a country's English name, a list no schema carries",
  service_type: "a catalog service by id, name or alias, in any case",
  email: "an address zod's practical check takes, narrower than the email format",
  requested_date: "a date not in the past",
  // Refusals without issues are named by their error code.
  invalid_idempotency_key: "the Idempotency-Key header and the idempotency_key field, if both " +
    "are given, are the same",
};

/**
 * Why a `400` to a request the document calls valid is not explained by a rule beyond the
 * schemas, or `undefined` when it is. An MCP refusal is a JSON-RPC error, not judged here.
 */
function _unexplainedRefusal(text: string): string | undefined {
  let body: { error?: unknown; issues?: { path: string; message: string }[]; jsonrpc?: string };
  try {
    body = JSON.parse(text);
  } catch {
    return undefined; // an HTML page: the form's words, checked by tests/web/
  }
  if (body.jsonrpc) return undefined;
  const unexplained = (body.issues ?? [{ path: String(body.error), message: String(body.error) }])
    .filter((i) => !(i.path.split(".")[0]! in BEYOND_SCHEMA));
  return unexplained.length ? JSON.stringify(unexplained) : undefined;
}

/** Fails with the operation, the request, the answer and the reason when an answer is wrong. */
async function _checkAnswer(w: World, op: Operation, sent: Sent, res: Response): Promise<void> {
  const text = await res.text();
  const reason = _wrongAnswer(w, op, sent, res, text);
  if (!reason) return;
  throw new Error(
    [
      `${op.method} ${op.path}: ${reason}`,
      `request: ${sent.method} ${sent.url}${sent.invalid ? ` (invalid: ${sent.invalid})` : ""}`,
      `headers: ${JSON.stringify(sent.headers)}`,
      `body: ${sent.body?.slice(0, 600) ?? "(none)"}`,
      `answer: ${res.status} ${res.headers.get("content-type")} ${text.slice(0, 600)}`,
    ].join("\n"),
  );
}

function _wrongAnswer(
  w: World,
  op: Operation,
  sent: Sent,
  res: Response,
  text: string,
): string | undefined {
  const status = String(res.status);
  if (res.status >= 500) return `a ${status}`;
  const documented = op.responses[status];
  if (!documented) return `status ${status} is not documented (${Object.keys(op.responses)})`;
  if (sent.invalid && (res.status < 400 || res.status >= 500)) {
    return `an invalid request (${sent.invalid}) was answered ${status}`;
  }
  if (!sent.invalid && res.status === 400) {
    const refusal = _unexplainedRefusal(text);
    if (refusal) return `a valid request was refused: ${refusal}`;
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = res.headers.get(name);
    if (value === null) continue;
    const validate = _schemaAt(w, op, "responses", status, "headers", name, "schema");
    const read = deref(header.schema as Schema, w.resolve).type === "integer"
      ? Number(value)
      : value;
    if (!validate(read)) return `header ${name}: ${value} is not as documented`;
  }
  if (!documented.content) return text === "" ? undefined : "a body where none is documented";
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const media = documented.content[type];
  if (!media) return `content type ${type} is not documented for ${status}`;
  return _wrongBody(w, op, status, type, media, text);
}

function _wrongBody(
  w: World,
  op: Operation,
  status: string,
  type: string,
  media: Media,
  text: string,
): string | undefined {
  let value: unknown = text;
  if (type.endsWith("json")) {
    try {
      value = JSON.parse(text);
    } catch {
      return "the body is not JSON";
    }
  }
  if (type === "text/event-stream") value = _events(text);
  const validate = _schemaAt(w, op, "responses", status, "content", type, "schema");
  if (!validate(value)) {
    return `the body does not match its schema: ${w.ajv.errorsText(validate.errors)}`;
  }
  return _wrongContent(w, deref(media.schema, w.resolve), value);
}

/** Server-sent events as `{event, id, data}` (WHATWG HTML §9.2.6, the fields this service sends). */
function _events(text: string): Json[] {
  return text.split(/\r?\n\r?\n/).filter((block) => block.trim() !== "").map((block) => {
    const event: Record<string, string> = {};
    for (const line of block.split(/\r?\n/)) {
      const at = line.indexOf(":");
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
      event[field] = field === "data" && event.data !== undefined
        ? `${event.data}\n${value}`
        : value;
    }
    return event;
  });
}

/**
 * JSON Schema leaves `contentSchema` to the application: each event's `data` that the
 * document says holds JSON is parsed and validated against it.
 */
function _wrongContent(w: World, schema: Schema, value: unknown): string | undefined {
  const items = schema.items ? deref(schema.items as Schema, w.resolve) : undefined;
  const properties = (items?.properties ?? {}) as Record<string, Schema>;
  for (const [name, p] of Object.entries(properties)) {
    if (p.contentMediaType !== "application/json" || !p.contentSchema) continue;
    const ref = (p.contentSchema as Schema).$ref;
    const validate = w.ajv.getSchema(`doc${ref}`);
    if (!validate) throw new Error(`contentSchema ${ref} is not a reference the test follows`);
    for (const item of value as Json[]) {
      if (!validate(JSON.parse(String(item[name])))) {
        return `an event's ${name} does not match its contentSchema: ` +
          w.ajv.errorsText(validate.errors);
      }
    }
  }
  return undefined;
}
