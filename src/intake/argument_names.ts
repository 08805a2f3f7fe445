/**
 * @module
 * "Did you mean": the argument an unknown argument name probably stands for
 * (`num_engineers` → `engineer_count`, `duration` → `estimated_hours`, `priority` →
 * `urgency`), from a few curated names, the words the name is made of, and small
 * spelling mistakes. Each name is normalised once, and only its first 64 characters
 * are read, so a name costs a bounded amount whatever a caller sends. It is cautious: a
 * name with any word it does not know (`duration_notes`, `engineer_type`) means nothing,
 * since a submission refuses an additional property that means a price or review field.
 */

import { editDistance } from "../catalog/edit_distance.ts";
import { clip, type FieldIssue } from "../http/errors.ts";

/** The fields a suggestion may name, and the words that mean each. */
const MEANINGS: Readonly<Record<string, readonly string[]>> = {
  engineer_count: ["engineer", "technician", "tech", "headcount", "people", "crew", "worker"],
  estimated_hours: ["hour", "hr", "duration", "manhour"],
  out_of_hours: ["outofhour", "afterhour", "outsidehour", "offhour", "ooh", "overnight"],
  requested_date: ["date"],
  requested_time: ["time"],
  city: ["city", "town", "location", "locality", "metro"],
  country: ["country"],
  service_type: ["service", "svc"],
  currency: ["currency", "ccy"],
  urgency: ["urgency", "urgent", "priority", "prio", "severity", "criticality"],
  phone: ["phone", "telephone", "tel", "mobile"],
  company: ["company", "organisation", "organization", "org", "employer"],
};

/** Words that say nothing about which field is meant: left out of a name before reading it. */
const FILLERS = [
  "num",
  "number",
  "no",
  "nr",
  "count",
  "cnt",
  "total",
  "qty",
  "quantity",
  "amount",
  "how",
  "many",
  "much",
  "of",
  "the",
  "per",
  "job",
  "work",
  "site",
  "need",
  "needed",
  "required",
  "requested",
  "request",
  "req",
  "estimated",
  "estimate",
  "est",
  "expected",
  "preferred",
  "desired",
  "wanted",
  "planned",
  "target",
  "code",
  "iso",
  "start",
  "starting",
  "level",
  "is",
];

/** Real words one letter from a field's word that mean something else. */
const NOT_MEANT = new Set(["county"]);

/** Whole names (as their words run together) that their words alone would read otherwise. */
const HINTS = new Map<string, readonly string[]>([
  ...["start", "begin", "when", "datetime", "startat", "schedule"].map(
    (n): [string, readonly string[]] => [n, ["requested_date", "requested_time"]],
  ),
  ...["totaltime", "timeneeded", "timerequired", "timeestimate", "worktime", "jobtime"].map(
    (n): [string, readonly string[]] => [n, ["estimated_hours"]],
  ),
  ["where", ["city"]],
  // Not a word of urgency: `emergency_phone` is a phone number.
  ...["emergency", "isemergency"].map((n): [string, readonly string[]] => [n, ["urgency"]]),
]);

/** Longest name read; a longer one is read in its first this many characters. */
const NAME_MAX = 64;
/** Longest word compared for a spelling mistake (a longer one is no word we know). */
const WORD_MAX = 24;

const _WORDS = new Map<string, string | null>([
  ...FILLERS.map((w): [string, null] => [w, null]),
  ...Object.entries(MEANINGS).flatMap(([f, ws]) => ws.map((w): [string, string] => [w, f])),
]);
const _SQUASHED_FIELDS = new Map(Object.keys(MEANINGS).map((f) => [f.replaceAll("_", ""), f]));

/**
 * The arguments among `candidates` that `name` probably means: none, one, or two that go
 * together (`start` → `requested_date` and `requested_time`).
 */
export function meantArguments(name: string, candidates: readonly string[]): string[] {
  const words = _words(name);
  const squashed = words.join("");
  const meant = _SQUASHED_FIELDS.get(squashed) ?? _SQUASHED_FIELDS.get(_singular(squashed));
  const fields = meant
    ? [meant]
    : HINTS.get(squashed) ?? _byWords(words) ?? _split(squashed) ?? _closeField(squashed) ?? [];
  return fields.filter((f) => candidates.includes(f));
}

/**
 * The `did_you_mean` of an unknown name: the field `meantArguments` found, both joined by
 * "and" for a name that means two together, or null for none.
 */
export function didYouMean(meant: readonly string[]): string | null {
  return meant.length ? meant.join(" and ") : null;
}

/** The issue of an unknown argument: what it probably means, else "remove it". */
export function unknownArgumentIssue(name: string, meant: readonly string[]): FieldIssue {
  const shown = clip(name, NAME_MAX);
  const field = didYouMean(meant);
  return {
    path: name,
    message: field
      ? `${shown} is not an argument here; did you mean ${field}?`
      : `${shown} is not an argument here; remove it`,
    did_you_mean: field,
  };
}

/** The lower-case ASCII words of a name: `numEngineers`, `num-engineers` → num, engineers. */
function _words(name: string): string[] {
  return name.slice(0, NAME_MAX)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/**
 * The fields a name's words mean, when every word is known (a filler or a field's word,
 * written as one, as several run together, or with one slip); undefined otherwise.
 */
function _byWords(words: readonly string[]): string[] | undefined {
  const fields = new Set<string>();
  for (const word of words) {
    const parts = _known(word) ?? _known(_singular(word)) ?? _split(word) ?? _close(word);
    if (!parts) return undefined;
    for (const field of parts) fields.add(field);
  }
  return fields.size ? [...fields] : undefined;
}

/** The fields one known word means ([] for a filler), or undefined for an unknown word. */
function _known(word: string): string[] | undefined {
  const field = _WORDS.get(word);
  return field === undefined ? undefined : field === null ? [] : [field];
}

/** `engineers` → `engineer`, `cities` → `city`, `hrs` → `hr`. */
function _singular(word: string): string {
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  return word.endsWith("s") && word.length > 2 ? word.slice(0, -1) : word;
}

/**
 * A word made of known words run together (`numengineers`, `hoursneeded`): the fields they
 * mean, or undefined. Dynamic programming over the positions: at most WORD_MAX² steps.
 */
function _split(word: string): string[] | undefined {
  if (word.length > WORD_MAX) return undefined;
  const reach: (string[] | undefined)[] = [[]];
  for (let end = 1; end <= word.length; end++) {
    for (let start = 0; start < end && !reach[end]; start++) {
      const before = reach[start];
      const part = before &&
        (_known(word.slice(start, end)) ?? _known(_singular(word.slice(start, end))));
      if (before && part) reach[end] = [...before, ...part];
    }
  }
  return reach[word.length];
}

/** A field's word misspelled by one letter, such as `enginer`. */
function _close(word: string): string[] | undefined {
  if (word.length < 5 || word.length > WORD_MAX || NOT_MEANT.has(word)) return undefined;
  for (const [known, field] of _WORDS) {
    if (field === null || known.length < 5) continue;
    if (editDistance(word, known, 1) !== undefined) return [field];
  }
  return undefined;
}

/** A field's whole name misspelled (`engineercont`), compared without its underscores. */
function _closeField(squashed: string): string[] | undefined {
  if (squashed.length < 8 || squashed.length > WORD_MAX) return undefined;
  for (const [name, field] of _SQUASHED_FIELDS) {
    if (name.length >= 8 && editDistance(squashed, name, 2) !== undefined) return [field];
  }
  return undefined;
}
