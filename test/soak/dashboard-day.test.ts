/**
 * Growth bound, "a dashboard left open for a day": three tabs polling, tabs closed and reopened,
 * one crashing now and then, keys coming and going (test/soak/dashboard-day.ts). What a replica
 * keeps — the doc's records and encoded size, its in-memory maps and sets, its listeners and
 * timers, an open devtools panel's buffers — tracks the live keys and replicas, not the hours, the
 * polls, or the replicas that ever lived. Two known exceptions, bounded elsewhere: a departed
 * writer's emptied lane stays in the doc (only its writer may remove it: README, "Storage that
 * does not grow with history"), and the replicas seen to leave are kept for the inspector until
 * there are 64 (Liveness.prune). A fake fetch under fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { useFakeClock } from "../harness/replicas.ts";
import { dashboardDay } from "./dashboard-day.ts";

/** Per replica that ever wrote: its lane (see above). */
const PER_DEPARTED_LANE = (path: string) => path.startsWith("records.lanes.index.lanes") && !path.endsWith("ids");
const DEPARTED_KEPT = 64;

describe("a dashboard open for a day keeps what its live keys and replicas need, not its history", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("at 1, 6, 12 and 24 h: doc size, records, memory, listeners and timers stay bounded", async () => {
    const [h1, h6, h12, h24] = await dashboardDay([1, 6, 12, 24]);
    // A fixed set of 48 keys, all seen by 6 h: the doc holds them and the claims that stand.
    expect(h24!.docBytes).toBeLessThan(2 * h1!.docBytes);
    for (const m of [h12!, h24!]) expect(m.tables).toEqual(h6!.tables);
    expect(h24!.tables.results).toBeLessThanOrEqual(48);
    for (const [path, n] of h24!.memory) {
      if (PER_DEPARTED_LANE(path) || path.startsWith("records.lanes.index.laneById")) continue;
      const base = Math.max(h1!.memory.get(path) ?? 0, h6!.memory.get(path) ?? 0);
      expect({ path, n }).toEqual({ path, n: Math.min(n, Math.max(2 * base, base + DEPARTED_KEPT)) });
    }
    for (const m of [h6!, h12!, h24!]) {
      expect([m.docListeners, m.rootListeners, m.awarenessListeners, m.timers]).toEqual([
        h1!.docListeners,
        h1!.rootListeners,
        h1!.awarenessListeners,
        h1!.timers,
      ]);
      expect(m.timeline).toBeLessThanOrEqual(500);
      expect(m.events).toBeLessThanOrEqual(200);
    }
  }, 60_000);
});
