/**
 * A takeover rewrites the stale claim into the new one in one transaction (invariant 4), but an
 * update can reach a replica before an earlier update of the same writer: Yjs then applies the
 * rewrite's delete of the old claim and keeps its insert of the new one pending until the earlier
 * update arrives (its lane, its previous entry). A third replica reading the doc in between must
 * not see "no claim" while the old claimant's request still runs: pending is truthful across
 * replicas (invariant 8). Real Y.Docs, the updates carried by hand.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const KEY = { url: `${URL_A}/0` };
const OTHER = { url: `${URL_A}/1` };
const LEASE = 300;

type Replica = { doc: Y.Doc; store: SharedFetchStoreWithExtras };

/** Three replicas; every update is carried at once unless its link is held, then it waits in `held`. */
function replicas() {
  const host = new Host();
  const names = ["a", "b", "c"] as const;
  const r = {} as Record<(typeof names)[number], Replica>;
  const held = new Map<string, Uint8Array[]>();
  const holding = new Set<string>();
  for (const [i, name] of names.entries()) {
    const doc = new Y.Doc();
    doc.clientID = i + 1;
    r[name] = { doc, store: undefined! };
  }
  for (const from of names) {
    r[from].doc.on("update", (update: Uint8Array, origin: unknown) => {
      // Carried by the writer only: each link is the one path between two replicas.
      if (origin === "link") return;
      for (const to of names) {
        if (to === from) continue;
        const link = `${from}>${to}`;
        if (holding.has(link)) held.set(link, [...(held.get(link) ?? []), update]);
        else Y.applyUpdate(r[to].doc, update, "link");
      }
    });
  }
  for (const name of names)
    r[name].store = createSharedFetchStore({
      doc: r[name].doc,
      replicaId: name,
      fetch: host.fetchAs(name),
      leaseMs: LEASE,
      settleMs: 20,
      locks: null,
    });
  const deliver = (link: string, index: number) => {
    const to = link.split(">")[1] as keyof typeof r;
    const [update] = held.get(link)!.splice(index, 1);
    Y.applyUpdate(r[to].doc, update!, "link");
  };
  const destroy = () => {
    for (const name of names) r[name].store.destroy();
    host.destroy();
  };
  return { host, r, held, holding, deliver, destroy };
}

describe("a takeover's insert held back by Yjs (pending structs) while its delete applied", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("pending is truthful across replicas: a third replica shows the key pending, never idle, while the old claimant's request runs", async () => {
    const { host, r, held, holding, deliver, destroy } = replicas();
    try {
      background(r.b.store.ensure(KEY));
      background(r.a.store.ensure(KEY)); // a joins b's claim
      await tick(50);
      expect(host.open.map((c) => c.from)).toEqual(["b"]);
      // From now on a hears nothing from b (b's heartbeats are lost on the way), and what a writes
      // waits: a's first write opens its lane, which every later write of a builds on.
      holding.add("b>a");
      for (const to of ["b", "c"]) holding.add(`a>${to}`);
      background(r.a.store.ensure(OTHER));
      await tick(50);
      await tick(3 * LEASE); // b's claim goes stale for a: a takes it over (one rewrite) and sends
      expect(host.open.filter((c) => c.url === KEY.url).map((c) => c.from)).toEqual(["b", "a"]);
      expect(r.c.store.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "b" } });

      // The takeover reaches c alone, ahead of a's earlier writes.
      const queue = held.get("a>c")!;
      const takeover = queue.findIndex((u) => Y.decodeUpdate(u).ds.clients.has(r.b.doc.clientID));
      expect(takeover).toBeGreaterThan(0);
      deliver("a>c", takeover);
      expect(r.c.doc.store.pendingStructs).not.toBeNull();
      await tick();
      expect(r.c.store.snapshot(KEY).status).toBe("pending");

      // The rest arrives: the new claim stands in c's doc, and the key is still pending.
      while (held.get("a>c")!.length) deliver("a>c", 0);
      await tick();
      expect(r.c.doc.store.pendingStructs).toBeNull();
      expect(r.c.store.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "a" } });
    } finally {
      destroy();
    }
  });
});
