/**
 * What the lanes read while Yjs holds back a takeover's insert (its delete applied), once the index
 * has started: a rebuild of the index (a table registered later; after an observer error the next
 * transaction rebuilds inside itself) keeps reading the record as it read it, and still tells it
 * stands only by that bridge (RecordMap.held: decide writes a held claim of ours again); and a
 * store started on an empty doc that then loads such a state (its persistence, a sync step) reads
 * the held insert as the record, as one started on that state does (invariants 4, 8). An insert
 * that came to wait without deleting anything, or while the record stood here, is no record
 * (invariant 14). Real Y.Docs, updates carried by hand (test/lanes-vanished-pending.test.ts).
 */
import { describe, expect, it, onTestFinished } from "vitest";
import * as Y from "yjs";
import { openDocRecords } from "../src/core/doc-records.ts";
import { carriedReplicas, type CarriedReplica } from "./harness/carried-replicas.ts";

const { replica, carry } = carriedReplicas(openDocRecords);
const claim = (replicaId: string, rev = 1) => ({ replicaId, nonce: `n-${replicaId}`, rev, leaseMs: 5000 });

/** b's claim of "k" everywhere; a opens its lane (update 0, not carried) and takes the claim over (update 1), which reaches c alone. */
function takeover() {
  const [a, b, c] = [replica(1), replica(2), replica(3)];
  b.records.claims.set("k", claim("b"));
  for (const to of [a, c]) carry(to, b.updates[0]!);
  a.records.asks.set("other", 1);
  a.records.claims.set("k", claim("a"));
  carry(c, a.updates[1]!);
  expect(c.doc.store.pendingStructs).not.toBeNull();
  return { a, b, c };
}

/** A transaction of b's that touches nothing of "k": the index, dirty, is rebuilt inside it. */
function unrelated(b: CarriedReplica, to: CarriedReplica | Y.Doc) {
  b.records.claims.set("j", claim("b"));
  if (to instanceof Y.Doc) Y.applyUpdate(to, b.updates.at(-1)!);
  else carry(to, b.updates.at(-1)!);
}

/** Records opened on an empty doc and read (their first build), before anything arrives. */
function startedEmpty() {
  const doc = new Y.Doc();
  const records = openDocRecords(doc, () => null);
  onTestFinished(() => records.destroy());
  expect(records.claims.entries()).toEqual([]);
  return { doc, records };
}

describe("a rebuild of the index while a takeover's insert is held back", () => {
  it("invariants 4, 8: a kept claim still reads as held after a rebuild outside a transaction (a table registered later)", () => {
    const { c } = takeover();
    expect(c.records.claims.held("k")).toBe(true);
    c.records.lanes.table("later", () => ({}));
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "b" });
    expect(c.records.claims.held("k")).toBe(true);
  });

  it("invariants 4, 8: a kept claim still reads as held after a rebuild inside a transaction (the one after an observer error)", () => {
    const { b, c } = takeover();
    c.records.lanes.table("later", () => ({}));
    unrelated(b, c);
    expect(c.records.claims.get("k")).toMatchObject({ replicaId: "b" });
    expect(c.records.claims.held("k")).toBe(true);
  });

  it("invariants 4, 8: a held insert read as the record at the start is still read after a rebuild inside a transaction, then from its lane once it arrives", () => {
    const { a, b, c } = takeover();
    const doc = new Y.Doc();
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(c.doc));
    const records = openDocRecords(doc, () => null);
    onTestFinished(() => records.destroy());
    expect(records.claims.get("k")).toMatchObject({ replicaId: "a" });
    records.lanes.table("later", () => ({}));
    unrelated(b, doc);
    expect(records.claims.get("k")).toMatchObject({ replicaId: "a" });
    expect(records.claims.held("k")).toBe(true);
    Y.applyUpdate(doc, a.updates[0]!);
    expect(doc.store.pendingStructs).toBeNull();
    expect(records.claims.get("k")).toMatchObject({ replicaId: "a" });
    expect(records.claims.contenders("k")).toHaveLength(1);
    expect(records.claims.held("k")).toBe(false);
  });
});

describe("a store started on an empty doc that then loads a state where a takeover's insert is held back", () => {
  it("invariants 4, 8: reads the held insert as the record (as one started on that state does), then from its lane once it arrives", () => {
    const { a, c } = takeover();
    const { doc, records } = startedEmpty();
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(c.doc));
    expect(doc.store.pendingStructs).not.toBeNull();
    expect(records.claims.get("k")).toMatchObject({ replicaId: "a" });
    expect(records.claims.held("k")).toBe(true);
    Y.applyUpdate(doc, a.updates[0]!);
    expect(doc.store.pendingStructs).toBeNull();
    expect(records.claims.get("k")).toMatchObject({ replicaId: "a" });
    expect(records.claims.contenders("k")).toHaveLength(1);
    expect(records.claims.held("k")).toBe(false);
    expect(records.asks.get("other")).toBe(1);
  });

  it("a held insert read so that its claimant let go before it arrives is gone once it arrives", () => {
    const { a, c } = takeover();
    const { doc, records } = startedEmpty();
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(c.doc));
    a.records.claims.delete("k");
    Y.applyUpdate(doc, a.updates[2]!);
    Y.applyUpdate(doc, a.updates[0]!);
    expect(doc.store.pendingStructs).toBeNull();
    expect(records.claims.get("k")).toBeUndefined();
    expect(records.claims.entries()).toEqual([]);
  });

  it("invariant 14: an insert held back that deleted nothing (a first claim whose writer's earlier update never comes) is no record", () => {
    const h = replica(99);
    h.records.asks.set("other", 1);
    h.records.claims.set("k", claim("h"));
    const { doc, records } = startedEmpty();
    Y.applyUpdate(doc, h.updates[1]!);
    expect(doc.store.pendingStructs).not.toBeNull();
    expect(records.claims.get("k")).toBeUndefined();
  });

  it("invariant 14: a held rewrite that came to wait while the record stood here holds no later release of it", () => {
    const [b, c, h] = [replica(2), replica(3), replica(99)];
    h.records.asks.set("other", 1); // never comes: what h writes after it waits for good
    h.records.claims.set("k", claim("h"));
    h.records.claims.set("k", claim("h", 2)); // a rewrite (seq 2)
    b.records.claims.set("k", claim("b", 3));
    carry(c, b.updates[0]!);
    carry(c, h.updates[2]!);
    b.records.claims.delete("k");
    carry(c, b.updates[1]!);
    expect(c.records.claims.get("k")).toBeUndefined();
    h.records.asks.set("more", 1); // what Yjs holds back changes
    carry(c, h.updates[3]!);
    expect(c.doc.store.pendingStructs).not.toBeNull();
    expect(c.records.claims.get("k")).toBeUndefined();
  });
});
