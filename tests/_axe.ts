/**
 * @module
 * axe-core in the browser tests (issue 41, point 5): the engine, pinned here and locked in
 * deno.dev.lock, is evaluated in the page or frame under test (through the DevTools
 * protocol, so the site's 'self'-only CSP does not stand in its way) and run on WCAG 2.0,
 * 2.1 and 2.2 A and AA and axe's best practices. A state fails on any violation: the
 * serious and critical ones always, and the lower ones because no lower one has been
 * accepted (the list of accepted violations is empty, so every one is new). A "needs
 * review" result (axe could not decide) fails too unless {@linkcode REVIEWED} names it with
 * the reason it is not a defect. Each state's findings are written to
 * test-artifacts/axe/<state>.json.
 */

import assert from "node:assert/strict";
import axe from "npm:axe-core@4.14.1";
import type { Frame, Page } from "npm:playwright-core@1.65.1";
import { ARTIFACTS } from "./_browser.ts";
import { contrast, decodePng } from "./_focus_ring.ts";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"];

/** One rule's result on one state: the rule, its impact and the elements it names. */
export interface Finding {
  rule: string;
  impact: string | null;
  help: string;
  targets: string[];
  /** axe's words on the first element, for a reader of a failure. */
  summary: string;
}

/** A "needs review" result that was looked at and is not a defect. */
interface Reviewed {
  rule: string;
  /** Where: the element named matches this CSS selector or is inside an element that does. */
  within: string;
  /**
   * For `color-contrast`: the contrast the text's colour must have against every pixel of
   * its box with the text hidden, measured in a screenshot each run.
   */
  minimum?: number;
  /** Why it is not a defect: what was measured or read instead. */
  reason: string;
}

/**
 * The "needs review" results that were reviewed, with the reason each is not a defect. A
 * result not named here fails the state it appears in.
 */
export const REVIEWED: readonly Reviewed[] = [
  {
    rule: "color-contrast",
    within: ".hero",
    minimum: 4.5,
    reason: "text on the hero's navy gradient, which axe does not measure: each text's colour " +
      "is measured against every pixel of its box with the text hidden",
  },
  {
    rule: "color-contrast",
    within: ".section-dark",
    minimum: 4.5,
    reason: "text on the agents section's navy gradient, measured as the hero's",
  },
  {
    rule: "color-contrast",
    within: "#map",
    minimum: 4.5,
    reason: "the quote builder's map labels, which axe sees overlapped by the map's frames " +
      "(outlines, not a background): each label's fill is measured against the pixels behind " +
      "it (the map's background, and the selected city's halo)",
  },
  {
    rule: "color-contrast",
    within: "select",
    minimum: 4.5,
    reason: "a select's background image is its arrow, two small gradients at its right end, " +
      "not behind its text, which is measured as the hero's",
  },
];

/** What axe found on one state. */
export interface AxeReport {
  state: string;
  violations: Finding[];
  incomplete: Finding[];
  /** The lowest contrast measured of each reviewed `color-contrast` result's text. */
  measured?: Record<string, number>;
}

/** Runs axe-core in `frame` (a page or a frame of one) and returns what it found. */
export async function runAxe(frame: Page | Frame, state: string): Promise<AxeReport> {
  const installed = await frame.evaluate(() => "axe" in globalThis);
  if (!installed) await frame.evaluate(axe.source);
  const found = await frame.evaluate(async (tags) => {
    type Node = { target: unknown[]; failureSummary?: string };
    type Result = { id: string; impact?: string | null; help: string; nodes: Node[] };
    const run = (globalThis as unknown as {
      axe: {
        run(options: unknown): Promise<{ violations: Result[]; incomplete: Result[] }>;
      };
    }).axe.run;
    const results = await run({
      runOnly: { type: "tag", values: tags },
      resultTypes: ["violations", "incomplete"],
    });
    const flat = (list: Result[]) =>
      list.map((r) => ({
        rule: r.id,
        impact: r.impact ?? null,
        help: r.help,
        targets: r.nodes.map((n) => n.target.map(String).join(" >>> ")),
        summary: (r.nodes[0]?.failureSummary ?? "").replace(/\s+/g, " ").trim(),
      }));
    return { violations: flat(results.violations), incomplete: flat(results.incomplete) };
  }, TAGS);
  return { state, ...found };
}

/** Writes `report` to test-artifacts/axe/<state>.json. */
async function _keep(report: AxeReport): Promise<void> {
  const dir = new URL("axe/", ARTIFACTS);
  await Deno.mkdir(dir, { recursive: true });
  const file = report.state.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
  await Deno.writeTextFile(new URL(`${file}.json`, dir), JSON.stringify(report, null, 1));
}

