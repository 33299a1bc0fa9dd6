/**
 * Presence (invariants 3 and 10): a store replaced on the same doc and awareness (a provider made
 * again, HMR; React makes the new store in a render, before the old one's effect cleanup runs) is
 * not taken for gone when the old one is destroyed. The old store's destroy used to clear the field
 * the new store had written, and the peers read a cleared field as the new replica's leaving: its
 * live claim went stale at once and a peer sent its request again (lease 60 s: only the presence
 * event can explain a takeover).
 */
import { afterEach, expect, it, vi } from "vitest";
import { applyAwarenessUpdate, Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function link(docA: Y.Doc, aA: Awareness, docB: Y.Doc, aB: Awareness) {
  docA.on("update", (u: Uint8Array, origin: unknown) => origin !== "relay" && Y.applyUpdate(docB, u, "relay"));
  docB.on("update", (u: Uint8Array, origin: unknown) => origin !== "relay" && Y.applyUpdate(docA, u, "relay"));
  const relay = (from: Awareness, to: Awareness) =>
    from.on("update", ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      if (origin === "relay") return;
      applyAwarenessUpdate(to, encodeAwarenessUpdate(from, [...added, ...updated, ...removed]), "relay");
    });
  relay(aA, aB);
  relay(aB, aA);
  Y.applyUpdate(docB, Y.encodeStateAsUpdate(docA), "relay");
  Y.applyUpdate(docA, Y.encodeStateAsUpdate(docB), "relay");
}

it("a store replacing another on the same awareness is not declared gone when the old one is destroyed", async () => {
  const host = new Host();
  const LEASE = 60_000;
  const docA = new Y.Doc();
  const docB = new Y.Doc();
  const aA = new Awareness(docA);
  const aB = new Awareness(docB);
  link(docA, aA, docB, aB);
  const old = createSharedFetchStore({ doc: docA, awareness: aA, fetch: host.fetchAs("old"), leaseMs: LEASE, locks: null });
  const b = createSharedFetchStore({ doc: docB, awareness: aB, fetch: host.fetchAs("b"), leaseMs: LEASE, locks: null });
  // The replacement is created first, the old one destroyed after (React: render, then the old effect's cleanup).
  const next = createSharedFetchStore({ doc: docA, awareness: aA, fetch: host.fetchAs("next"), leaseMs: LEASE, locks: null });
  cleanups.push(() => (old.destroy(), next.destroy(), b.destroy(), aA.destroy(), aB.destroy()));
  const req = { url: "https://api.example.test/slow" };
  void next.ensure(req).catch(() => {});
  await host.whenCalls(1);
  const waiting = b.ensure(req);
  waiting.catch(() => {});
  await vi.waitFor(() => expect(b.snapshot(req).claim).toMatchObject({ replicaId: next.replicaId, stale: false }));

  old.destroy();
  // A takeover, when there was one, came within a few ms: the awareness relay is synchronous.
  await new Promise((r) => setTimeout(r, 200));
  // The live replacement still runs the request: nobody may take it over, nor send it again.
  expect(b.snapshot(req).claim).toMatchObject({ replicaId: next.replicaId, stale: false });
  expect(host.calls.map((c) => c.from)).toEqual(["next"]);
  // And the replacement is still published in the awareness.
  expect((aA.getLocalState() as { sharedFetch?: { replicaId?: string } } | null)?.sharedFetch?.replicaId).toBe(next.replicaId);
});
