/**
 * A socket that opened and was closed on purpose before its initial sync: by the server, with a
 * close frame (a token refused after the upgrade, 1008; a server full, 1013), or by the app's
 * disconnect() (y-websocket's `provider.disconnect()`, Hocuspocus' `websocket.disconnect()`).
 * Unlike a link that drops mid-sync (no close frame, 1006: the next attempt likely syncs,
 * sync-cut-midway.test.ts), nothing says a next attempt syncs: the server refuses again, the app
 * connects no more. So the first claims stop waiting at once, as after a refused connection
 * (README: "A connection that fails before it synced ends the wait at once"); they waited out the
 * whole SYNC_WAIT_MS for it. Read on the connector's `whenSynced`, the promise the stores' first
 * claims wait on (no clock: the bound never ends it within the test's events). Both connectors.
 * The app's disconnect() also ends the wait for a next attempt that a link cut mid-sync left
 * pending (within the back-off), and, through Hocuspocus, one whose close reads as the link's
 * (the link gone as the socket closed: 1006, 1001): before, the claims waited the whole bound.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import * as Y from "yjs";
import { connectorsOf } from "../../src/core/connectors.ts";
import type { Connection } from "../../src/index.ts";
import { hocuspocusKit, kits, type Kit } from "./connector-kits.ts";
import { frameRelay } from "./frame-relay.ts";
import { nextEvent } from "./wait.ts";

let refusing: WebSocketServer;
beforeAll(async () => {
  // Accepts the upgrade, then refuses the socket (an auth check made once connected).
  refusing = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  refusing.on("connection", (socket) => socket.close(1008, "token refused"));
  await new Promise((resolve) => refusing.once("listening", resolve));
});
afterAll(() => new Promise((resolve) => refusing.close(resolve)));

/** Whether the wait the stores' first claims make on this doc's connector has ended, once the events due now ran. */
async function firstClaimsWait(doc: Y.Doc): Promise<"ended" | "waiting"> {
  let ended = false;
  void connectorsOf(doc)[0]!.whenSynced.then(() => (ended = true));
  await new Promise((resolve) => setImmediate(resolve));
  return ended ? "ended" : "waiting";
}

type Emitter = Parameters<typeof nextEvent>[0];

/** Resolves once the connection's socket opened (its initial sync starts). */
function opened(kit: Kit, conn: Connection): Promise<unknown> {
  const c = conn as unknown as { provider: Emitter; websocket?: Emitter };
  return kit.name === "connectPeers"
    ? nextEvent(c.provider, "status", ({ status }: { status: string }) => status === "connected")
    : nextEvent(c.websocket!, "open");
}

/** The close code of the event kit.closed() resolved with. */
const closeCode = (kit: Kit, [event]: unknown[]) =>
  (kit.name === "connectPeers" ? (event as { code: number }) : (event as { event: { code: number } }).event).code;

describe.each(kits)("$name: a socket closed on purpose before its initial sync", (kit) => {
  let server: Awaited<ReturnType<typeof kit.start>>;
  beforeAll(async () => {
    server = await kit.start();
  });
  afterAll(() => server.close());

  it("the server closes the socket it accepted (1008): the first claims' wait ends at once", async () => {
    const doc = new Y.Doc();
    const { port } = refusing.address() as { port: number };
    const conn = kit.connect(doc, `ws://127.0.0.1:${port}`, "refused");
    try {
      const closed = kit.closed(conn);
      await opened(kit, conn);
      expect(closeCode(kit, (await closed) as unknown[])).toBe(1008);
      expect(await firstClaimsWait(doc)).toBe("ended");
    } finally {
      conn.destroy();
      doc.destroy();
    }
  });

  it("the app's disconnect() while the sync is under way: the first claims' wait ends at once", async () => {
    const relay = await frameRelay(server.url);
    // The server's answer (its sync step 2) never arrives: the socket stays open, unsynced.
    relay.toClient = (frame) => !kit.isStep2(frame);
    const doc = new Y.Doc();
    const conn = kit.connect(doc, relay.url, `mid-${Math.random().toString(36).slice(2)}`);
    try {
      await opened(kit, conn);
      const closed = kit.closed(conn);
      kit.disconnect(conn);
      await closed;
      expect(await firstClaimsWait(doc)).toBe("ended");
    } finally {
      conn.destroy();
      doc.destroy();
      await relay.close();
    }
  });

  it("the app's disconnect() within the back-off after a link cut mid-sync: the first claims' wait ends at once", async () => {
    const relay = await frameRelay(server.url);
    relay.toClient = (frame) => !kit.isStep2(frame);
    const doc = new Y.Doc();
    const conn = kit.connect(doc, relay.url, `backoff-${Math.random().toString(36).slice(2)}`);
    try {
      await opened(kit, conn);
      const closed = kit.closed(conn);
      // No close frame (1006): the claims wait for the next attempt, which the app calls off.
      relay.cut();
      await closed;
      kit.disconnect(conn);
      expect(await firstClaimsWait(doc)).toBe("ended");
    } finally {
      conn.destroy();
      doc.destroy();
      await relay.close();
    }
  });
});

describe("connectHocuspocus: the app's disconnect() as the link goes, before the initial sync", () => {
  let server: Awaited<ReturnType<typeof hocuspocusKit.start>>;
  beforeAll(async () => {
    server = await hocuspocusKit.start();
  });
  afterAll(() => server.close());

  // Its socket's close handshake does not finish: the close reads as the link's (a passing one).
  it.each([
    { link: "drops (no close frame)", cut: undefined, code: 1006 },
    { link: "closes with 1001, going away", cut: 1001, code: 1001 },
  ])("the link $link as the app disconnects: the first claims' wait ends at once", async ({ cut, code }) => {
    const kit = hocuspocusKit;
    const relay = await frameRelay(server.url);
    relay.toClient = (frame) => !kit.isStep2(frame);
    const doc = new Y.Doc();
    const conn = kit.connect(doc, relay.url, `same-moment-${Math.random().toString(36).slice(2)}`);
    try {
      await opened(kit, conn);
      const closed = kit.closed(conn);
      kit.disconnect(conn);
      relay.cut(cut);
      expect(closeCode(kit, (await closed) as unknown[])).toBe(code);
      expect(await firstClaimsWait(doc)).toBe("ended");
    } finally {
      conn.destroy();
      doc.destroy();
      await relay.close();
    }
  });
});
