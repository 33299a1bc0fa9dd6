/**
 * Growth bound, "a search page left open for a day": three tabs on connectTabs with IndexedDB
 * (fake-indexeddb), a stream of keys each seen once for 5 s and dropped, three keys polled all
 * day, one tab closed and reopened every 2 h (test/soak/churn-day.ts). The doc, its tables, the
 * database, the localStorage copy and a tab's memory track the keys asked for within `retentionMs`,
 * not the keys ever seen. Scaled down to run in the unit project: 36 new keys an hour (864 in the
 * day; 20 000 took minutes) and a retention of 1 h, so the day holds 24 windows of it. Known
 * exceptions, bounded elsewhere (as in dashboard-day): a departed writer's emptied lane, and the
 * replicas seen to leave (Liveness keeps 64).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { useFakeClock } from "../harness/replicas.ts";
import { churnDay } from "./churn-day.ts";

const KEYS_PER_HOUR = 36;
/** Per departed writer: its lane, and its id among the replicas seen to leave. */
const PER_DEPARTED = (path: string) => path.startsWith("records.lanes.index.lane") || path === "engine.liveness.gone";

describe("a search page open for a day keeps what the keys of its retention window need, not every key it saw", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("at 1, 6, 12 and 24 h: doc, tables, IndexedDB, localStorage copy, memory, listeners and timers stay bounded", async () => {
    const [h1, h6, h12, h24] = await churnDay([1, 6, 12, 24], { keysPerHour: KEYS_PER_HOUR, retentionMs: 3600_000 });
    expect(h24!.keysSeen).toBe(24 * KEYS_PER_HOUR);
    // The keys of the last hour and a sweep's interval, and the polled ones.
    for (const m of [h6!, h12!, h24!]) expect(m.tables.results).toBeLessThanOrEqual(KEYS_PER_HOUR * (1 + 1 / 12) + 3 + 3);
    for (const m of [h12!, h24!]) expect(m.tables).toEqual(h6!.tables);
    expect(h24!.docBytes).toBeLessThan(1.1 * h6!.docBytes);
    expect(h24!.snapshotBytes).toBeLessThan(1.1 * h6!.snapshotBytes);
    // What a reopened tab reads: merged into the doc's state, or at most a merge's worth of updates.
    for (const m of [h6!, h12!, h24!]) {
      expect(m.idbRecords).toBeLessThanOrEqual(3 * 500);
      expect(m.idbBytes).toBeLessThan(40 * m.docBytes);
    }
    for (const [path, n] of h24!.memory) {
      if (PER_DEPARTED(path)) continue;
      const base = Math.max(h1!.memory.get(path) ?? 0, h6!.memory.get(path) ?? 0);
      expect({ path, n }).toEqual({ path, n: Math.min(n, Math.max(2 * base, base + 8)) });
    }
    for (const m of [h6!, h12!, h24!]) expect([m.docListeners, m.timers]).toEqual([h1!.docListeners, h1!.timers]);
  }, 60_000);
});
