/**
 * @module
 * Points by one-degree cell, for `deno task data:places` (scripts/places.ts): the nearest
 * place to a ZIP code or an airport, and every place within some kilometres of one, without
 * reading all 200,000 GeoNames rows for each.
 */

import { haversineKm } from "../src/catalog/places.ts";

interface Point {
  latitude: number;
  longitude: number;
}

/** Row ids by one-degree cell. */
export class PlaceGrid<T extends Point> {
  readonly #rows: readonly T[];
  readonly #cells = new Map<string, number[]>();

  constructor(rows: readonly T[]) {
    this.#rows = rows;
    rows.forEach((r, id) => {
      const key = _cell(r.latitude, r.longitude);
      const ids = this.#cells.get(key);
      if (ids) ids.push(id);
      else this.#cells.set(key, [id]);
    });
  }

  /** The nearest row that `keep` accepts, within `degrees` (a coarse box), or undefined. */
  nearest(
    lat: number,
    lon: number,
    keep: (id: number) => boolean,
    degrees = 1,
  ): number | undefined {
    let best: number | undefined;
    let bestD = Infinity;
    const reach = Math.ceil(degrees);
    for (let dy = -reach; dy <= reach; dy++) {
      for (let dx = -reach; dx <= reach; dx++) {
        for (const id of this.#cells.get(_cell(lat + dy, lon + dx)) ?? []) {
          const r = this.#rows[id]!;
          const d = (r.latitude - lat) ** 2 +
            ((r.longitude - lon) * Math.cos(lat * Math.PI / 180)) ** 2;
          if (d <= degrees ** 2 && d < bestD && keep(id)) [best, bestD] = [id, d];
        }
      }
    }
    return best;
  }

  /** The ids of the rows within `km` of a point (up to 100 km: the cells around it). */
  within(point: Point, km: number): number[] {
    const out: number[] = [];
    // A degree of longitude narrows toward the poles: enough cells east and west for `km`.
    const wide = Math.min(180, Math.ceil(km / (111 * Math.cos(point.latitude * Math.PI / 180))));
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -wide; dx <= wide; dx++) {
        for (const id of this.#cells.get(_cell(point.latitude + dy, point.longitude + dx)) ?? []) {
          if (haversineKm(point, this.#rows[id]!) <= km) out.push(id);
        }
      }
    }
    return out;
  }
}

function _cell(lat: number, lon: number): string {
  return `${Math.floor(lat)},${Math.floor(lon)}`;
}
