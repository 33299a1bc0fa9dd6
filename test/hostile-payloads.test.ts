import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { ROOT, TABLES } from "../src/internals.ts";
import { MAX_JSON_VALUES, validateJson } from "../src/core/records.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const honest = { url: `${URL_A}/honest` };
const target = { url: `${URL_A}/target` };

/** Y.Arrays nested `depth` deep, built level by level (each level integrated before the next). */
function nestedArrays(lane: Y.Array<unknown>, depth: number): void {
  let outer = lane;
  for (let i = 0; i < depth; i++) {
    const inner = new Y.Array<unknown>();
    outer.push([inner]);
    outer = inner;
  }
  outer.push([{ t: TABLES.results, k: "deep-inside", v: { rev: 1, data: 1 }, s: 1 }]);
}

/**
 * Issue 8: no record a peer writes, however large or deeply nested, may keep honest changes from
 * reaching waiters and subscribers at once. Validation stops at the first problem and is bounded
 * by MAX_JSON_VALUES; each element is validated once, when it arrives.
 */
describe("invariant 14: hostile payloads cost what they are once, and delay nothing honest", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("an honest result written in the same update as huge and deeply nested garbage reaches its waiter and subscriber at once", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const peer = new Y.Doc();
    c.net.add(peer);
    c.host.auto = () => ({ status: 200, body: "honest" });
    // b waits for `honest` and shows it; a holds the request until the peer's update arrives.
    c.host.auto = undefined;
    const waiting = b!.ensure(honest);
    let notified = 0;
    b!.subscribe(honest, () => notified++);
    await tick(100);
    const call = c.host.calls[0]!;
    const key = b!.keyOf(target);
    const wide = Array.from({ length: 20_000 }, (_, i) => ({ i, pad: "w" }));
    // One transaction of the hostile peer: a lane of garbage, Y.Arrays nested 500 deep, a wide
    // record nested too deeply at its very end (found after 40 000 values), one 500 levels deep.
    peer.transact(() => {
      const lane = new Y.Array<unknown>();
      peer.getArray<unknown>(ROOT).push([lane]);
      lane.push([{ t: TABLES.results, k: key, v: { rev: 5, data: [...wide, JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`)] }, s: 1 }]);
      lane.push([{ t: TABLES.results, k: key, v: { rev: 6, data: JSON.parse(`${"[".repeat(500)}${"]".repeat(500)}`) }, s: 2 }]);
      const nest = new Y.Array<unknown>();
      lane.push([nest]);
      nestedArrays(nest, 500);
    });
    await tick();
    // The honest answer arrives right behind it.
    call.respond(200, "honest");
    await expect(until(waiting, 1, 5)).resolves.toEqual({ status: "success", data: "honest" });
    expect(notified).toBeGreaterThan(0);
    expect(a!.snapshot(honest)).toEqual({ status: "success", data: "honest" });
    const reasons = b!.malformed().map((m) => m.reason);
    expect(reasons.filter((r) => r === "result.data is nested more than 64 levels deep")).toHaveLength(2);
    expect(reasons).toContain("entry is not a { t, k, v, s } record");
    expect(b!.snapshot(target)).toEqual({ status: "idle" });
    c.destroy();
  }, 30_000);

  it("validation stops at the first problem and at MAX_JSON_VALUES, whatever the size or depth", () => {
    expect(validateJson(Array.from({ length: MAX_JSON_VALUES + 1 }, () => 0))).toBe(`holds more than ${MAX_JSON_VALUES} values`);
    expect(validateJson(Array.from({ length: MAX_JSON_VALUES - 1 }, () => 0))).toBeNull();
    // 100 000 levels: a recursive check without a bound would overflow the stack.
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(validateJson(deep)).toBe("is nested more than 64 levels deep");
    const early = new Array<number>(MAX_JSON_VALUES * 2).fill(0);
    early[0] = Infinity;
    expect(validateJson(early)).toBe("holds a number JSON cannot carry (Infinity or NaN, e.g. from 1e999)");
  });
});
