/**
 * The keys table's measured row heights are bounded by the keys it lists: a panel left open for
 * days on a doc whose keys come and go (retention sweeps them) forgets the heights of keys no
 * longer listed, instead of keeping one per key it ever showed.
 */
import { expect, it } from "vitest";
import { remeasured, ROW_ESTIMATE_PX } from "../../devtools/use-virtual-rows.ts";

it("10 000 keys coming and going, 20 listed at a time: the heights kept are of the 20 listed", () => {
  let heights: ReadonlyMap<string, number> = new Map();
  for (let i = 0; i < 10_000; i++) {
    const keys = Array.from({ length: 20 }, (_, j) => `k${i + j}`);
    // The rows in view measured (taller than the estimate, as a row whose details are open).
    heights = remeasured(
      heights,
      keys.slice(0, 8).map((k): [string, number] => [k, ROW_ESTIMATE_PX + 30]),
      keys,
    );
  }
  expect(heights.size).toBeLessThanOrEqual(20);
  expect(heights.get("k9999")).toBe(ROW_ESTIMATE_PX + 30);
});

it("nothing that differs and nothing to forget keeps the same map (the resize observer settles)", () => {
  const keys = ["a", "b"];
  const first = remeasured(new Map(), [["a", 70]], keys);
  expect(remeasured(first, [["a", 70.4]], keys)).toBe(first);
  expect(remeasured(first, [["b", ROW_ESTIMATE_PX]], keys)).toBe(first);
});
