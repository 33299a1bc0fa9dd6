/**
 * A takeover whose delete applied while Yjs holds back its insert (pending structs), met by a store
 * that has already started (invariant 8, pending is truthful, while the claimant's request runs):
 * - the claimant's own index rebuilt meanwhile (a table registered later; after an observer error)
 *   still tells its claim stands only by that bridge, so it writes it again for the replicas that
 *   hear the taker through it (test/takeover-delete-relayed-alone.test.ts);
 * - a store started on an empty doc that then loads the claimant's state (a sync step applied
 *   later; IndexedDB read after connectTabs) reads the held insert as the key's claim, as one
 *   started on that state does (test/takeover-held-at-start.test.ts).
 * Real Y.Docs on the test relay; fake-indexeddb for the tab.
 */
import "fake-indexeddb/auto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore, type SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { Relay, relayedStores } from "./harness/relay.ts";
import { background, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const KEY = { url: `${URL_A}/0` };
const OTHER = { url: `${URL_A}/1` };
const LEASE = 300;

/** b claims and sends; a, hearing nothing of b for a lease, takes the claim over; the takeover reaches b ahead of a's first write. */
async function heldAtClaimant() {
  const host = new Host();
  const relay = new Relay();
  const stores = relayedStores(relay, host, ["a", "b", "c"], LEASE);
  const [a, b] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  background(b.refetch(KEY));
  await tick();
  relay.cut(0, 2); // a and c hear each other only through b
  relay.hold(0, 1); // a's writes wait on the link between a and b
  await tick(LEASE);
  background(a.ensure(OTHER)); // a's first write: its lane, which its later writes build on
  await tick();
  background(a.refetch(KEY)); // b's claim is stale for a: a takes it over, one rewrite
  await tick();
  const done = () => {
    for (const s of stores) s.destroy();
    relay.destroy();
    host.destroy();
  };
  return { host, relay, stores, deliver: () => expect(relay.deliver(0, 1, 1)).toBe(true), done };
}

/** A store on an empty doc, started (it reads the doc) before anything arrives. */
const lateStore = (doc: Y.Doc, host: Host) =>
  createSharedFetchStore({ doc, replicaId: "late", fetch: host.fetchAs("late"), leaseMs: LEASE, settleMs: 20, locks: null });

describe("a takeover held back by Yjs, met by a store already started", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("pending is truthful (4, 8): a claimant whose index is rebuilt while Yjs holds the takeover back still writes its claim again", async () => {
    const { host, stores, deliver, done } = await heldAtClaimant();
    const [, b, c] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    try {
      deliver();
      internalsOf(b).records.lanes.table("later", () => ({}));
      await tick(1);
      expect(host.open.filter((call) => call.url === KEY.url).map((call) => call.from)).toEqual(["b"]);
      expect(c.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "b", stale: false } });
    } finally {
      done();
    }
  });

  it("pending is truthful (8): a store started on an empty doc that then applies the claimant's state shows the key claimed by the taker", async () => {
    const { host, stores, deliver, done } = await heldAtClaimant();
    const [a, b] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const doc = new Y.Doc();
    const late = lateStore(doc, host);
    try {
      expect(late.snapshot(KEY).status).toBe("idle");
      deliver();
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(internalsOf(b).records.doc));
      expect(doc.store.pendingStructs).not.toBeNull();
      expect(late.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "a", mine: false } });
      // a's first write arrives: the claim integrates and still stands, the same, one contender.
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(internalsOf(a).records.doc));
      expect(doc.store.pendingStructs).toBeNull();
      expect(late.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "a", mine: false } });
      expect(internalsOf(late).records.claims.contenders(a.keyOf(KEY))).toHaveLength(1);
    } finally {
      late.destroy();
      done();
    }
  });

  it("pending is truthful (8): a tab whose store starts before connectTabs has read IndexedDB shows the key claimed by the taker", async () => {
    const { host, stores, deliver, done } = await heldAtClaimant();
    const b = stores[1]!;
    const name = `held-${Math.random().toString(36).slice(2)}`;
    const cleanups: (() => void)[] = [done];
    try {
      deliver();
      // The claimant's doc as its tab stored it: one that loads it writes its whole state first.
      const stored = new Y.Doc();
      Y.applyUpdate(stored, Y.encodeStateAsUpdate(internalsOf(b).records.doc));
      const first = connectTabs(stored, { name, snapshotBytes: 0 });
      await until(first.whenSynced);
      first.destroy();

      const doc = new Y.Doc();
      const tabs = connectTabs(doc, { name, snapshotBytes: 0 });
      const late = lateStore(doc, host);
      cleanups.push(
        () => late.destroy(),
        () => tabs.destroy(),
      );
      expect(late.snapshot(KEY).status).toBe("idle");
      await until(tabs.whenSynced);
      expect(doc.store.pendingStructs).not.toBeNull();
      expect(late.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "a", mine: false } });
    } finally {
      for (const cleanup of cleanups.reverse()) cleanup();
    }
  });
});