/** Whether the element axe names `target` in `frame` is or is inside one `within` selects. */
function _inside(frame: Page | Frame, target: string, within: string): Promise<boolean> {
  return frame.evaluate(([t, w]) => {
    const doc = (globalThis as unknown as {
      document: { querySelector(s: string): { closest(s: string): unknown } | null };
    }).document;
    return Boolean(doc.querySelector(t)?.closest(w));
  }, [target, within] as const);
}

/** An element as the page-side functions below use it (Deno's own types have no DOM). */
type Styled = {
  style: {
    setProperty(name: string, value: string, priority: string): void;
    removeProperty(name: string): void;
  };
  querySelectorAll(selector: string): Styled[];
  namespaceURI: string | null;
};

/** What hides text: its colour, and an SVG text's fill (its stroke, a halo, stays). */
const _TEXT_PAINT = ["color", "-webkit-text-fill-color", "fill"];

/**
 * The lowest contrast of the text colour of the element axe names `target` against the
 * pixels behind its text: its box is screenshot as shown, then with its text (its
 * descendants' too) made transparent; the pixels that differ are the text's, and the second
 * shot has what is behind them.
 */
async function _textContrast(frame: Page | Frame, target: string): Promise<number> {
  const element = await frame.$(target);
  assert.ok(element, `${target} is there`);
  await element.scrollIntoViewIfNeeded();
  const shot = async () =>
    decodePng(await element.screenshot({ animations: "disabled", caret: "hide" }));
  const shown = await shot();
  const colour = await element.evaluate((node, paint) => {
    const el = node as unknown as Styled;
    const page = globalThis as unknown as {
      getComputedStyle(e: Styled): { color: string; fill: string };
    };
    const style = page.getComputedStyle(el);
    const svg = el.namespaceURI === "http://www.w3.org/2000/svg";
    const rgba = (svg ? style.fill : style.color).match(/[\d.]+/g)!.map(Number);
    // Through the CSSOM, which the site's CSP allows (an inline <style> it would refuse).
    for (const each of [el, ...el.querySelectorAll("*")]) {
      for (const name of paint) each.style.setProperty(name, "transparent", "important");
    }
    return rgba;
  }, _TEXT_PAINT);
  const hidden = await shot();
  await element.evaluate((node, paint) => {
    const el = node as unknown as Styled;
    for (const each of [el, ...el.querySelectorAll("*")]) {
      for (const name of paint) each.style.removeProperty(name);
    }
  }, _TEXT_PAINT);
  const [r, g, b, alpha = 1] = colour;
  let lowest = Infinity;
  for (let i = 0; i < hidden.data.length; i += hidden.channels) {
    const bg = hidden.data.subarray(i, i + 3);
    const text = shown.data.subarray(i, i + 3);
    if (
      Math.abs(text[0]! - bg[0]!) + Math.abs(text[1]! - bg[1]!) + Math.abs(text[2]! - bg[2]!) < 6
    ) {
      continue;
    }
    // Text drawn at `alpha` over the pixel, as the browser blends it.
    const fg = [r!, g!, b!].map((c, k) => alpha * c + (1 - alpha) * bg[k]!);
    lowest = Math.min(lowest, contrast(fg, bg));
  }
  assert.ok(lowest < Infinity, `${target}: its text was seen`);
  return lowest;
}

/**
 * The "needs review" results of `report` that {@linkcode REVIEWED} does not name, or that it
 * names with a minimum contrast the text does not reach; the contrasts measured are added to
 * the report.
 */
async function _unreviewed(frame: Page | Frame, report: AxeReport): Promise<string[]> {
  const unreviewed: string[] = [];
  for (const f of report.incomplete) {
    for (const target of f.targets) {
      let review: Reviewed | undefined;
      for (const r of REVIEWED) {
        if (r.rule === f.rule && await _inside(frame, target, r.within)) review = r;
        if (review) break;
      }
      if (!review) {
        unreviewed.push(`${f.rule} (${f.impact}) ${target}: ${f.summary}`);
      } else if (review.minimum !== undefined) {
        const measured = await _textContrast(frame, target);
        (report.measured ??= {})[target] = Math.round(measured * 100) / 100;
        if (measured < review.minimum) {
          unreviewed.push(`${f.rule} ${target}: ${measured.toFixed(2)}:1 < ${review.minimum}:1`);
        }
      }
    }
  }
  return unreviewed;
}

/**
 * Runs axe on `frame` as the state `state` and asserts it found no violation and no "needs
 * review" result that was not reviewed.
 */
export async function assertAxeClean(frame: Page | Frame, state: string): Promise<AxeReport> {
  const report = await runAxe(frame, state);
  const unreviewed = await _unreviewed(frame, report);
  await _keep(report);
  const violations = report.violations.map((f) =>
    `${f.rule} (${f.impact}): ${f.help} at ${f.targets.join(", ")}: ${f.summary}`
  );
  assert.deepEqual(violations, [], `${state}: axe-core violations`);
  assert.deepEqual(unreviewed, [], `${state}: axe-core results not reviewed`);
  return report;
}
