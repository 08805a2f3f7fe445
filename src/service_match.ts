/**
 * @module
 * What an agent writes as `service_type`, understood as a catalog service: its id, its
 * name or one of its aliases, ignoring case, accents, spaces, `_`, `-`, punctuation and
 * `&` or "and". "remote_hands", "Remote Hands", "REMOTE-HANDS", "rack & stack" and
 * "cabling" all name a service; for anything else, the closest one is suggested.
 */

import type { Catalog, Service } from "./catalog.ts";

/**
 * The key a service name is compared by: "Rack & Stack" → "rackstack",
 * "remote_hands" → "remotehands", "Décom." → "decom", "cabling services" → "cabling".
 */
export function serviceKey(text: string): string {
  return _words(text).filter((word) => word !== "and").join("");
}

/**
 * Every key a name may be written as: `serviceKey`'s, and the words run together with
 * their "and" ("RackAndStack" → "rackandstack"), which no separator splits.
 */
export function serviceKeys(text: string): string[] {
  return [...new Set([serviceKey(text), _words(text).join("")])];
}

function _words(text: string): string[] {
  const words = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replaceAll("&", " and ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
  // "Remote hands service", "cabling services": the catalog only has services.
  while (words.length > 1 && /^services?$/.test(words.at(-1)!)) words.pop();
  return words;
}

/**
 * Every key of every service (id, name, aliases) → the service. Two services sharing a
 * key would make a name mean either, so that is an error at catalog load.
 */
export function indexServices(services: readonly Service[]): Map<string, Service> {
  const byKey = new Map<string, Service>();
  for (const service of services) {
    const names = [service.id, service.name, ...service.aliases];
    for (const key of new Set(names.flatMap(serviceKeys))) {
      const other = byKey.get(key);
      if (other && other !== service) {
        throw new Error(
          `services.v1.json: "${key}" names both ${other.id} and ${service.id}`,
        );
      }
      byKey.set(key, service);
    }
  }
  return byKey;
}

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
