import { useLayoutEffect, useReducer, useRef, useState, type UIEvent } from "react";

/**
 * Windowing of the keys table, written here rather than taken from a library: the panel needs
 * one vertical list of table rows whose heights are measured after render, which is ~60 lines,
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

/** The window of `keys` to render in the scroller, re-measured after each render (rows grow when their details open). */
export function useVirtualRows(keys: readonly string[]) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(FALLBACK_VIEWPORT_PX);
  const [, remeasured] = useReducer((n: number) => n + 1, 0);
  useLayoutEffect(() => {
    const el = scrollerRef.current;
    if (!el) return;
    let changed = false;
    for (const row of el.querySelectorAll<HTMLElement>("tr[data-key]")) {
      const details =
        row.nextElementSibling instanceof HTMLElement && row.nextElementSibling.dataset.detailsOf ? row.nextElementSibling : null;
      const h = row.getBoundingClientRect().height + (details?.getBoundingClientRect().height ?? 0);
      const key = row.dataset.key!;
      if (h > 0 && Math.abs((heights.current.get(key) ?? ROW_ESTIMATE_PX) - h) >= 1) {
        heights.current.set(key, h);
        changed = true;
      }
    }
    const vp = el.clientHeight || FALLBACK_VIEWPORT_PX;
    if (vp !== viewport) setViewport(vp);
    if (changed) remeasured();
  });
  const onScroll = (event: UIEvent<HTMLElement>) => setScrollTop(event.currentTarget.scrollTop);
  const w = windowOf(keys.length, (i) => heights.current.get(keys[i]!) ?? ROW_ESTIMATE_PX, scrollTop, viewport);
  return { scrollerRef, onScroll, ...w };
}
