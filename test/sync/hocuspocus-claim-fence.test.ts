/**
 * Claims ordered by one Hocuspocus instance (`oneInstance`), as claim-fence.test.ts through
 * y-websocket: the instance applies every client's updates in one order and sends each one, as it
 * applies it, to every client of the room, its sender included. When a device's claim comes back
 * to it, every rival claim the instance took first is in its doc: the first claim there runs, the
 * second yields, whichever the doc's own election favours. A timed window cannot tell who was
 * first when a trip outlasts it: the second device sent the request too. Server, HTTP host and
 * delaying proxy run on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectorsOf } from "../../src/core/connectors.ts";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore, type StoreEvent } from "../../src/index.ts";
import { CountingHost } from "../cluster/http-host.ts";
import { bothPresent, HeldListeners, rivalClaimInFlight, startHocuspocus } from "./ordered-devices.ts";
import { startTcpProxy } from "./tcp-proxy.ts";

let server: Awaited<ReturnType<typeof startHocuspocus>>;
let serverUrl: string;
let host: CountingHost;
beforeAll(async () => {
  [host, server] = await Promise.all([CountingHost.start(), startHocuspocus()]);
  serverUrl = server.url;
});
afterAll(async () => {
  await Promise.all([server.close(), host.close()]);
});

function device(room: string, clientID: number, opts: { url?: string; oneInstance?: boolean; token?: string } = {}) {
  const doc = new Y.Doc();
  doc.clientID = clientID;
  const inbound = new HeldListeners();
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

describe("Hocuspocus, one instance: claims ordered by the instance (the claim's own echo is its fence)", () => {
  // Both orders of the doc's tie-break (the lane creator's clientID): the instance's order decides, not it.
  it.each([
    ["the doc's election favours the second", 1, 2],
    ["the doc's election favours the first", 2, 1],
  ])("a rival claim still in flight: the second at the instance yields, one request (%s)", async (_why, firstId, secondId) => {
    const room = `hp-fence-${Math.random().toString(36).slice(2)}`;
    const a = device(room, firstId);
    const b = device(room, secondId);
    try {
      // The instance's echo of b's own claim is b's fence: held with a's claim until released.
      await rivalClaimInFlight(a, b, host, `/hp-fence/${firstId}-${secondId}`);
    } finally {
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
