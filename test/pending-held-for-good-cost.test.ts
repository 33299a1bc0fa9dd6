/**
 * Invariant 14: entries a peer's update holds back for good (its writer's earlier update lost, or
 * a gap made on purpose) must not make every later delete cost a read of all of them. The lanes
 * look up what Yjs holds back at each delete a peer makes (lanes-vanished-pending.test.ts): read
 * anew each time, a sweep of 500 records with 10 000 entries held back froze the replica for 9 s
 * here. What Yjs holds back is decoded once per pending update, counted on Yjs' decoder (no clock).
 * Real Y.Docs, updates carried by hand.
 */
import { describe, expect, it, vi } from "vitest";
import { carriedReplicas } from "./harness/carried-replicas.ts";

const decodes = vi.hoisted(() => ({ n: 0 }));
vi.mock("yjs", async (original) => {
  const y = await original<typeof import("yjs")>();
  return { ...y, decodeUpdateV2: (update: Uint8Array) => (decodes.n++, y.decodeUpdateV2(update)) };
});
// The setup file loaded the engine with Yjs unmocked: loaded again, it reads through the counter.
vi.resetModules();
const { openDocRecords } = await import("../src/core/doc-records.ts");

const { replica, carry } = carriedReplicas(openDocRecords);

describe("entries a peer's update holds back for good", () => {
  it("a peer's sweep of many records reads them once, not once per record deleted", () => {
    const [x, b, c] = [replica(9), replica(2), replica(3)];
    x.records.asks.set("gap", 1); // never reaches c
    x.doc.transact(() => {
      for (let i = 0; i < 50; i++) x.records.asks.set(`held-${i}`, 1);
    });
    carry(c, x.updates[1]!);
    expect(c.doc.store.pendingStructs).not.toBeNull();
    b.doc.transact(() => {
      for (let i = 0; i < 300; i++) b.records.asks.set(`swept-${i}`, 1);
    });
    carry(c, b.updates[0]!);
    expect(c.records.asks.keys()).toHaveLength(300);
    b.doc.transact(() => {
      for (let i = 0; i < 300; i++) b.records.asks.delete(`swept-${i}`);
    });
    decodes.n = 0;
    carry(c, b.updates[1]!);
    expect(c.records.asks.keys()).toEqual([]);
    expect(decodes.n).toBeLessThanOrEqual(2);
  });
});
