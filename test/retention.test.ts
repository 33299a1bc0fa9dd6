import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const HOUR = 3600_000;

describe("growth: records nobody asked for within the retention window are removed", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a key not asked for in 24 h is swept by whichever replica notices; a key in use is kept", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: "x" });
    const old = { url: `${URL_A}/old` };
    const used = { url: `${URL_A}/used` };
    await until(a!.ensure(old));
    await until(a!.ensure(used));
    const unsubscribe = b!.subscribe(used, () => {}); // b shows `used` on screen the whole time
    await tick(25 * HOUR);
    expect(b!.snapshot(old)).toMatchObject({ status: "success" }); // nobody noticed yet: no timer sweeps
    const swept: string[][] = [];
    b!.onEvent((e) => e.type === "swept" && swept.push(e.keys));
    await until(b!.ensure({ url: `${URL_A}/new` })); // b is active again: it notices
    expect(swept).toEqual([[b!.keyOf(old)]]);
    expect(a!.snapshot(old)).toEqual({ status: "idle" });
    expect(a!.snapshot(used)).toMatchObject({ status: "success", data: "x" });
    unsubscribe();
    c.destroy();
  });

  it("the doc does not grow with request history (1 000 refetch cycles over 10 keys)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { v: Math.random() } });
    const size = () => Y.encodeStateAsUpdate(c.docOf(a!)).byteLength;
    const cycle = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await until((i % 2 ? a! : b!).refetch({ url: `${URL_A}/${i % 10}` }), 1);
    };
    await cycle(0, 100);
    const after100 = size();
    await cycle(100, 1000);
    expect(size()).toBeLessThan(after100 * 1.2);
    c.destroy();
  }, 60_000); // 1 000 request cycles: seconds of real time on a loaded machine
});
