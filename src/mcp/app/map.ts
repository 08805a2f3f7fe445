/**
 * @module
 * The quote builder's map of covered cities: an inline SVG drawn once per catalog from the
 * catalog's own coordinates, so it needs no tile server and fetches nothing. Two panels side
 * by side in one drawing: the world (equirectangular, a degree a unit) and Europe enlarged
 * four times, where 17 cities would otherwise sit on top of each other. Land is a matrix of
 * faint dots, one per cell of the grid that holds a town of the gazetteer
 * (`data/places.v3.bin`, GeoNames), and a light graticule; each covered city is one circle
 * with its location id in `data-id` and a `<title>` naming it. Circles closer than their own
 * size are nudged apart, a degree or two at most, so each one can be pointed at.
 */

import type { Catalog } from "../../catalog/catalog.ts";
import type { Location } from "../../catalog/records.ts";
import { type Html, html } from "../../web/html.ts";

/** A panel: the longitudes and latitudes it shows, where it sits, and its scale. */
interface Panel {
  lon: readonly [number, number];
  lat: readonly [number, number];
  /** Left edge in the drawing's units. */
  x0: number;
  /** Units per degree of latitude; a degree of longitude is `scale × cos(midLat)` there. */
  scale: number;
  /** Cosine of the panel's middle latitude (1: plain equirectangular). */
  kx: number;
  /** Graticule spacing, in degrees. */
  step: number;
}

const _WORLD: Panel = { lon: [-130, 160], lat: [-45, 72], x0: 0, scale: 1, kx: 1, step: 30 };
const _EUROPE: Panel = {
  lon: [-11, 29],
  lat: [35, 64],
  x0: 296,
  scale: 4,
  kx: Math.cos(49.5 * Math.PI / 180),
  step: 10,
};
const _HEIGHT = 117;
/** Radius of a city's circle, and the least distance between two circles' centres. */
const _RADIUS = 3;
const _SPACING = 2 * _RADIUS + 1;
/** Side of a land cell, in the drawing's units (4° in the world, 1° of latitude in Europe). */
const _CELL = 4;
/** How far a row of land dots runs past its last dot. */
const _PAST = 0.5;

interface Point {
  x: number;
  y: number;
}

function _project(panel: Panel, lon: number, lat: number): Point {
  return {
    x: panel.x0 + (lon - panel.lon[0]) * panel.scale * panel.kx,
    y: (panel.lat[1] - lat) * panel.scale,
  };
}

function _inside(panel: Panel, lon: number, lat: number): boolean {
  return lon >= panel.lon[0] && lon <= panel.lon[1] && lat >= panel.lat[0] && lat <= panel.lat[1];
}

function _width(panel: Panel): number {
  return (panel.lon[1] - panel.lon[0]) * panel.scale * panel.kx;
}

const _round = (n: number) => Math.round(n * 10) / 10;

/** The panel a city is drawn in: Europe's when it lies there, else the world's. */
function _panelOf(loc: Location): Panel {
  return _inside(_EUROPE, loc.longitude, loc.latitude) ? _EUROPE : _WORLD;
}

/**
 * Where each city's circle goes: its projection, then pushed apart from any circle nearer
 * than `_SPACING`, half each way, a few rounds (deterministic: same catalog, same drawing).
 */
function _placeCities(locations: readonly Location[]): Map<Location, Point> {
  const points = new Map(locations.map((l) => [l, _project(_panelOf(l), l.longitude, l.latitude)]));
  const all = [...points.entries()];
  for (let round = 0; round < 40; round++) {
    let moved = false;
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        const [, a] = all[i]!;
        const [, b] = all[j]!;
        const dx = b.x - a.x || 0.01 * (j - i);
        const dy = b.y - a.y;
        const d = Math.hypot(dx, dy);
        if (d >= _SPACING) continue;
        const push = (_SPACING - d) / 2 / d;
        a.x -= dx * push;
        a.y -= dy * push;
        b.x += dx * push;
        b.y += dy * push;
        moved = true;
      }
    }
    if (!moved) break;
  }
  return points;
}

/**
 * The land of one panel as one path: a dot at the centre of every cell holding a town. Each
 * row's runs of neighbouring cells are one segment, dashed into dots (`stroke-dasharray`
 * of `0 _CELL`, and the stylesheet's round caps; the dash restarts at each move). A segment
 * runs half a unit past its last dot, since a dash at a segment's very end is not drawn.
 */
