/**
 * Issue "time to data", "across two devices booting at once, ≤ 1 in 20 boots with a duplicate":
 * two devices claim one key through a real y-websocket server on 127.0.0.1, the second one's
 * claim sent while the first one's is still on its way to it. A timed window cannot tell who was
 * first when the trip outlasts it; the server's order can: a sync step 1 sent just before each
 * claim is answered after every update the server had received before it. The first claim at the
 * server runs, the second yields — whichever the doc's own election favours — and the claim that
 * stands in every doc names the replica that runs (invariant 8: pending names the true claimant).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, type Snapshot, type StoreEvent } from "../../src/index.ts";
import { ROOT } from "../../src/core/doc-records.ts";
import { CountingHost } from "../cluster/http-host.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
let host: CountingHost;
beforeAll(async () => {
  [server, host] = await Promise.all([startSyncServer(), CountingHost.start()]);
});
afterAll(async () => {
  await Promise.all([server.close(), host.close()]);
});

/** Holds what the server sends to one device, then delivers it in order, one task per message. */
class Inbound {
  held = false;
  private queue: (() => void)[] = [];

  socket(): typeof WebSocket {
    const deliver = (fn: () => void) => (this.held ? this.queue.push(fn) : fn());
    const { get, set } = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage")!;
    type Listener = ((event: WebSocket.MessageEvent) => void) | null;
    class GatedSocket extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        // y-websocket assigns onmessage: deliver through the gate.
        Object.defineProperty(this, "onmessage", {
          get: () => get!.call(this) as Listener,
          set: (listener: Listener) => set!.call(this, listener && ((event: WebSocket.MessageEvent) => deliver(() => listener(event)))),
        });
      }
    }
    return GatedSocket as unknown as typeof WebSocket;
  }

  async release(): Promise<void> {
    while (this.queue.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.queue.shift()!();
    }
    this.held = false;
  }
}

function device(room: string, clientID: number, inbound = new Inbound()) {
  const doc = new Y.Doc();
  doc.clientID = clientID;
  const conn = connectPeers(doc, { url: server.url, room, WebSocketPolyfill: inbound.socket() });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null });
  const events: StoreEvent[] = [];
  store.onEvent((e) => events.push(e));
  return { doc, conn, store, events, inbound, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

const standing = (d: ReturnType<typeof device>, url: string) => d.store.claims().find(([, claim]) => claim.label?.endsWith(url))?.[1];

describe("claims ordered by the sync server (a fence before each claim)", () => {
  // Both orders of the doc's tie-break (the lane creator's clientID): the server's order decides, not it.
  it.each([
    ["the doc's election favours the second", 1, 2],
    ["the doc's election favours the first", 2, 1],
  ])("a rival claim still in flight: the second at the server yields, one request (%s)", async (_why, firstId, secondId) => {
    const room = `fence-${Math.random().toString(36).slice(2)}`;
    const path = `/fence/${firstId}-${secondId}`;
    const url = host.url(path);
    const a = device(room, firstId);
    const b = device(room, secondId);
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      // Each sees the other present: neither claims eagerly (no window-free claim in this race).
      await vi.waitFor(() => {
        expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true);
        expect(b.store.inspect().replicas.some((r) => r.replicaId === a.store.replicaId && r.present)).toBe(true);
      });
      host.hold = true;
      b.inbound.held = true; // a's claim will reach the server, then b, only when released
      const first = a.store.ensure({ url });
      first.catch(() => {}); // asserted below; a failed assertion must not add an unhandled rejection
      await host.whenCount(path, 1);
      let fromServer = 0;
      a.doc.on("update", (_update: Uint8Array, origin: unknown) => void (origin === a.conn.provider && fromServer++));
      const second = b.store.ensure({ url });
      second.catch(() => {});
      // The server has b's claim (it reached a) while a's claim and b's fence answer wait for b.
      await vi.waitFor(() => expect(fromServer).toBeGreaterThan(0));
      expect(b.events.some((e) => e.type === "claimed")).toBe(true);
      // Longer than any window b could wait (100 ms unmeasured): without the server's answer b
      // decides nothing — a timed window would have dispatched a second request by now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(b.events.some((e) => e.type === "dispatched")).toBe(false);
      expect(host.count(path)).toBe(1);

      await b.inbound.release();
      await vi.waitFor(() => expect(b.events).toContainEqual(expect.objectContaining({ type: "yielded", to: a.store.replicaId })));
      // Every doc shows a's claim: the replica that runs is the one pending names.
      await vi.waitFor(() => {
        expect(standing(a, url)?.replicaId).toBe(a.store.replicaId);
        expect(standing(b, url)?.replicaId).toBe(a.store.replicaId);
      });
      host.release();
      const [snapA, snapB] = await Promise.all([first, second]);
      expect(snapA.status).toBe("success");
      expect(snapB.status).toBe("success");
      expect(snapB.data).toEqual(snapA.data);
      expect(host.count(path)).toBe(1);
    } finally {
      host.release();
      a.close();
      b.close();
    }
  });

  it("four devices, each one's claims for 20 keys in flight to the others: the first at the server runs them all, the other three yield (no deadlock among yielders)", async () => {
    const room = `fence-four-${Math.random().toString(36).slice(2)}`;
    // Later devices win the doc's tie-break: every yielder stands the first one's claim in.
    const devices = [11, 12, 13, 14].map((id) => device(room, id));
    // What reaches the server, seen by a bare doc (no store: it cleans nothing up).
    const observer = new Y.Doc();
    const observed = connectPeers(observer, { url: server.url, room, WebSocketPolyfill: WebSocket });
    const claimsBy = (replicaId: string) =>
      observer
        .getArray<Y.Array<{ t: string; v: { replicaId?: string } }>>(ROOT)
        .toArray()
        .flatMap((lane) => lane.toArray())
        .filter((e) => e.t === "claims" && e.v.replicaId === replicaId).length;
    try {
      await Promise.all([...devices.map((d) => d.conn.whenSynced), observed.whenSynced]);
      await vi.waitFor(() => {
        for (const d of devices) expect(d.store.inspect().replicas.filter((r) => r.present).length).toBeGreaterThanOrEqual(4);
      });
      const paths = Array.from({ length: 20 }, (_, i) => `/fence-four/${room}/${i}`);
      for (const d of devices) d.inbound.held = true;
      const asks: Promise<Snapshot>[] = [];
      // One after another, each reaching the server before the next asks: the server's order is known.
      for (const d of devices) {
        asks.push(...paths.map((path) => d.store.ensure({ url: host.url(path) })));
        await vi.waitFor(() => expect(claimsBy(d.store.replicaId)).toBe(paths.length));
      }
      asks.forEach((ask) => ask.catch(() => {}));
      await Promise.all(devices.map((d) => d.inbound.release()));
      const snaps = await Promise.all(asks);
      expect(snaps.every((snap) => snap.status === "success")).toBe(true);
      expect(paths.map((path) => host.count(path))).toEqual(paths.map(() => 1));
      const [first, ...later] = devices;
      expect(first!.events.filter((e) => e.type === "dispatched")).toHaveLength(paths.length);
      for (const d of later) {
        expect(d.events.filter((e) => e.type === "dispatched")).toHaveLength(0);
        expect(d.events.filter((e) => e.type === "yielded" && e.to === first!.store.replicaId)).toHaveLength(paths.length);
      }
    } finally {
      observed.destroy();
      observer.destroy();
      devices.forEach((d) => d.close());
    }
  });
});
