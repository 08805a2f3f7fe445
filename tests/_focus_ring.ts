/**
 * @module
 * The focus ring as a person sees it, measured in pixels (issue 41, point 2). For every stop
 * of the Tab order the test takes two screenshots of the same patch, around the control with
 * focus and after `blur()`, and compares them pixel by pixel: what changed is the indicator,
 * and what it changed from is the background it is drawn on. A pixel counts where the two
 * colours differ by at least 3:1 (WCAG 2.2, 1.4.11 and 2.4.13's "change of contrast"). A stop
 * passes when those pixels cover at least a 2 CSS px perimeter of the control (2.4.13's
 * minimum area) and lie along all four of its edges (outside or just inside them), so a ring
 * faint on one background cannot pass because a border changed elsewhere.
 *
 * Screenshots are PNG (lossless); they are decoded here with `node:zlib`, which is all the
 * format needs for the 8-bit RGB and RGBA images Chromium writes.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { inflateSync } from "node:zlib";
import type { ElementHandle, Frame, JSHandle, Page } from "npm:playwright-core@1.65.1";

/** A decoded image: `width` × `height` pixels, `channels` bytes each, row by row. */
interface Image {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

/** An 8-bit, non-interlaced RGB or RGBA PNG, as Chromium's screenshots are. */
export function decodePng(png: Uint8Array): Image {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let width = 0, height = 0, channels = 0;
  const idat: Uint8Array[] = [];
  for (let at = 8; at < png.length;) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      const [depth, colour, , , interlace] = body.subarray(8);
      assert.ok(depth === 8 && (colour === 2 || colour === 6) && interlace === 0, "8-bit RGB(A)");
      channels = colour === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(body);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? data[y * stride + i - channels]! : 0;
      const b = y > 0 ? data[(y - 1) * stride + i]! : 0;
      const c = i >= channels && y > 0 ? data[(y - 1) * stride + i - channels]! : 0;
      data[y * stride + i] = (row[i]! + _predict(filter, a, b, c)) & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** PNG's five row filters (RFC 2083, 6). */
function _predict(filter: number, a: number, b: number, c: number): number {
  if (filter === 0) return 0;
  if (filter === 1) return a;
  if (filter === 2) return b;
  if (filter === 3) return (a + b) >> 1;
  const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** WCAG 2's relative luminance of an sRGB colour. */
function _luminance(r: number, g: number, b: number): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG 2's contrast ratio of two sRGB colours, 1 to 21. */
export function contrast(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const [l1, l2] = [_luminance(x[0]!, x[1]!, x[2]!), _luminance(y[0]!, y[1]!, y[2]!)];
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}

/** One Tab stop as measured. */
export interface RingMeasure {
  /** The control: its tag, id or class, and its text or label, for a reader of a failure. */
  stop: string;
  /** Pixels (device pixels, one per CSS px here) that changed by 3:1 or more. */
  area: number;
  /** A 2 CSS px perimeter of the control. */
  needed: number;
  /** Whether such pixels lie above, below, left and right of the control. */
  sides: boolean;
  /** Both: enough pixels, on every side. */
  passes: boolean;
}

const _MARGIN = 8;
/** How far inside the control's edge a ring drawn inward (a negative offset) may lie. */
const _EDGE = 6;

/**
 * The pixels that changed by 3:1 or more between `focused` and `blurred` (the same patch,
 * the control at `box` inside it): their count, and whether every edge of `box` has some.
 */
function _compare(
  focused: Image,
  blurred: Image,
  box: { x: number; y: number; width: number; height: number },
): { area: number; sides: boolean } {
  let area = 0;
  const sides = { top: false, bottom: false, left: false, right: false };
  for (let y = 0; y < focused.height; y++) {
    for (let x = 0; x < focused.width; x++) {
      const i = (y * focused.width + x) * focused.channels;
      const j = (y * blurred.width + x) * blurred.channels;
      const a = focused.data.subarray(i, i + 3), b = blurred.data.subarray(j, j + 3);
      if (contrast(a, b) < 3) continue;
      area++;
      if (y < box.y + _EDGE) sides.top = true;
      if (y >= box.y + box.height - _EDGE) sides.bottom = true;
      if (x < box.x + _EDGE) sides.left = true;
      if (x >= box.x + box.width - _EDGE) sides.right = true;
    }
  }
  return { area, sides: Object.values(sides).every(Boolean) };
}

/** The element that has focus, looking into frames; null when it is the body (none). */
async function _focused(page: Page): Promise<ElementHandle | null> {
  let frame: Frame | null = page.mainFrame();
  while (frame) {
    const handle: JSHandle = await frame.evaluateHandle(() => {
      const doc = (globalThis as unknown as { document: { activeElement: unknown; body: unknown } })
        .document;
      return doc.activeElement === doc.body ? null : doc.activeElement;
    });
    const element: ElementHandle | null = handle.asElement();
    if (!element) return null;
    const inner: Frame | null = await element.contentFrame();
    if (!inner) return element;
    frame = inner;
  }
  return null;
}

/** How a failure names a stop. */
function _describe(element: ElementHandle): Promise<string> {
  return element.evaluate((node) => {
    const el = node as unknown as {
      localName: string;
      id: string;
      className: string;
      textContent: string | null;
      labels?: { textContent: string | null }[] | null;
    };
    const name = (el.labels?.[0]?.textContent ?? el.textContent ?? "").trim().replace(/\s+/g, " ");
    const which = el.id
      ? `#${el.id}`
      : el.className
      ? `.${String(el.className).split(" ")[0]}`
      : "";
    return `${el.localName}${which} "${name.slice(0, 40)}"`;
  });
}

/**
 * Measures the focus ring of the stop that has focus now, as the module says. The page is
 * 1 device pixel per CSS px; the patch is the control's box and `_MARGIN` around it.
 */
async function _measure(page: Page, element: ElementHandle): Promise<RingMeasure> {
  // In the middle of the window: a ring at the window's edge would be cut off.
  await element.evaluate((node) =>
    (node as unknown as { scrollIntoView(o: unknown): void }).scrollIntoView({ block: "center" })
  );
  const box = await element.boundingBox();
  assert.ok(box, "a stop of the Tab order has a box");
  const viewport = page.viewportSize()!;
  const x = Math.max(0, Math.floor(box.x) - _MARGIN);
  const y = Math.max(0, Math.floor(box.y) - _MARGIN);
  const clip = {
    x,
    y,
    width: Math.min(viewport.width, Math.ceil(box.x + box.width) + _MARGIN) - x,
    height: Math.min(viewport.height, Math.ceil(box.y + box.height) + _MARGIN) - y,
  };
  const shot = async () =>
    decodePng(await page.screenshot({ clip, animations: "disabled", caret: "hide" }));
  const focused = await shot();
  await element.evaluate((node) => (node as unknown as { blur(): void }).blur());
  const blurred = await shot();
  // A control may leave the window without focus (the skip link); one that moved within it
  // means the page was still moving, and the two shots compare different things.
  const after = await element.boundingBox();
  if (after && after.y + after.height > 0) {
    assert.deepEqual(
      after,
      box,
      "the page moved between the two screenshots: wait until it settles",
    );
  }
  const inner = { x: box.x - x, y: box.y - y, width: box.width, height: box.height };
  const { area, sides } = _compare(focused, blurred, inner);
  const needed = Math.round(4 * (box.width + box.height));
  return {
    stop: await _describe(element),
    area,
    needed,
    sides,
    passes: sides && area >= needed,
  };
}

/**
 * Presses Tab through the page from its start until focus leaves it or comes back, and
 * measures each stop's ring. `within` keeps the stops of
 * one frame (the quote builder's); the others are passed over, unmeasured.
 */
export async function measureTabStops(page: Page, within?: Frame): Promise<RingMeasure[]> {
  const seen: RingMeasure[] = [];
  const visited = new Set<string>();
  let last = "";
  // Scrolling at once, not smoothly: a screenshot is of where the page went.
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.evaluate(() => {
    // Focus the body for a moment: the next Tab starts from the top of the page.
    const body = (globalThis as unknown as {
      document: { body: { tabIndex: number; focus(): void; removeAttribute(n: string): void } };
    }).document.body;
    body.tabIndex = -1;
    body.focus();
    body.removeAttribute("tabindex");
  });
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press("Tab");
    // Focus that moved into a frame may show there a moment later: a second to arrive.
    let element = await _focused(page);
    for (let wait = 0; !element && wait < 10; wait++) {
      await new Promise((r) => setTimeout(r, 100));
      element = await _focused(page);
    }
    if (!element) break;
    const key = await element.evaluate((node) => {
      const n = node as unknown as { __stop?: string };
      return n.__stop ??= crypto.randomUUID();
    });
    // A date or time field takes several presses (one per part): measured once.
    if (key === last) continue;
    if (visited.has(key)) break;
    visited.add(key);
    last = key;
    if (within && (await element.ownerFrame()) !== within) continue;
    seen.push(await _measure(page, element));
  }
  return seen;
}

/** Asserts that every stop passes, naming each one that does not. */
export function assertRingsSeen(state: string, stops: RingMeasure[]): void {
  assert.ok(stops.length > 0, `${state}: the Tab order has stops`);
  const faint = stops.filter((s) => !s.passes).map((s) =>
    `${s.stop}: ${s.area} px of ${s.needed} changed by 3:1${s.sides ? "" : ", not on every side"}`
  );
  assert.deepEqual(faint, [], `${state}: focus rings under 3:1 against their background`);
}
