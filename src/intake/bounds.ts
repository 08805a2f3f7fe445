/**
 * @module
 * What a submission may carry beyond its declared fields, bounded so that the declared
 * fields' limits bound the whole stored record: at most 16 additional properties of 4 KiB
 * together, none that probably means a price or review field, and JSON nested at most 32
 * levels deep (checked before anything recursive walks it). A document with more than 64
 * properties is refused before anything reads them. The answer names every additional
 * property it kept unread ({@linkcode ignoredProperties}).
 */

import { clip, type FieldIssue, MAX_ISSUES } from "../http/errors.ts";
import { lenientArguments, type LenientFields } from "./lenient.ts";
import { didYouMean, meantArguments, unknownArgumentIssue } from "./argument_names.ts";
import { validationFailed } from "./schemas.ts";

/**
 * Bounds of the additional properties a submission may carry beyond its declared fields
 * (SPEC §2.4/§2.5 allow them, and they are stored). With them bounded, the declared
 * fields' limits bound the whole stored record.
 */
const EXTRA_PROPERTIES = { count: 16, nameLength: 64, bytes: 4 * 1024 } as const;

/** The problems of a submission's additional properties, one issue each. */
export function extraPropertyIssues(raw: unknown, shape: object): FieldIssue[] {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return [];
  const extras = Object.entries(raw).filter(([name]) => !Object.hasOwn(shape, name));
  const issues: FieldIssue[] = [];
  if (extras.length > EXTRA_PROPERTIES.count) {
    issues.push({
      path: "(body)",
      message: `at most ${EXTRA_PROPERTIES.count} additional properties are kept; ` +
        `this request has ${extras.length}`,
    });
  }
  for (const [name] of extras) {
    if (name.length > EXTRA_PROPERTIES.nameLength) {
      issues.push({
        path: name.slice(0, 32) + "…",
        message: `an additional property name is at most ${EXTRA_PROPERTIES.nameLength} characters`,
      });
    }
  }
  const bytes = new TextEncoder().encode(JSON.stringify(Object.fromEntries(extras))).byteLength;
  if (bytes > EXTRA_PROPERTIES.bytes) {
    issues.push({
      path: "(body)",
      message: `additional properties are at most ${EXTRA_PROPERTIES.bytes} bytes as JSON ` +
        `together; these are ${bytes}`,
    });
  }
  return issues;
}

/**
 * Most top-level properties a submission may have: a quote's 18 fields (19 with a
 * currency), 16 additional properties, and room for names read as a field beside it
 * (`engineers` with `engineer_count`, the same value), rounded up. Past it the document is
 * refused before anything reads its names: thousands of them in 64 KiB would each cost a
 * synonym lookup and a schema issue.
 */
export const SUBMISSION_MAX_PROPERTIES = 64;

/** Refuses a document with more than {@linkcode SUBMISSION_MAX_PROPERTIES} properties. */
export function checkPropertyCount(raw: unknown): void {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return;
  let count = 0;
  for (const _ in raw) {
    if (++count > SUBMISSION_MAX_PROPERTIES) {
      throw validationFailed([{
        path: "(body)",
        message: `a submission has at most ${SUBMISSION_MAX_PROPERTIES} properties: its ` +
          "fields and at most 16 additional ones",
      }]);
    }
  }
}

/**
 * The additional properties that probably mean one of `fields` (`num_engineers` for
 * `engineer_count`), one issue each, worded as a strict schema words an unknown argument:
 * kept, they would go unread, and the price would silently take a default instead. One
 * whose fields are all given is kept (`site_location` beside `city`, `preferred_engineer:
 * "Jan"` beside `engineer_count`): nothing is defaulted, and the reviewer reads it; unless
 * it is a number or yes-or-no other than the field's (`num_engineers: 3` beside
 * `engineer_count: 2`), which is refused as a synonym with another value is. The first
 * {@linkcode MAX_ISSUES} additional properties are read (more are refused anyway).
 */
export function misnamedFieldIssues(
  raw: unknown,
  shape: object,
  fields: readonly string[],
): FieldIssue[] {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return [];
  const args = raw as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  let read = 0;
  for (const name of Object.keys(args)) {
    if (Object.hasOwn(shape, name)) continue;
    if (++read > MAX_ISSUES) break;
    const meant = meantArguments(name, fields);
    if (!meant.length) continue;
    if (!meant.every((f) => args[f] !== undefined && args[f] !== null)) {
      issues.push(unknownArgumentIssue(name, meant));
      continue;
    }
    const clash = meant.find((f) => _otherValue(args[f], args[name]));
    if (clash) {
      issues.push({
        path: name,
        message: `${clip(name, 64)} probably means ${clash}, which is also given with another ` +
          `value; send ${clash} only`,
        did_you_mean: clash,
      });
    }
  }
  return issues;
}

/** An additional property kept with a submission and read as no field. */
export interface Ignored {
  property: string;
  /** The field of this endpoint it probably means (argument_names.ts), or null. */
  did_you_mean: string | null;
}

/**
 * The additional properties of an accepted submission, each with the field of `shape` it
 * probably means: kept as sent for the reviewer, and read as no field. Those that mean a
 * price or review field not given were refused before ({@linkcode misnamedFieldIssues}).
 */
export function ignoredProperties(raw: unknown, shape: object): Ignored[] {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return [];
  const fields = Object.keys(shape);
  return Object.keys(raw)
    .filter((name) => !Object.hasOwn(shape, name))
    .map((name) => ({ property: name, did_you_mean: didYouMean(meantArguments(name, fields)) }));
}

/** True when `value` reads as a number or yes-or-no, as `given` is, and not as `given`. */
function _otherValue(given: unknown, value: unknown): boolean {
  if (typeof given !== "number" && typeof given !== "boolean") return false;
  const read = (lenientArguments({ v: value }, _READ) as { v: unknown }).v;
  return typeof read === typeof given && read !== given;
}

const _READ: LenientFields = { optional: [], numbers: ["v"], booleans: ["v"] };

/** Deepest JSON nesting a submission may have; kept additional properties included. */
const MAX_NESTING = 32;

/**
 * Refuses documents nested deeper than {@link MAX_NESTING} before anything recursive
 * (zod, `JSON.stringify`, hashing) walks them: a few kilobytes of `[[[[…` would
 * otherwise overflow the stack. Iterative, so it cannot overflow itself.
 */
export function checkNesting(raw: unknown): void {
  const stack: [unknown, number][] = [[raw, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_NESTING) {
      throw validationFailed([{
        path: "",
        message: `the document is nested deeper than ${MAX_NESTING} levels`,
      }]);
    }
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
}
