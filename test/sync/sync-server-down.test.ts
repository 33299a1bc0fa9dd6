/**
 * Issue "time to data", "the store knows when it is in sync": a store's first claim waits for its
 * connectors' initial sync, timed out after SYNC_WAIT_MS. A y-websocket server that refuses the
 * connection (nothing listens on its port), or every Hocuspocus instance refusing it, ends that
 * wait at once: nobody races through a server that is down, and an app whose sync server is down
 * must not hold every first request for the cap. Once cut off for longer than the settle window,
 * a replica waits no window at all (nobody can race it until it reconnects). The app's own
 * `whenSynced` still means synced. Fake timers: the cap never fires unless the test advances past
 * it, and it advances only the settle window, once.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { SYNC_WAIT_MS } from "../../src/core/connectors.ts";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { connectPeers, createSharedFetchStore, DEFAULT_SETTLE_MS, type Connection } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { nextEvent } from "./wait.ts";

afterEach(() => vi.useRealTimers());

/** A store on a doc connected by `connect`: asks once the connection failed, with only the window advanced. */
async function askWhileDown<C extends Connection>(connect: (doc: Y.Doc) => C, failed: (conn: C) => Promise<unknown>) {
  const doc = new Y.Doc();
  const conn = connect(doc);
  const sent: string[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    sent.push(String(input));
    return new Response(JSON.stringify({ ok: true }));
  };
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null, fetch });
  try {
    const closed = failed(conn);
    let synced = false;
    conn.whenSynced.then(
      () => (synced = true),
      () => {},
    );
    const asked = store.ensure({ url: "https://api.example.test/while-down" });
    await closed;
    // Disconnected for less than the window, no trip measured: the default window, far below the cap.
    expect(DEFAULT_SETTLE_MS).toBeLessThan(SYNC_WAIT_MS);
    await vi.advanceTimersByTimeAsync(DEFAULT_SETTLE_MS);
    expect(sent).toEqual(["https://api.example.test/while-down"]);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { ok: true } });
    // Disconnected for longer than the window now: the next key's request leaves with no window, eager.
    let eager: boolean | undefined;
    let waited: unknown;
    store.onEvent((e) => {
      if (e.type === "dispatched") eager = store.claims().find(([, c]) => c.replicaId === store.replicaId)?.[1].eager;
      if (e.type === "claimed") waited = [e.settleMs, e.settleWhy];
    });
    expect(store.inspect().settle).toEqual({ ms: 0, eager: true, why: "disconnected" });
    const next = store.ensure({ url: "https://api.example.test/next" });
    await vi.advanceTimersByTimeAsync(0); // what is due now, and the microtasks behind it
    expect(sent).toHaveLength(2);
    await expect(next).resolves.toMatchObject({ status: "success" });
    expect(eager).toBe(true);
    expect(waited).toEqual([0, "disconnected"]);
    expect(synced).toBe(false);
  } finally {
    store.destroy();
    conn.destroy();
    doc.destroy();
  }
}

const fakeTimers = () =>
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });

describe("a sync server that is down", () => {
  it("y-websocket: a refused connection ends the first claim's wait for the initial sync; once cut off for longer than the window, no window", async () => {
    const port = await freePort(); // free a moment ago: nothing listens there
    fakeTimers();
    await askWhileDown(
      (doc) => connectPeers(doc, { url: `ws://127.0.0.1:${port}`, room: "down", WebSocketPolyfill: WebSocket }),
      (conn) => nextEvent(conn.provider, "connection-close"),
    );
  });

  it("Hocuspocus: the same once every instance refused the connection", async () => {
    const port = await freePort();
    fakeTimers();
    await askWhileDown(
      (doc) => connectHocuspocus(doc, { url: `ws://127.0.0.1:${port}`, room: "down", token: "t", WebSocketPolyfill: WebSocket }),
      (conn) => nextEvent(conn.websocket, "disconnect"),
    );
  });
});
