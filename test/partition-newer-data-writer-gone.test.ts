/**
 * Revisions numbered apart merge by revision; the newer data is recorded again at the winner's
 * revision (keepNewer). Its writer may be gone by the heal (the tab that fetched it closed): then
 * the replica with the lowest id among those present records it, exactly one of them, so every
 * replica shows the newer data, not the other side's hour-old one until its next freshness check.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { internalsOf } from "../src/internals.ts";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { linkedAwareness } from "./devtools/awareness.ts";
import { cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

/** Three replicas with presence: `writer` and `tab` on one device, `far` on another. */
function threeReplicas() {
  const links = linkedAwareness(3);
  const c = cluster(0, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  const [writer, tab, far] = ["r-writer", "r-b-tab", "r-c-far"].map((replicaId, i) => c.join({ replicaId, awareness: links.all[i]! }));
  return { c, links, writer: writer!, tab: tab!, far: far! };
}

/** Records written into the results table by these replicas. */
function countWrites(stores: SharedFetchStoreWithExtras[]): () => number {
  const spies = stores.map((s) => vi.spyOn(internalsOf(s).records.results, "set"));
  return () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
}

describe("keepNewer: the newer data's writer closed before the heal (freshness across partitions)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the lowest replica id present records it at the winner's revision; every replica shows it, fresh", async () => {
    const { c, links, writer, tab, far } = threeReplicas();
    c.net.isolate(c.docOf(far));
    for (let i = 0; i < 3; i++) await until(far.refetch(R)); // far's revisions 1 to 3, { n: 3 } last
    await tick(HOUR);
    expect((await until(writer.ensure(R))).data).toEqual({ n: 4 }); // the writer's revision 1
    await tick(10);
    expect(tab.snapshot(R).data).toEqual({ n: 4 });
    writer.destroy(); // its tab closed: presence leaves with it
    c.crash(writer);
    await tick(10);
    expect(internalsOf(tab).records.results.get(tab.keyOf(R))!.by).toBe("r-writer");
    const writes = countWrites([tab, far]);
    c.net.delayMs = 5; // each side hears of the other's rewrite only after deciding its own
    c.net.heal(c.docOf(far));
    await tick(50);
    for (const s of [tab, far]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: 4 } });
      expect(s.resultInfo(R)!.rev).toBe(3);
    }
    expect(writes()).toBe(1); // exactly one replica records it: not one write per replica present
    expect((await until(far.ensure(R, { maxAgeMs: 2 * HOUR }))).data).toEqual({ n: 4 });
    expect(c.host.calls).toHaveLength(4);
    links.destroy();
  });
});
