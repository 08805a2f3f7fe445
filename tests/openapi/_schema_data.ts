/**
 * @module
 * Data from the OpenAPI document's own JSON Schemas, as fast-check arbitraries: values a
 * schema accepts, and values it refuses. Only the keywords the document uses are known; any
 * other one throws, so a schema the generator would misread fails the test instead of
 * feeding it wrong data. Whatever is generated is checked against the document by the
 * caller (Ajv), so a slip here is a failure too, never a false finding about the service.
 *
 * The refused values avoid the readings docs/api.md promises to forgive (a number or a
 * boolean written as a string, `null` for an optional field, an empty query parameter, a
 * country by its name): those are valid requests in everything but their JSON type.
 */

import fc from "npm:fast-check@4.10.2";

export type Schema = { [keyword: string]: unknown };
/** Looks a `$ref` up in the document. */
export type Resolve = (ref: string) => Schema;

/** Keywords that only describe. */
const ANNOTATIONS = new Set([
  "description",
  "examples",
  "title",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentSchema",
]);
/** Keywords whose meaning the generator follows. */
const KNOWN = new Set([
  "$ref",
  "type",
  "const",
  "enum",
  "anyOf",
  "oneOf",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
]);

function _checkKeywords(schema: Schema): void {
  for (const k of Object.keys(schema)) {
    if (!KNOWN.has(k) && !ANNOTATIONS.has(k)) {
      throw new Error(`the generator does not know the keyword ${k}: ${JSON.stringify(schema)}`);
    }
  }
}

/** A schema with its `$ref`s followed. */
export function deref(schema: Schema, resolve: Resolve): Schema {
  while (typeof schema.$ref === "string") schema = resolve(schema.$ref);
  return schema;
}

const _FORMATS: Record<string, fc.Arbitrary<string>> = {
  // The addresses zod's practical check takes, and the RFC's odder ones it may refuse.
  email: fc.oneof(
    fc.tuple(
      fc.stringMatching(/^[a-z0-9]{1,10}([._+-][a-z0-9]{1,8})?$/),
      fc.stringMatching(/^[a-z0-9]{1,12}$/),
      fc.constantFrom("com", "de", "example", "co.uk"),
    ).map(([local, domain, tld]) => `${local}@${domain}.${tld}`),
    fc.emailAddress(),
  ),
  // Around the tests' clock (2026-11-22): past, near and far dates.
  date: fc.date({
    min: new Date(Date.UTC(2026, 0, 1)),
    max: new Date(Date.UTC(2028, 11, 31)),
    noInvalidDate: true,
  }).map((d) => d.toISOString().slice(0, 10)),
  uri: fc.webUrl(),
};

/** Values `schema` accepts. */
export function validValue(schema: Schema, resolve: Resolve): fc.Arbitrary<unknown> {
  schema = deref(schema, resolve);
  _checkKeywords(schema);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (options) return fc.oneof(...options.map((o) => validValue(o, resolve)));
  const types = _types(schema);
  const generic = fc.oneof(...types.map((type) => _validOfType(schema, type, resolve)));
  const examples = (schema.examples ?? []) as unknown[];
  // Documented examples come up often: they reach the answers random text rarely does.
  return examples.length
    ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...examples) }, {
      weight: 2,
      arbitrary: generic,
    })
    : generic;
}

function _types(schema: Schema): string[] {
  if (schema.type === undefined) return ["any"];
  return [schema.type].flat() as string[];
}

function _validOfType(schema: Schema, type: string, resolve: Resolve): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return _validString(schema);
    case "integer":
      return fc.integer({
        min: _bound(schema, "min") ?? -1e6,
        max: _bound(schema, "max") ?? 1e6,
      });
    case "number":
      return _validNumber(schema);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(validValue((schema.items ?? {}) as Schema, resolve), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: Math.min((schema.maxItems as number | undefined) ?? 4, 10),
      });
    case "object":
      return _validObject(schema, resolve);
    case "any":
      return fc.jsonValue({ maxDepth: 2 });
  }
  throw new Error(`unknown type ${type}`);
}

function _bound(schema: Schema, side: "min" | "max"): number | undefined {
  const inclusive = schema[side === "min" ? "minimum" : "maximum"] as number | undefined;
  const exclusive = schema[side === "min" ? "exclusiveMinimum" : "exclusiveMaximum"] as
    | number
    | undefined;
  if (exclusive === undefined) return inclusive;
  return side === "min" ? Math.floor(exclusive) + 1 : Math.ceil(exclusive) - 1;
}

