/**
 * What the lanes read while Yjs holds back a takeover's insert (its delete applied), once the index
 * has started: a rebuild of the index (a table registered later; after an observer error the next
 * transaction rebuilds inside itself) keeps reading the record as it read it, and still tells it
 * stands only by that bridge (RecordMap.held: decide writes a held claim of ours again), or a
 * claim taken over reads as none (invariants 4, 8). Real Y.Docs, updates carried by hand
 * (test/lanes-vanished-pending.test.ts).
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
