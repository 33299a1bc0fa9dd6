/**
 * Devtools, a panel left open: the timeline notes the inspected store's aborts by key, so that the
 * release that follows says why ("aborted, nobody waits on it"). A note was dropped only when its
 * key left an inspection the panel had seen it in; an abort of a key no inspection ever showed (its
 * claim made and let go between two inspections, or never written) stayed for the panel's life.
 * Now a note lasts only while its key is shown, and goes once its release is told.
 */
import { describe, expect, it } from "vitest";
import { Timeline } from "../../devtools/index.ts";

const claim = (rev: number) => ({
  replicaId: "me",
  nonce: `n${rev}`,
  rev,
  leaseMs: 5000,
  mine: true,
  abandoned: false,
  stale: false,
  finished: false,
  holder: "this replica" as const,
  silentMs: 0,
  staleAt: Infinity,
});
const inspection = (keys: { key: string; claim?: ReturnType<typeof claim> }[], at: number) => ({
  replicaId: "me",
  at,
  keys: keys.map((k) => ({ kind: "fetch" as const, recorded: 0, ...k })),
  replicas: [],
  malformed: [],
  lifecycle: "ready" as const,
});

describe("a devtools panel left open keeps no abort note of a key it does not show", () => {
  it("1 000 aborts of keys never shown: none is kept after the next inspection", () => {
    const timeline = new Timeline();
    timeline.observe(inspection([], 0) as never);
    for (let i = 0; i < 1000; i++) {
      timeline.aborts.set(`k${i}`, [1, "no-waiters"]);
      timeline.observe(inspection([], i + 1) as never);
    }
    expect(timeline.aborts.size).toBe(0);
  });

  it("an abort whose release is told says why, and its note goes with it", () => {
    const timeline = new Timeline();
    timeline.observe(inspection([], 0) as never);
    timeline.observe(inspection([{ key: "k", claim: claim(1) }], 1) as never);
    timeline.aborts.set("k", [1, "no-waiters"]);
    timeline.observe(inspection([{ key: "k" }], 2) as never);
    expect(timeline.entries()[0]).toMatchObject({ type: "released", key: "k", aborted: "no-waiters" });
    expect(timeline.aborts.size).toBe(0);
  });
});