function _validNumber(schema: Schema): fc.Arbitrary<number> {
  const min = (schema.minimum ?? schema.exclusiveMinimum ?? -1e6) as number;
  const max = (schema.maximum ?? schema.exclusiveMaximum ?? 1e6) as number;
  const inRange = (n: number) =>
    (schema.exclusiveMinimum === undefined || n > (schema.exclusiveMinimum as number)) &&
    (schema.exclusiveMaximum === undefined || n < (schema.exclusiveMaximum as number));
  return fc.oneof(
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
    // Tiny and huge magnitudes are written with an exponent (1e-7) in JSON and queries.
    fc.constantFrom(1e-7, 0.5, 1e-300, 5e-324, max, min),
  ).filter(inRange);
}

function _validString(schema: Schema): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = (schema.maxLength as number | undefined) ?? 300;
  // JSON Schema counts code points, as does the generator below.
  const fits = (s: string) => [...s].length >= minLength && [...s].length <= maxLength;
  if (typeof schema.pattern === "string") {
    return fc.stringMatching(new RegExp(schema.pattern, "u")).filter(fits);
  }
  if (typeof schema.format === "string") {
    const format = _FORMATS[schema.format];
    if (!format) throw new Error(`the generator does not know the format ${schema.format}`);
    return format.filter(fits);
  }
  return fc.oneof(
    fc.string({ minLength, maxLength, unit: "grapheme-ascii" }),
    fc.string({ minLength, maxLength, unit: "grapheme" }),
    // The longest a field takes, in characters outside the Basic Multilingual Plane too.
    fc.constantFrom("x", "é", "😀").map((c) => c.repeat(Math.max(minLength, maxLength))),
  );
}

function _validObject(schema: Schema, resolve: Resolve): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const known = fc.record(
    Object.fromEntries(
      Object.entries(properties).map(([name, p]) => [name, validValue(p, resolve)]),
    ),
    { requiredKeys: required },
  );
  if (schema.additionalProperties === false) return known;
  // Now and then a member the schema does not name, as it allows.
  const extra = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !(k in properties)),
    fc.jsonValue({ maxDepth: 1 }),
    { maxKeys: 2 },
  );
  return fc.tuple(known, fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, extra))
    .map(([k, more]) => ({ ...more, ...k }));
}

/** How a value reaches the service: as JSON, or as text (a query, a header, a form). */
export type Wire = "json" | "text";

/**
 * Values `schema` refuses, each with what is wrong with it; `undefined` when every value
 * is valid (`{}`) or the only invalid ones are ones the service forgives.
 */
export function invalidValue(
  schema: Schema,
  resolve: Resolve,
  wire: Wire,
): fc.Arbitrary<[unknown, string]> | undefined {
  schema = deref(schema, resolve);
  _checkKeywords(schema);
  const out: fc.Arbitrary<[unknown, string]>[] = [];
  const add = (why: string, values: fc.Arbitrary<unknown>) =>
    out.push(values.map((v): [unknown, string] => [v, why]));
  if ("const" in schema || Array.isArray(schema.enum)) {
    const allowed = "const" in schema ? [schema.const] : schema.enum as unknown[];
    add("not one of the allowed values", fc.constantFrom("x-not-allowed", "ANONYMOUS", "2.1"));
    if (allowed.includes("x-not-allowed")) throw new Error("an unlikely value is allowed");
  }
  const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  // A value one branch refuses; the caller drops those another branch takes.
  for (const option of options ?? []) {
    const bad = invalidValue(option, resolve, wire);
    if (bad) out.push(bad);
  }
  if (!options) {
    const types = _types(schema);
    const other = types.includes("any") ? undefined : _otherType(types, wire);
    if (other) add("of another type", other);
    if (types.includes("string")) _invalidString(schema, add);
    if (types.includes("integer") || types.includes("number")) _invalidNumber(schema, add);
    if (types.includes("object")) _invalidObject(schema, resolve, wire, out);
    if (types.includes("array")) _invalidArray(schema, resolve, wire, out);
  }
  return out.length ? fc.oneof(...out) : undefined;
}

/**
 * A value of a type the schema does not allow, as it arrives on `wire`. Not the strings
 * forgiven as numbers or booleans, and not `null`, which an optional field forgives (the
 * caller refuses `null` only where a member is required).
 */
