import { describe, expect, it } from "vitest";
import { windowOf } from "../../devtools/use-virtual-rows.ts";

describe("windowOf (the keys table's windowing)", () => {
  it("covers the viewport plus overscan; the spacers carry the height of every row not rendered", () => {
    const h = () => 40;
    expect(windowOf(1000, h, 0, 400, 5)).toEqual({ start: 0, end: 15, top: 0, bottom: 985 * 40 });
    expect(windowOf(1000, h, 20_000, 400, 5)).toEqual({ start: 495, end: 515, top: 495 * 40, bottom: 485 * 40 });
    expect(windowOf(1000, h, 40_000, 400, 5)).toEqual({ start: 995, end: 1000, top: 995 * 40, bottom: 0 });
    expect(windowOf(0, h, 0, 400, 5)).toEqual({ start: 0, end: 0, top: 0, bottom: 0 });
  });

  it("a measured tall row (its details open) shifts the window by its real height", () => {
    const h = (i: number) => (i === 2 ? 400 : 40);
    // Rows 0–1 (80 px), row 2 (400 px): at 480 px the first visible row is 3.
    const w = windowOf(100, h, 480, 80, 0);
    expect(w).toMatchObject({ start: 3, end: 5, top: 480 });
    expect(w.top + (w.end - w.start) * 40 + w.bottom).toBe(99 * 40 + 400);
  });
});
