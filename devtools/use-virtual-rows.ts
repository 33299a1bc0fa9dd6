"use client";

import { useLayoutEffect, useRef, useState, type UIEvent } from "react";

/**
 * Windowing of the keys table, written here rather than taken from a library: the panel needs
 * one vertical list of table rows whose heights are measured after render, which is ~80 lines,
 * while a virtualiser would add kilobytes to a bundle that ships the panel on purpose.
 */
export const ROW_ESTIMATE_PX = 40;
/** Rows rendered beyond each edge of the viewport: fast scrolling shows rows, not blank space. */
export const OVERSCAN_ROWS = 6;
/** jsdom and a panel not laid out yet have no height: assume a screenful. */
export const FALLBACK_VIEWPORT_PX = 480;

export type RowWindow = { start: number; end: number; top: number; bottom: number };

/** Rows [start, end) cover the viewport (plus overscan); `top`/`bottom` are the spacers' heights in px. */
export function windowOf(
  count: number,
  heightOf: (i: number) => number,
  scrollTop: number,
  viewportPx: number,
  overscan = OVERSCAN_ROWS,
): RowWindow {
  let offset = 0;
  let first = count;
  for (let i = 0; i < count; i++) {
    const h = heightOf(i);
    if (offset + h > scrollTop) {
      first = i;
      break;
    }
    offset += h;
  }
  let last = first;
  for (let y = offset; last < count && y < scrollTop + viewportPx; last++) y += heightOf(last);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, last + overscan);
  let top = 0;
  let bottom = 0;
  for (let i = 0; i < start; i++) top += heightOf(i);
  for (let i = end; i < count; i++) bottom += heightOf(i);
  return { start, end, top, bottom };
}

/**
 * The heights with the rows measured now (key, px), of the `keys` listed only: a new map only when
 * one differs (the observer then settles), or when keys no longer listed are to go (a panel left
 * open for days sees thousands come and go).
 */
export function remeasured(
  old: ReadonlyMap<string, number>,
  rows: [string, number][],
  keys: readonly string[],
): ReadonlyMap<string, number> {
  let next: Map<string, number> | undefined;
  if (old.size > keys.length) {
    const live = new Set(keys);
    next = new Map([...old].filter(([key]) => live.has(key)));
  }
  for (const [key, h] of rows) if (h > 0 && Math.abs((old.get(key) ?? ROW_ESTIMATE_PX) - h) >= 1) (next ??= new Map(old)).set(key, h);
  return next ?? old;
}

/**
 * The window of `keys` to render in the scroller. Rows are measured whenever the table or the
 * scroller changes size (a row's details open, the dock is resized, other rows come into view);
 * without ResizeObserver (jsdom) every row counts as ROW_ESTIMATE_PX.
 */
export function useVirtualRows(keys: readonly string[]) {
  // State, not refs: the window is computed during render from what the last layout measured.
  const [scroller, attach] = useState<HTMLDivElement | null>(null);
  const [heights, setHeights] = useState<ReadonlyMap<string, number>>(() => new Map());
  // Read by the next measure: only a measure adds heights, and it drops those of keys gone.
  const listed = useRef(keys);
  useLayoutEffect(() => {
    listed.current = keys;
  });
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(FALLBACK_VIEWPORT_PX);
  useLayoutEffect(() => {
    if (!scroller || typeof ResizeObserver === "undefined") return;
    const measure = () => {
      setViewport(scroller.clientHeight || FALLBACK_VIEWPORT_PX);
      const rows: [string, number][] = [];
      for (const row of scroller.querySelectorAll<HTMLElement>("tr[data-key]")) {
        const sibling = row.nextElementSibling;
        const details = sibling instanceof HTMLElement && sibling.dataset.detailsOf ? sibling : null;
        rows.push([row.dataset.key!, row.getBoundingClientRect().height + (details?.getBoundingClientRect().height ?? 0)]);
      }
      setHeights((old) => remeasured(old, rows, listed.current));
    };
    const observer = new ResizeObserver(measure);
    observer.observe(scroller);
    const table = scroller.querySelector("table");
    if (table) observer.observe(table);
    return () => observer.disconnect();
  }, [scroller]);
  const onScroll = (event: UIEvent<HTMLElement>) => setScrollTop(event.currentTarget.scrollTop);
  const w = windowOf(keys.length, (i) => heights.get(keys[i]!) ?? ROW_ESTIMATE_PX, scrollTop, viewport);
  return { attach, onScroll, ...w };
}
