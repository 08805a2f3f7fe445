/**
 * @module
 * Points by one-degree cell, for `deno task data:places` (scripts/places.ts): the nearest
 * place to a ZIP code or an airport without reading every row for each.
 */

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
}

function _cell(lat: number, lon: number): string {
  return `${Math.floor(lat)},${Math.floor(lon)}`;
}
