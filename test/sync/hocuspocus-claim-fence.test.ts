/**
 * Claims ordered by one Hocuspocus instance (`oneInstance`), as claim-fence.test.ts through
 * y-websocket: the instance applies every client's updates in one order and sends each one, as it
 * applies it, to every client of the room, its sender included. When a device's claim comes back
 * to it, every rival claim the instance took first is in its doc: the first claim there runs, the
 * second yields, whichever the doc's own election favours. A timed window cannot tell who was
 * first when a trip outlasts it: the second device sent the request too. Server, HTTP host and
 * delaying proxy run on 127.0.0.1.
 */
import { Server } from "@hocuspocus/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectorsOf } from "../../src/core/connectors.ts";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore, type StoreEvent } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { CountingHost } from "../cluster/http-host.ts";
import { startTcpProxy } from "./tcp-proxy.ts";

let server: Server;
let serverUrl: string;
let host: CountingHost;
beforeAll(async () => {
  const port = await freePort();
  server = new Server({
    port,
    address: "127.0.0.1",
    quiet: true,
    stopOnSignals: false,
    // A viewer's connection is read-only: the instance applies none of its updates.
    async onAuthenticate({ token, connectionConfig }) {
      if (token === "viewer") connectionConfig.readOnly = true;
    },
  });
  [host] = await Promise.all([CountingHost.start(), server.listen()]);
  serverUrl = `ws://127.0.0.1:${port}`;
});
afterAll(async () => {
  await Promise.all([server.destroy(), host.close()]);
});

type Listener = (event: unknown) => void;

/** Holds what the instance sends to one device, then delivers it in order, one task per message. */
class Inbound {
  held = false;
  private queue: (() => void)[] = [];

