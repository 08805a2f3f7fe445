/**
 * @module
 * What an agent writes as `service_type`, understood as a catalog service: its id, its
 * name or one of its aliases, ignoring case, accents, spaces, `_`, `-`, punctuation and
 * `&` or "and". "remote_hands", "Remote Hands", "REMOTE-HANDS", "rack & stack" and
 * "cabling" all name a service; for anything else, the closest one is suggested.
 */

import type { Catalog } from "./catalog.ts";
import { serviceKey, serviceKeys } from "./names.ts";
import type { Service } from "./records.ts";

/** The catalog service `text` names, or undefined. */
export function findService(catalog: Catalog, text: string): Service | undefined {
  for (const key of serviceKeys(text)) {
    const service = catalog.serviceByKey.get(key);
    if (service) return service;
  }
  return undefined;
}

/**
 * The service whose id, name or alias is a few edits from `text` ("rak and stak"), or
 * undefined when none is close: a far-fetched guess would mislead more than none.
 */
export function closestService(catalog: Catalog, text: string): Service | undefined {
  const wanted = serviceKey(text);
  let best: { service: Service; distance: number } | undefined;
  for (const [key, service] of catalog.serviceByKey) {
    const distance = editDistance(wanted, key);
    if (!best || distance < best.distance) best = { service, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(wanted.length / 3))
    ? best.service
    : undefined;
}

/** Levenshtein distance; the names are short, so the plain two-row table is enough. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