function _otherType(types: string[], wire: Wire): fc.Arbitrary<unknown> | undefined {
  const numeric = types.includes("number") || types.includes("integer");
  if (wire === "text") {
    // On the wire everything is text: a string-typed value cannot be of another type.
    if (types.includes("string")) return undefined;
    if (numeric) return fc.constantFrom("many", "two", "NaN", "1,5", "1 2");
    if (types.includes("boolean")) return fc.constantFrom("maybe", "2", "-");
    return fc.constant("x");
  }
  const candidates: unknown[] = [];
  if (!types.includes("string")) candidates.push("text");
  if (!numeric) candidates.push(42, -1.5);
  if (!types.includes("boolean")) candidates.push(true);
  if (!types.includes("array")) candidates.push([], ["x"]);
  if (!types.includes("object")) candidates.push({}, { a: 1 });
  return fc.constantFrom(...candidates);
}

type Add = (why: string, values: fc.Arbitrary<unknown>) => void;

function _invalidString(schema: Schema, add: Add): void {
  const { minLength, maxLength, pattern, format } = schema as {
    minLength?: number;
    maxLength?: number;
    pattern?: string;
    format?: string;
  };
  if (minLength !== undefined && minLength > 0) {
    add(`shorter than ${minLength}`, fc.constant("x".repeat(minLength - 1)));
  }
  if (maxLength !== undefined) {
    // Not spaces: a text field is trimmed before its length is checked.
    add(
      `longer than ${maxLength}`,
      fc.constantFrom("x", "é", "😀").map((c) => c.repeat(maxLength + 1)),
    );
  }
  if (pattern !== undefined) {
    const re = new RegExp(pattern, "u");
    const candidates = ["", "x", "xx yy", "💥", "!", '""', "a\u0000b", "99:99", "12", "EURO"]
      .filter((c) => !re.test(c) && (minLength ?? 0) <= [...c].length);
    if (candidates.length) add(`not matching ${pattern}`, fc.constantFrom(...candidates));
  }
  if (format === "email") add("not an email address", fc.constantFrom("nope", "a@", "@b.c"));
  if (format === "date") {
    add("not a date", fc.constantFrom("2026-13-01", "2027-02-30", "tomorrow", "01/12/2026"));
  }
  if (format === "uri") add("not a URI", fc.constantFrom("not a uri", "//x", "http//x"));
}

function _invalidNumber(schema: Schema, add: Add): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema as Record<
    string,
    number | undefined
  >;
  if (minimum !== undefined) add(`below ${minimum}`, fc.constantFrom(minimum - 1, minimum - 0.5));
  if (maximum !== undefined) add(`above ${maximum}`, fc.constantFrom(maximum + 1, maximum * 10));
  if (exclusiveMinimum !== undefined) {
    add(`not above ${exclusiveMinimum}`, fc.constantFrom(exclusiveMinimum, exclusiveMinimum - 3));
  }
  if (exclusiveMaximum !== undefined) {
    add(`not below ${exclusiveMaximum}`, fc.constant(exclusiveMaximum));
  }
  if (schema.type === "integer") add("not a whole number", fc.constantFrom(1.5, 2.25));
}

function _invalidObject(
  schema: Schema,
  resolve: Resolve,
  wire: Wire,
  out: fc.Arbitrary<[unknown, string]>[],
): void {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const valid = _validObject(schema, resolve);
  for (const name of required) {
    out.push(valid.map((v): [unknown, string] => {
      const { [name]: _, ...rest } = v;
      return [rest, `without the required ${name}`];
    }));
    if (wire === "json") {
      out.push(valid.map((v): [unknown, string] => [{ ...v, [name]: null }, `${name} null`]));
    }
  }
  for (const [name, p] of Object.entries(properties)) {
    const bad = invalidValue(p, resolve, wire);
    if (!bad) continue;
    out.push(
      fc.tuple(valid, bad).map(([v, [value, why]]): [unknown, string] => [
        { ...v, [name]: value },
        `${name} ${why}`,
      ]),
    );
  }
  if (schema.additionalProperties === false) {
    out.push(valid.map((v): [unknown, string] => [{ ...v, unknown_member: 1 }, "an extra member"]));
  }
}

function _invalidArray(
  schema: Schema,
  resolve: Resolve,
  wire: Wire,
  out: fc.Arbitrary<[unknown, string]>[],
): void {
  const items = (schema.items ?? {}) as Schema;
  const one = validValue(items, resolve);
  if (schema.maxItems !== undefined) {
    const n = (schema.maxItems as number) + 1;
    out.push(
      fc.array(one, { minLength: n, maxLength: n }).map((
        a,
      ): [unknown, string] => [a, `more than ${schema.maxItems} items`]),
    );
  }
  const bad = invalidValue(items, resolve, wire);
  if (bad) {
    out.push(bad.map(([value, why]): [unknown, string] => [[value], `an item ${why}`]));
  }
}
