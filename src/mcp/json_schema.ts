/**
 * @module
 * Zod schemas as the JSON Schema that agents read: without `$schema`, without a `pattern`
 * beside a `format`. `tools/list` is every agent's context, so it carries less: input
 * schemas without examples, and output shapes whose nested objects keep only their type
 * (the tool descriptor and the OpenAPI document keep everything).
 */

import { z } from "zod";

/** JSON Schema of a zod schema, as an input (before transforms) or an output. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" });
  return formatOverPattern(rest);
}

type Json = Record<string, unknown>;

/**
 * Drops the `pattern` zod writes beside a `format` (email, date): the format says it, and
 * its regular expression (hundreds of characters for an email) costs every agent's context.
 * The server still validates with the full schema.
 */
export function formatOverPattern<T>(node: T): T {
  if (Array.isArray(node)) return node.map(formatOverPattern) as T;
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "pattern" && typeof (node as Json).format === "string") continue;
    out[k] = formatOverPattern(v);
  }
  return out as T;
}

/**
 * An input schema as `tools/list` lists it: every property's description, no examples, and
 * not the root's description, which the tool's own description says already.
 */
export function listedInput<T extends object>(node: T): T {
  const { description: _, ...rest } = node as Json;
  return _walk(rest as T, (k) => k !== "examples" && k !== "$schema");
}

/**
 * An output schema as `tools/list` lists it: its description (which names the fields an
 * agent acts on), and each top-level property's type (and an enum's values). The full
 * shape, every field described, is in the tool descriptor and the OpenAPI document.
 */
export function listedOutput(schema: Json): Json {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  return {
    type: "object",
    ...(schema.description ? { description: schema.description } : {}),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, p]) => [name, _typeOnly(p)]),
    ),
    ...(schema.required ? { required: schema.required } : {}),
  };
}

/** A property reduced to its type and an enum's values. */
function _typeOnly(p: Json): Json {
  const out: Json = {};
  if (p.type !== undefined) out.type = p.type;
  if (p.enum !== undefined) out.enum = p.enum;
  if (p.const !== undefined) out.const = p.const;
  if (Array.isArray(p.anyOf)) {
    const types = (p.anyOf as Json[]).flatMap((b) => [b.type ?? []].flat());
    out.type = [...new Set(types)];
  }
  return out;
}

function _walk<T>(node: T, keep: (key: string) => boolean): T {
  if (Array.isArray(node)) return node.map((n) => _walk(n, keep)) as T;
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    // `additionalProperties: {}` is JSON Schema's default, and every name in JSON is a
    // string: saying either costs bytes only.
    if (k === "additionalProperties" && _isEmpty(v)) continue;
    if (k === "propertyNames" && JSON.stringify(v) === '{"type":"string"}') continue;
    if (keep(k)) out[k] = _walk(v, keep);
  }
  return out as T;
}

function _isEmpty(v: unknown): boolean {
  return v !== null && typeof v === "object" && Object.keys(v).length === 0;
}
