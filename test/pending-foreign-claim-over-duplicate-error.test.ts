/**
 * Invariants 4 and 8 seen from the other side of a partition's duplicate: a sent its request; b,
 * cut off, claimed the same revision, and healed, the doc kept b's claim (the higher clientID), so
 * b sent its request too. Then a's request failed: a's error is recorded at revision 1, beside b's
 * live claim of revision 1, whose result will replace that error (invariant 7). a showed "error,
 * no data", though b still worked on the key in plain sight of a's doc ("a claim at or below the
 * recorded revision is finished work" holds for leftover claims: a claimant deletes its claim in
 * the transaction that records its outcome). A live claim at the revision of the latest error is
 * pending; once its claimant goes silent for its lease, the error is what stands. Found by
 * test/chaos-replicas.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 300;

function partitionDuplicate() {
  const net = new Network(0);
  const host = new Host();
  const store = (clientID: number, name: string) => {
    const doc = new Y.Doc();
    // b's claim must win the doc's conflict between the two claims of revision 1.
    doc.clientID = clientID;
    net.add(doc);
    return {
      doc,
      store: createSharedFetchStore({ doc, replicaId: name, fetch: host.fetchAs(name), leaseMs: LEASE, settleMs: 20, locks: null }),
    };
  };
  const a = store(1, "a");
  const b = store(2, "b");
  return { net, host, a: a.store, b: b.store, docB: b.doc };
}

describe("invariants 4, 8: a live claim at the revision of a duplicate's error is pending", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a shows b's claim, pending, until b's result replaces a's error", async () => {
    const { net, host, a, b, docB } = partitionDuplicate();
    const shown: string[] = [];
    a.subscribe(req, () => shown.push(a.snapshot(req).status));
    net.isolate(docB);
    background(a.ensure(req));
    await tick(50);
    background(b.ensure(req));
    await tick();
    net.heal();
    await tick(50);
    expect(host.calls.map((c) => c.from)).toEqual(["a", "b"]);
    host.calls[0]!.fail(new TypeError("fetch failed"));
    await tick();
    const snap = a.snapshot(req);
    expect(snap).toMatchObject({ status: "pending", claim: { replicaId: "b", mine: false, stale: false } });
    expect(snap.error?.message).toContain("network error");
    // b's heartbeats keep its claim live for as long as its request runs.
    await tick(3 * LEASE);
    expect(a.snapshot(req).status).toBe("pending");
    host.calls[1]!.respond(200, { good: true });
    await tick();
    for (const s of [a, b]) expect(s.snapshot(req)).toEqual({ status: "success", data: { good: true } });
    expect(shown).not.toContain("error");
    a.destroy();
    b.destroy();
  });

  it("once b goes silent for its lease, a pane that only shows the key is told the error stands (not pending for ever)", async () => {
    const { net, host, a, b, docB } = partitionDuplicate();
    // c shows the key and asks nothing: its store writes nothing, its decision waits on b's claim.
    const docC = new Y.Doc();
    net.add(docC);
    const c = createSharedFetchStore({ doc: docC, replicaId: "c", fetch: host.fetchAs("c"), leaseMs: LEASE, settleMs: 20, locks: null });
    const shown: string[] = [];
    c.subscribe(req, () => shown.push(c.snapshot(req).status));
    net.isolate(docB);
    const asked = new AbortController();
    background(a.ensure(req, { signal: asked.signal }));
    await tick(50);
    background(b.ensure(req));
    await tick();
    net.heal();
    await tick(50);
    host.calls[0]!.fail(new TypeError("fetch failed"));
    await tick();
    asked.abort(); // a's wait ends: a neither shows nor wants the key any more
    await tick();
    expect(c.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: "b", stale: false } });
    net.remove(docB); // b crashes: its heartbeats stop reaching c
    await tick(LEASE + 50);
    expect(shown.at(-1)).toBe("error");
    expect(c.snapshot(req).claim).toBeUndefined();
    expect(host.calls).toHaveLength(2);
    for (const s of [a, b, c]) s.destroy();
  });
});