function _landPath(catalog: Catalog, panel: Panel): string {
  const rows = new Map<number, Set<number>>();
  for (let id = 0; id < catalog.places.size; id++) {
    const { latitude, longitude } = catalog.places.place(id);
    if (!_inside(panel, longitude, latitude)) continue;
    const p = _project(panel, longitude, latitude);
    const row = Math.floor(p.y / _CELL);
    const col = Math.floor((p.x - panel.x0) / _CELL);
    if (row * _CELL + _CELL > _HEIGHT || (col + 1) * _CELL > _width(panel)) continue;
    let cols = rows.get(row);
    if (!cols) rows.set(row, cols = new Set());
    cols.add(col);
  }
  let d = "";
  for (const row of [...rows.keys()].sort((a, b) => a - b)) {
    const cols = [...rows.get(row)!].sort((a, b) => a - b);
    let end = -1;
    for (let i = 0; i < cols.length; i++) {
      let last = i;
      while (cols[last + 1] === cols[last]! + 1) last++;
      const run = `h${(last - i) * _CELL + _PAST}`;
      d += end < 0
        ? `M${_round(panel.x0 + cols[i]! * _CELL + _CELL / 2)} ${row * _CELL + _CELL / 2}${run}`
        : `m${(cols[i]! - end) * _CELL - _PAST} 0${run}`;
      end = cols[last]!;
      i = last;
    }
  }
  return d;
}

/** A panel's graticule: meridians and parallels every `step` degrees, as one path. */
function _graticule(panel: Panel): string {
  const first = (from: number) => Math.ceil(from / panel.step) * panel.step;
  const top = 0;
  const bottom = _round((panel.lat[1] - panel.lat[0]) * panel.scale);
  const left = panel.x0;
  const right = _round(panel.x0 + _width(panel));
  let d = "";
  for (let lon = first(panel.lon[0]); lon <= panel.lon[1]; lon += panel.step) {
    d += `M${_round(_project(panel, lon, 0).x)} ${top}V${bottom}`;
  }
  for (let lat = first(panel.lat[0]); lat <= panel.lat[1]; lat += panel.step) {
    d += `M${left} ${_round(_project(panel, 0, lat).y)}H${right}`;
  }
  return d;
}

function _frame(panel: Panel, className: string, box = panel): Html {
  const a = _project(panel, box.lon[0], box.lat[1]);
  const b = _project(panel, box.lon[1], box.lat[0]);
  return html`
    <rect class="${className}" x="${_round(a.x)}" y="${_round(a.y)}" width="${_round(b.x - a.x)}"
      height="${_round(b.y - a.y)}" />
  `;
}

function _city(loc: Location, at: Point): Html {
  const name = `${loc.city}, ${loc.country}`;
  const hours = `on site within ${loc.response_time_hours} h`;
  return html`
    <circle class="city" data-id="${loc.id}" data-city="${loc.city}" data-country="${loc.country}"
      cx="${_round(at.x)}" cy="${_round(at.y)}" r="${_RADIUS}">
      <title>${name}: ${hours}</title>
    </circle>
  `;
}

/** The `svg#map` element for this catalog's covered cities. */
export function coverageMap(catalog: Catalog): Html {
  const width = _round(_EUROPE.x0 + _width(_EUROPE));
  const count = catalog.locations.length;
  const names = catalog.locations.map((l) => `${l.city} (${l.country})`).join(", ");
  const land = _landPath(catalog, _WORLD) + _landPath(catalog, _EUROPE);
  const cities = [..._placeCities(catalog.locations)].map(([loc, at]) => _city(loc, at));
  return html`
    <svg id="map" role="img" aria-labelledby="map-title map-desc" viewBox="0 0 ${width} ${_HEIGHT}">
      <title id="map-title">Map of the ${count} covered cities</title>
      <desc id="map-desc">The world, and Europe enlarged on the right. Covered cities: ${names}.</desc>
      <path class="grid" d="${_graticule(_WORLD) + _graticule(_EUROPE)}" />
      <path class="land" stroke-dasharray="0 ${_CELL}" d="${land}" />
      ${_frame(_WORLD, "inset-frame", _EUROPE)} ${_frame(_EUROPE, "panel")}
      <text class="panel-label" x="${_EUROPE.x0 + 3}" y="8">Europe</text>
      ${cities}
      <text id="map-label" class="map-label" x="0" y="0"></text>
    </svg>
  `;
}
