import { expect } from "storybook/test";
import { PATH_BREAK } from "./path-break.tsx";

const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));

/**
 * Runs `check` with the canvas as wide as it is in a window `width` px wide (the page's margins
 * kept), then gives it back its own width. The scenarios' layout follows the canvas's width alone,
 * so a story test at the runner's one viewport still sees what an 800 or 1280 px window shows.
 * Two frames first: the Query devtools lay themselves out again from a ResizeObserver.
 */
export async function atWindowWidth(canvasElement: HTMLElement, width: number, check: () => void | Promise<void>) {
  const margins = document.documentElement.clientWidth - canvasElement.getBoundingClientRect().width;
  canvasElement.style.width = `${width - margins}px`;
  try {
    await frame();
    await frame();
    await check();
  } finally {
    canvasElement.style.width = "";
  }
}

/** The element's text nodes with where each starts in its textContent. */
function textNodes(el: Element): { node: Text; at: number }[] {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const nodes: { node: Text; at: number }[] = [];
  let at = 0;
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    nodes.push({ node, at });
    at += node.data.length;
  }
  return nodes;
}

/** A range over textContent's [start, end) of `el`, across the text nodes it spans. */
function rangeOf(el: Element, start: number, end: number): Range {
  const nodes = textNodes(el);
  // The last node starting at or before i: an offset at a node's end is the next one's start.
  const find = (i: number) => nodes.filter((n) => n.at <= i).at(-1)!;
  const range = document.createRange();
  const from = find(start);
  const to = find(end);
  range.setStart(from.node, start - from.at);
  range.setEnd(to.node, end - to.at);
  return range;
}

/**
 * Every word of the element's text (a JSON key, a value, a path's segment) that fits on a line is
 * on one line: it wraps between words, never inside one, and scrolls nowhere sideways.
 */
export function expectWordsWhole(el: HTMLElement): void {
  expect(el.scrollWidth, "scrolls sideways").toBeLessThanOrEqual(el.clientWidth);
  const text = el.textContent ?? "";
  for (const match of text.matchAll(/\S+/g)) {
    let start = match.index;
    for (const word of match[0].split(PATH_BREAK)) {
      const rects = [...rangeOf(el, start, start + word.length).getClientRects()].filter((r) => r.width > 0);
      const width = rects.reduce((sum, r) => sum + r.width, 0);
      const lines = new Set(rects.map((r) => Math.round(r.top)));
      if (width <= el.clientWidth) expect(lines.size, `${word} breaks across lines in ${el.clientWidth} px`).toBe(1);
      start += word.length;
    }
  }
}

/** Nothing in `el` reaches past the right edge of `box` (1 px of rounding allowed). */
export function expectWithin(el: Element, box: Element, what: string): void {
  expect(el.getBoundingClientRect().right, what).toBeLessThanOrEqual(box.getBoundingClientRect().right + 1);
}

/** All of the element's content is on one line (a button's words, or a count and its button, do not wrap apart): every box overlaps one band. */
export function expectOneLine(el: Element, what: string): void {
  const range = document.createRange();
  range.selectNodeContents(el);
  const rects = [...range.getClientRects()].filter((r) => r.width > 0);
  const [top, bottom] = [Math.max(...rects.map((r) => r.top)), Math.min(...rects.map((r) => r.bottom))];
  expect(top, `${what} wraps: ${el.textContent}`).toBeLessThan(bottom);
}

/** Every match of `phrase` in the element's text (a number and its unit: "3.0 s") is on one line. */
export function expectPhrasesWhole(el: Element, phrase: RegExp, where: string): void {
  for (const match of (el.textContent ?? "").matchAll(new RegExp(phrase, "g"))) {
    const rects = [...rangeOf(el, match.index, match.index + match[0].length).getClientRects()].filter((r) => r.width > 0);
    expect(new Set(rects.map((r) => Math.round(r.bottom))).size, `"${match[0]}" split across lines ${where}`).toBe(1);
  }
}
