/**
 * A store created on a doc where Yjs already holds back a takeover's claim insert (pending
 * structs) while its delete of the old claim applied: the old claim's content is gone from the
 * doc (garbage-collected), so the held-back insert is the only trace that someone works on the
 * key. Pending is truthful (invariant 8): the new store reads that insert as the key's claim until
 * it arrives or is no longer held. Real Y.Docs on the test relay (as in
 * test/takeover-delete-relayed-alone.test.ts): a store on a copy of the claimant's doc (a tab that
 * loads it from its persistence) and one on the claimant's doc itself.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { Relay, relayedStores } from "./harness/relay.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const KEY = { url: `${URL_A}/0` };
const OTHER = { url: `${URL_A}/1` };
const LEASE = 300;

describe("a store that starts while Yjs holds back a takeover's claim insert", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("pending is truthful (8): a store on the claimant's doc, or on a copy of it, shows the key claimed while the claimant's request runs", async () => {
    const host = new Host();
    const relay = new Relay();
    const stores = relayedStores(relay, host, ["a", "b", "c"], LEASE);
    const [a, b] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const late: SharedFetchStoreWithExtras[] = [];
    try {
      background(b.refetch(KEY));
      await tick();
      relay.cut(0, 2);
      relay.hold(0, 1); // a's writes wait on the link between a and b
      await tick(LEASE);
      background(a.ensure(OTHER)); // a's first write: its lane, which its later writes build on
      await tick();
      background(a.refetch(KEY)); // b's claim is stale for a: a takes it over, one rewrite
      await tick();
      expect(relay.deliver(0, 1, 1)).toBe(true); // the takeover reaches b ahead of a's first write
      const docB = internalsOf(b).records.doc;
      expect(docB.store.pendingStructs).not.toBeNull();

      const copy = new Y.Doc();
      Y.applyUpdate(copy, Y.encodeStateAsUpdate(docB));
      expect(copy.store.pendingStructs).not.toBeNull();
      for (const doc of [copy, docB])
        late.push(
          createSharedFetchStore({
            doc,
            replicaId: `late-${late.length}`,
            fetch: host.fetchAs("late"),
            leaseMs: LEASE,
            settleMs: 20,
            locks: null,
          }),
        );
      for (const s of late) expect(s.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "a", mine: false } });

      // a's first write arrives: the claim integrates and still stands, the same.
      Y.applyUpdate(copy, Y.encodeStateAsUpdate(internalsOf(a).records.doc));
      expect(copy.store.pendingStructs).toBeNull();
      expect(late[0]!.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "a", mine: false } });
      expect(internalsOf(late[0]!).records.claims.contenders(a.keyOf(KEY))).toHaveLength(1);
    } finally {
      for (const s of [...stores, ...late]) s.destroy();
      relay.destroy();
      host.destroy();
    }
  });
});
