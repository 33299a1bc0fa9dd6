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
import * as decoding from "lib0/decoding";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, type Snapshot, type StoreEvent } from "../../src/index.ts";
import { ROOT } from "../../src/core/doc-records.ts";
import { CountingHost } from "../cluster/http-host.ts";
import { bothPresent, HeldInbound, rivalClaimInFlight } from "./ordered-devices.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
let host: CountingHost;
beforeAll(async () => {
  [server, host] = await Promise.all([startSyncServer(), CountingHost.start()]);
});
afterAll(async () => {
  await Promise.all([server.close(), host.close()]);
});

/** HeldInbound for y-websocket, which assigns onmessage; `drop` loses a message instead (a server that behaves otherwise). */
class Inbound extends HeldInbound {
  drop: ((data: Uint8Array) => boolean) | undefined;

  socket(): typeof WebSocket {
    const deliver = (fn: () => void, data: unknown) => {
      if (this.drop && data instanceof Uint8Array && this.drop(data)) return;
      this.deliver(fn);
    };
    const { get, set } = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage")!;
    type Listener = ((event: WebSocket.MessageEvent) => void) | null;
    class GatedSocket extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        // y-websocket assigns onmessage: deliver through the gate.
        Object.defineProperty(this, "onmessage", {
          get: () => get!.call(this) as Listener,
          set: (listener: Listener) =>
            set!.call(this, listener && ((event: WebSocket.MessageEvent) => deliver(() => listener(event), bytesOf(event.data)))),
        });
      }
    }
    return GatedSocket as unknown as typeof WebSocket;
  }
}

