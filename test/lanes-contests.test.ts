/**
 * Contested records (two replicas wrote one key before they synced) are cleaned up once, not once
 * per replica: an ask contest by the replica that wrote its winner, any replica after
 * CLEANUP_FALLBACK_MS when that one is gone; a claim contest by every replica at once, as before
 * (the election decides who fetches). Real Yjs docs, synced by hand.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { openDocRecords, type DocRecords } from "../src/core/doc-records.ts";
import { CLEANUP_FALLBACK_MS } from "../src/core/lane-deletes.ts";

type Replica = { doc: Y.Doc; records: DocRecords; cleanups: () => number };

let open: Replica[] = [];
afterEach(() => {
  for (const r of open) {
    r.records.destroy();
    r.doc.destroy();
  }
  open = [];
  vi.useRealTimers();
});

function replica(): Replica {
  const doc = new Y.Doc();
  const records = openDocRecords(doc, () => null);
  let n = 0;
  doc.on("afterTransaction", (tr: Y.Transaction) => {
    if (tr.local && tr.origin === "shared-fetch:cleanup") n++;
  });
  const r = { doc, records, cleanups: () => n };
  open.push(r);
  return r;
}

/** Each doc gets every other's state (as a tab's channel delivers it), then the microtasks run. */
async function syncAll(replicas: Replica[]): Promise<void> {
  const states = replicas.map((r) => Y.encodeStateAsUpdate(r.doc));
  replicas.forEach((r, i) => states.forEach((s, j) => i !== j && Y.applyUpdate(r.doc, s, "remote")));
  await Promise.resolve();
  await Promise.resolve();
}

const claim = (replicaId: string) => ({ replicaId, nonce: `n-${replicaId}`, rev: 1, leaseMs: 5000 });

describe("contested records are cleaned once", () => {
  it("an ask written by 4 replicas at once: only the winner's writer cleans it, and every replica sees one record", async () => {
    const rs = [replica(), replica(), replica(), replica()];
    rs.forEach((r, i) => r.records.asks.set("k", 1000 + i));
    await syncAll(rs);
    // Every replica elects the same winner (the highest rank: the latest ask).
    expect(rs.map((r) => r.records.asks.get("k"))).toEqual([1003, 1003, 1003, 1003]);
    expect(rs.map((r) => r.cleanups())).toEqual([0, 0, 0, 1]);
    await syncAll(rs);
    for (const r of rs) expect(r.records.asks.contenders("k")).toEqual([1003]);
  });

  it("an ask contest whose winner's writer is gone is cleaned by the others after CLEANUP_FALLBACK_MS", async () => {
    vi.useFakeTimers();
    const [a, b, gone] = [replica(), replica(), replica()];
    a.records.asks.set("k", 1);
    b.records.asks.set("k", 2);
    gone.records.asks.set("k", 3);
    // The winner's writer wrote and vanished: its ask reaches the others, its cleanup never does.
    const states = [a, b, gone].map((r) => Y.encodeStateAsUpdate(r.doc));
    for (const r of [a, b]) for (const s of states) Y.applyUpdate(r.doc, s, "remote");
    await Promise.resolve();
    await Promise.resolve();
    expect([a.cleanups(), b.cleanups()]).toEqual([0, 0]);
    expect(a.records.asks.contenders("k").sort()).toEqual([1, 2, 3]);
    await vi.advanceTimersByTimeAsync(CLEANUP_FALLBACK_MS);
    expect([a.cleanups(), b.cleanups()]).toEqual([1, 1]);
    await syncAll([a, b]);
    expect(a.records.asks.contenders("k")).toEqual([3]);
    expect(b.records.asks.get("k")).toBe(3);
  });

  it("a claim contest is still cleaned by every replica at once (invariant 4: one claim shows everywhere soonest)", async () => {
    const rs = [replica(), replica(), replica()];
    rs.forEach((r, i) => r.records.claims.set("k", claim(`r${i}`)));
    await syncAll(rs);
    expect(rs.map((r) => r.cleanups())).toEqual([1, 1, 1]);
    const winner = rs[0]!.records.claims.get("k")!.replicaId;
    for (const r of rs) {
      expect(r.records.claims.get("k")!.replicaId).toBe(winner);
      expect(r.records.claims.contenders("k")).toHaveLength(1);
    }
  });
});