  socket(): typeof WebSocket {
    const deliver = (fn: () => void) => (this.held ? this.queue.push(fn) : fn());
    class GatedSocket extends WebSocket {
      override addEventListener(type: string, listener: Listener, ...rest: unknown[]): void {
        const gated: Listener = type === "message" ? (event) => deliver(() => listener(event)) : listener;
        (super.addEventListener as (...args: unknown[]) => void)(type, gated, ...rest);
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

function device(room: string, clientID: number, opts: { url?: string; oneInstance?: boolean; token?: string } = {}) {
  const doc = new Y.Doc();
  doc.clientID = clientID;
  const inbound = new Inbound();
  const conn = connectHocuspocus(doc, {
    url: opts.url ?? serverUrl,
    room,
    token: opts.token ?? "t",
    WebSocketPolyfill: inbound.socket(),
    oneInstance: opts.oneInstance ?? true,
  });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null });
  const events: StoreEvent[] = [];
  store.onEvent((e) => events.push(e));
  return { doc, conn, store, events, inbound, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}
type Device = ReturnType<typeof device>;

/** Both in sync, each seeing the other present: neither claims eagerly. */
async function bothPresent(a: Device, b: Device): Promise<void> {
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
  await vi.waitFor(() => {
    expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true);
    expect(b.store.inspect().replicas.some((r) => r.replicaId === a.store.replicaId && r.present)).toBe(true);
  });
}

const standing = (d: Device, url: string) => d.store.claims().find(([, claim]) => claim.label?.endsWith(url))?.[1];

describe("Hocuspocus, one instance: claims ordered by the instance (the claim's own echo is its fence)", () => {
  // Both orders of the doc's tie-break (the lane creator's clientID): the instance's order decides, not it.
  it.each([
    ["the doc's election favours the second", 1, 2],
    ["the doc's election favours the first", 2, 1],
  ])("a rival claim still in flight: the second at the instance yields, one request (%s)", async (_why, firstId, secondId) => {
    const room = `hp-fence-${Math.random().toString(36).slice(2)}`;
    const path = `/hp-fence/${firstId}-${secondId}`;
    const url = host.url(path);
    const a = device(room, firstId);
    const b = device(room, secondId);
    try {
      await bothPresent(a, b);
      host.hold = true;
      b.inbound.held = true; // a's claim reaches the instance first; b hears of it only when released
      const first = a.store.ensure({ url });
      first.catch(() => {}); // asserted below; a failed assertion must not add an unhandled rejection
      await host.whenCount(path, 1);
      let fromServer = 0;
      a.doc.on("update", (_update: Uint8Array, origin: unknown) => void (origin === a.conn.provider && fromServer++));
      const second = b.store.ensure({ url });
      second.catch(() => {});
      // The instance has b's claim (it reached a) while a's claim and b's own echo wait for b.
      await vi.waitFor(() => expect(fromServer).toBeGreaterThan(0));
      expect(b.events.some((e) => e.type === "claimed")).toBe(true);
      // Longer than any window b could wait (100 ms unmeasured): without its claim's echo b decides
      // nothing — a timed window would have dispatched a second request by now.
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

  it("two devices 40 ms from the instance each way, booting at once and asking one key, 20 times: one request each time", async () => {
    const proxy = await startTcpProxy(serverUrl);
    proxy.delayMs = 40;
    const duplicated: number[] = [];
    try {
      for (let run = 0; run < 20; run++) {
        const room = `hp-boot-${run}-${Math.random().toString(36).slice(2)}`;
        const path = `/hp-boot/${room}`;
        const url = host.url(path);
        const devices = [device(room, 2 * run + 101, { url: proxy.url }), device(room, 2 * run + 102, { url: proxy.url })];
        try {
          const snaps = await Promise.all(devices.map((d) => d.store.ensure({ url })));
          expect(snaps.map((s) => s.status)).toEqual(["success", "success"]);
          if (host.count(path) > 1) duplicated.push(run);
        } finally {
          devices.forEach((d) => d.close());
        }
      }
    } finally {
      await proxy.close();
    }
    expect(duplicated).toEqual([]);
  }, 60_000);

  it("several keys claimed in one tick (two transactions, two fences): each placed by its own echo, the second device yields every one", async () => {
    const room = `hp-keys-${Math.random().toString(36).slice(2)}`;
    const paths = [0, 1, 2].map((i) => `/hp-keys/${room}/${i}`);
    const urls = paths.map((p) => host.url(p));
    const a = device(room, 2);
    const b = device(room, 1);
    try {
      await bothPresent(a, b);
      host.hold = true;
      b.inbound.held = true;
      const firsts = urls.map((url) => a.store.ensure({ url }));
      firsts.forEach((p) => p.catch(() => {}));
      await Promise.all(paths.map((p) => host.whenCount(p, 1)));
      let fromServer = 0;
      a.doc.on("update", (_update: Uint8Array, origin: unknown) => void (origin === a.conn.provider && fromServer++));
      const seconds = urls.map((url) => b.store.ensure({ url })); // one tick: a claim at once, two batched
      seconds.forEach((p) => p.catch(() => {}));
      await vi.waitFor(() => expect(fromServer).toBeGreaterThanOrEqual(2));
      await b.inbound.release();
      await vi.waitFor(() => expect(b.events.filter((e) => e.type === "yielded")).toHaveLength(3));
      expect(b.events.some((e) => e.type === "dispatched")).toBe(false);
      host.release();
      const snaps = await Promise.all([...firsts, ...seconds]);
      expect(snaps.map((s) => s.status)).toEqual(Array(6).fill("success"));
      expect(paths.map((p) => host.count(p))).toEqual([1, 1, 1]);
    } finally {
      host.release();
      a.close();
      b.close();
    }
  });

  it("destroy() with a fence pending answers it at once (nothing learnt), and the claim is left to its window", async () => {
    const room = `hp-destroy-${Math.random().toString(36).slice(2)}`;
    const d = device(room, 9);
    try {
      await d.conn.whenSynced;
      d.inbound.held = true; // the echo never comes back before the destroy
      let answer: boolean | undefined;
      expect(connectorsOf(d.doc)[0]!.fence!((inOrder) => (answer = inOrder))).toBe(true);
      d.doc.getMap("claims").set("k", "ours");
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(answer).toBeUndefined();
      d.conn.destroy();
      expect(answer).toBe(false);
    } finally {
      d.close();
    }
  });

  it("a read-only connection: the instance refuses the claim's update and never echoes it, and the fence says so at its refusal", async () => {
    const room = `hp-viewer-${Math.random().toString(36).slice(2)}`;
    const viewer = device(room, 7, { token: "viewer" });
    try {
      await viewer.conn.whenSynced;
      // The instance's refusal (its sync status `false`), seen right after the provider applied it.
      const SYNC_STATUS = 8;
      let refused = false;
      let answerAtRefusal: boolean | undefined;
      let answer: boolean | undefined;
      const onMessage = viewer.conn.provider.onMessage;
      viewer.conn.provider.onMessage = (event) => {
        onMessage(event);
        const data = new Uint8Array(event.data as ArrayBuffer);
        const at = 1 + data[0]!; // after the room's name
        if (data[at] === SYNC_STATUS && data[at + 1] === 0 && !refused) {
          refused = true;
          answerAtRefusal = answer;
        }
      };
      const [connector] = connectorsOf(viewer.doc);
      expect(connector!.fence!((inOrder) => (answer = inOrder))).toBe(true);
      viewer.doc.getMap("claims").set("k", "ours");
      await vi.waitFor(() => expect(refused).toBe(true));
      // Not first (nothing of ours was placed), and not after the fence's 1 s bound: at once.
      expect(answerAtRefusal).toBe(false);
    } finally {
      viewer.close();
    }
  });

  it("`oneInstance` with several `urls` is refused, naming the contradiction; a value not a boolean is refused", () => {
    const doc = new Y.Doc();
    const base = { room: "r", token: "t", WebSocketPolyfill: WebSocket };
    expect(() => connectHocuspocus(doc, { ...base, urls: ["ws://127.0.0.1:1", "ws://127.0.0.1:2"], oneInstance: true })).toThrow(
      /`oneInstance` means one instance, got 2 `urls`/,
    );
    expect(() => connectHocuspocus(doc, { ...base, url: "ws://127.0.0.1:1", oneInstance: "yes" as unknown as boolean })).toThrow(
      /`oneInstance` must be a boolean, got "yes"/,
    );
  });
});
