/**
 * Yjs applies an update's deletes at once but holds back its inserts (pending structs) while an
 * earlier update of their writer is missing. A record's rewrite is one delete and one insert, so
 * read in between the record would be gone: the lanes keep reading it as it was while an entry of
 * the same record came to wait with the delete, and only then (invariants 4, 8); not while one that
 * waited already waits on, which may never arrive (invariant 14). Real Y.Docs, updates carried by hand.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import * as Y from "yjs";
import { openDocRecords } from "../src/core/doc-records.ts";
import { carriedReplicas } from "./harness/carried-replicas.ts";

const { replica, carry } = carriedReplicas(openDocRecords);
const claim = (replicaId: string, rev = 1) => ({ replicaId, nonce: `n-${replicaId}`, rev, leaseMs: 5000 });

/** b's claim of "k" everywhere; a opens its lane (update 0, not carried) and takes the claim over (update 1). */
function takeover() {
  const [a, b, c] = [replica(1), replica(2), replica(3)];
  b.records.claims.set("k", claim("b"));
  for (const to of [a, c]) carry(to, b.updates[0]!);
  a.records.asks.set("other", 1);
  a.records.claims.set("k", claim("a"));
  expect(a.updates).toHaveLength(2);
  return { a, b, c };
}

describe("a record whose rewrite arrives before its writer's earlier updates", () => {
  it("reads as the record it replaces while the rewrite's insert waits, then as the new one", () => {
    const { a, c } = takeover();
    carry(c, a.updates[1]!);
    expect(c.doc.store.pendingStructs).not.toBeNull();
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "b" });
    expect(c.records.claims.entries().map(([k]) => k)).toEqual(["k"]);
    carry(c, a.updates[0]!);
    expect(c.doc.store.pendingStructs).toBeNull();
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "a" });
    expect(c.records.asks.get("other")).toBe(1);
  });

  it("a rebuild of the index while the rewrite's insert waits (a table registered later) still reads the record it replaces", () => {
    const { a, c } = takeover();
    carry(c, a.updates[1]!);
    c.records.lanes.table("later", () => ({}));
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "b" });
    carry(c, a.updates[0]!);
    expect(c.doc.store.pendingStructs).toBeNull();
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "a" });
    expect(c.records.claims.entries().map(([k, v]) => [k, v.replicaId])).toEqual([["k", "a"]]);
  });

  it("a record deleted while only other records' entries wait is gone at once", () => {
    const { a, b, c } = takeover();
    carry(c, a.updates[1]!); // c holds back a's claim of "k"
    b.records.claims.set("j", claim("b"));
    carry(c, b.updates[1]!);
    b.records.claims.delete("j");
    carry(c, b.updates[2]!);
    expect(c.doc.store.pendingStructs).not.toBeNull();
    expect(c.records.claims.get("j")).toBeUndefined();
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "b" });
  });

  it("what a replica deletes itself is gone at once, even while a peer's entry of the record waits", () => {
    const { a, c } = takeover();
    carry(c, a.updates[1]!); // c holds back a's claim of "k"
    c.records.claims.set("k", claim("c", 2)); // c refetches, then lets its claim go
    c.records.claims.delete("k");
    expect(c.doc.store.pendingStructs).not.toBeNull();
    expect(c.records.claims.get("k")).not.toMatchObject({ replicaId: "c" });
  });

  it("a kept record goes once nothing of it waits: its successor was deleted before it arrived", () => {
    const { a, b, c } = takeover();
    carry(c, a.updates[1]!);
    a.records.claims.delete("k"); // a releases its claim; c gets the release with the rest
    carry(c, a.updates[2]!);
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "b" });
    carry(c, a.updates[0]!);
    expect(c.doc.store.pendingStructs).toBeNull();
    expect(c.records.claims.get("k")).toBeUndefined();
    expect(c.records.claims.entries()).toEqual([]);
    expect(b.records.claims.get("k")).toMatchObject({ replicaId: "b" }); // b heard nothing of a
  });

  it("invariant 14: an entry whose writer's earlier update never comes holds no later release of its record", () => {
    const [b, c, h] = [replica(2), replica(3), replica(99)];
    h.records.asks.set("other", 1);
    h.records.claims.set("k", claim("h"));
    carry(c, h.updates[1]!); // h's first update never comes: its claim of "k" waits for good
    expect(c.doc.store.pendingStructs).not.toBeNull();
    for (const rev of [2, 3]) {
      b.records.claims.set("k", claim("b", rev));
      carry(c, b.updates.at(-1)!);
      expect(c.records.claims.get("k")).toMatchObject({ replicaId: "b", rev });
      b.records.claims.delete("k"); // b lets its claim go: on c, the key is claimed no more
      carry(c, b.updates.at(-1)!);
      expect(c.records.claims.get("k")).toBeUndefined();
    }
    expect(c.records.claims.entries()).toEqual([]);
  });

  describe("opened on a doc where a rewrite's delete applied and its insert waits (its old entry collected)", () => {
    /** Records opened on a copy of c's doc, after c received the takeover alone (a tab loading it from its persistence). */
    function opened() {
      const { a, b, c } = takeover();
      carry(c, a.updates[1]!);
      const doc = new Y.Doc();
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(c.doc));
      const records = openDocRecords(doc, () => null);
      onTestFinished(() => records.destroy());
      expect(doc.store.pendingStructs).not.toBeNull();
      return { a, b, doc, records };
    }

    it("invariants 4, 8: reads the waiting insert as the record, then the same record from its lane once it arrives", () => {
      const { a, doc, records } = opened();
      expect(records.claims.get("k")).toMatchObject({ replicaId: "a" });
      Y.applyUpdate(doc, a.updates[0]!);
      expect(doc.store.pendingStructs).toBeNull();
      expect(records.claims.get("k")).toMatchObject({ replicaId: "a" });
      expect(records.claims.contenders("k")).toHaveLength(1);
      expect(records.claims.held("k")).toBe(false);
      expect(records.asks.get("other")).toBe(1);
    });

    it("a waiting insert deleted before it arrives (its claimant let it go) is gone once it arrives", () => {
      const { a, doc, records } = opened();
      a.records.claims.delete("k");
      Y.applyUpdate(doc, a.updates[2]!);
      Y.applyUpdate(doc, a.updates[0]!);
      expect(doc.store.pendingStructs).toBeNull();
      expect(records.claims.get("k")).toBeUndefined();
      expect(records.claims.entries()).toEqual([]);
    });

    it("what it writes over the waiting insert itself stands at once; the insert, once it arrives, is a rival cleaned up as any", async () => {
      const { a, doc, records } = opened();
      records.claims.set("k", { ...claim("d"), eager: true });
      expect(records.claims.get("k")).toMatchObject({ replicaId: "d" });
      expect(records.claims.contenders("k")).toHaveLength(1);
      Y.applyUpdate(doc, a.updates[0]!);
      await Promise.resolve();
      expect(records.claims.get("k")).toMatchObject({ replicaId: "d" });
      expect(records.claims.contenders("k")).toHaveLength(1);
    });
  });
});
