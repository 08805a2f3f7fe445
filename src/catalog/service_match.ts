/**
 * @module
 * What an agent writes as `service_type`, understood as a catalog service: its id, its
 * name or one of its aliases, ignoring case, accents, spaces, `_`, `-`, punctuation and
 * `&` or "and". "remote_hands", "Remote Hands", "REMOTE-HANDS", "rack & stack" and
 * "cabling" all name a service; for anything else, the closest one is suggested.
 */

import type { Catalog } from "./catalog.ts";
import { editDistance } from "./edit_distance.ts";
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
    // Past the first close name, only a closer one counts: the first of equals wins.
    const most = best ? best.distance - 1 : Math.max(2, Math.floor(wanted.length / 3));
    const distance = editDistance(wanted, key, most);
    if (distance !== undefined) best = { service, distance };
  }
  return best?.service;
}