function bytesOf(data: unknown): Uint8Array | undefined {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

/** Holds what devices send to the server, then sends it in the order the test picks. */
class Outbound {
  held = false;
  readonly queued = new Map<string, { data: Uint8Array; send: () => void }[]>();

  socket(from: string, base: typeof WebSocket): typeof WebSocket {
    const list: { data: Uint8Array; send: () => void }[] = [];
    this.queued.set(from, list);
    const held = () => this.held;
    class HeldSocket extends base {
      override send(data: Parameters<WebSocket["send"]>[0], ...rest: unknown[]): void {
        const send = () => (super.send as (...args: unknown[]) => void)(data, ...rest);
        if (held()) list.push({ data: new Uint8Array(data as ArrayBufferLike), send });
        else send();
      }
    }
    return HeldSocket as unknown as typeof WebSocket;
  }
}

function device(room: string, clientID: number, inbound = new Inbound(), outbound?: { gate: Outbound; from: string }) {
  const doc = new Y.Doc();
  doc.clientID = clientID;
  const socket = outbound ? outbound.gate.socket(outbound.from, inbound.socket()) : inbound.socket();
  const conn = connectPeers(doc, { url: server.url, room, WebSocketPolyfill: socket });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null });
  const events: StoreEvent[] = [];
  store.onEvent((e) => events.push(e));
  return { doc, conn, store, events, inbound, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

describe("claims ordered by the sync server (a fence before each claim)", () => {
  // Both orders of the doc's tie-break (the lane creator's clientID): the server's order decides, not it.
  it.each([
    ["the doc's election favours the second", 1, 2],
    ["the doc's election favours the first", 2, 1],
  ])("a rival claim still in flight: the second at the server yields, one request (%s)", async (_why, firstId, secondId) => {
    const room = `fence-${Math.random().toString(36).slice(2)}`;
    const a = device(room, firstId);
    const b = device(room, secondId);
    try {
      // b's fence (a sync step 1 sent before its claim) is answered after a's claim: both held until released.
      await rivalClaimInFlight(a, b, host, `/fence/${firstId}-${secondId}`);
    } finally {
      a.close();
      b.close();
    }
  });

  // The race a fence alone misses: both fences reach the server, then both claims. The echo of
  // each claim (the server sends every update back to every client, its sender too) is its place.
  it.each([
    ["the doc's election favours the second", 21, 22],
    ["the doc's election favours the first", 22, 21],
  ])(
    "both fences, then both claims at the server: the first claim there runs, the other yields, one request (%s)",
    async (_why, firstId, secondId) => {
      const room = `fence-pairs-${Math.random().toString(36).slice(2)}`;
      const path = `/fence-pairs/${firstId}-${secondId}`;
      const url = host.url(path);
      const gate = new Outbound();
      const a = device(room, firstId, new Inbound(), { gate, from: "a" });
      const b = device(room, secondId, new Inbound(), { gate, from: "b" });
      try {
        await bothPresent(a, b);
        host.hold = true;
        gate.held = true;
        const asks = [a.store.ensure({ url }), b.store.ensure({ url })];
        asks.forEach((ask) => ask.catch(() => {}));
        // Each device's fence is the sync step 1 sent right before its claim's update.
        const isStep1 = (m: { data: Uint8Array }) => m.data[0] === 0 && m.data[1] === 0;
        const isUpdate = (m: { data: Uint8Array }) => m.data[0] === 0 && m.data[1] === 2;
        const fenceAt = (from: string) => {
          const list = gate.queued.get(from) ?? [];
          return list.findIndex((m, i) => isStep1(m) && list[i + 1] !== undefined && isUpdate(list[i + 1]!));
        };
        await vi.waitFor(() => {
          expect(fenceAt("a")).toBeGreaterThanOrEqual(0);
          expect(fenceAt("b")).toBeGreaterThanOrEqual(0);
        });
        const [qa, qb] = [gate.queued.get("a")!, gate.queued.get("b")!];
        const [fa, fb] = [fenceAt("a"), fenceAt("b")];
        // a's messages up to its fence, b's up to its fence, a's claim, b's claim, then the rest.
        const order = [...qa.slice(0, fa + 1), ...qb.slice(0, fb + 1), qa[fa + 1]!, qb[fb + 1]!, ...qa.slice(fa + 2), ...qb.slice(fb + 2)];
        gate.held = false;
        for (const m of order) {
          m.send();
          await new Promise((resolve) => setTimeout(resolve, 15)); // one at a time into the server
        }
        await vi.waitFor(() => {
          expect(b.events.some((e) => e.type === "yielded")).toBe(true);
          expect(a.events.some((e) => e.type === "dispatched")).toBe(true);
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(b.events.some((e) => e.type === "dispatched")).toBe(false);
        expect(host.count(path)).toBe(1);
        host.release();
        const snaps = await Promise.all(asks);
        expect(snaps.map((snap) => snap.status)).toEqual(["success", "success"]);
        expect(host.count(path)).toBe(1);
      } finally {
        gate.held = false;
        host.release();
        a.close();
        b.close();
      }
    },
  );

  it("a server that sends no client its own updates back: the fence alone decides, the claim runs", async () => {
    const room = `fence-no-echo-${Math.random().toString(36).slice(2)}`;
    const path = `/fence-no-echo/${room}`;
    const inbound = new Inbound();
    const a = device(room, 31, inbound);
    const b = device(room, 32);
    try {
      await bothPresent(a, b);
      // Every update of a's own that the server sends back is lost on the way.
      inbound.drop = (data) => {
        if (data[0] !== 0 || data[1] !== 2) return false;
        const update = decoding.readVarUint8Array(decoding.createDecoder(data.subarray(2)));
        return Y.parseUpdateMeta(update).to.has(a.doc.clientID);
      };
      const snap = await a.store.ensure({ url: host.url(path) });
      expect(snap.status).toBe("success");
      expect(a.events.filter((e) => e.type === "dispatched")).toHaveLength(1);
      const again = await a.store.refetch({ url: host.url(path) });
      expect(again.status).toBe("success");
      expect(host.count(path)).toBe(2);
    } finally {
      a.close();
      b.close();
    }
  });

  // 80 claims through a real sync server: 1.5 s unloaded, past the unit project's 5 s at load 20.
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
  }, 20_000);
});
