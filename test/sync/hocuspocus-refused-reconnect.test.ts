/**
 * README, Scaling out: `onRefused` hears a token refused at a reconnect (a secret rotated
 * mid-session); the connection has stopped, and the app connects again with a new token. A store
 * made with the refused connection's awareness must then be present to the other devices through
 * the new one, and see them: before, it stayed bound to the refused connection's presence (never
 * destroyed, since it had stopped by itself), so no device saw it again (a crash of it cost a whole
 * lease) and it saw none (no other device's departure reached it).
 */
import { Server } from "@hocuspocus/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus, type HocuspocusConnection } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const present = (store: SharedFetchStoreWithExtras, other: SharedFetchStoreWithExtras) =>
  store.inspect().replicas.some((r) => r.replicaId === other.replicaId && r.present);

/** Both stores count each other present (wide: a store that never does fails here, not at the test's timeout). */
const seeEachOther = (a: SharedFetchStoreWithExtras, b: SharedFetchStoreWithExtras) =>
  vi.waitFor(() => expect([present(a, b), present(b, a)]).toEqual([true, true]), { timeout: 10_000, interval: 20 });

describe("connectHocuspocus: a token refused at a reconnect, then a connection with a new token", () => {
  it("the store follows the new connection: present to the other device, and sees it", async () => {
    let valid = "first";
    const port = await freePort();
    const server = new Server({
      port,
      address: "127.0.0.1",
      quiet: true,
      stopOnSignals: false,
      async onAuthenticate({ token }) {
        if (token !== valid) throw new Error("token refused");
      },
    });
    await server.listen();
    cleanups.push(() => server.destroy());
    const url = `ws://127.0.0.1:${port}`;
    const room = `rotated-${Math.random().toString(36).slice(2)}`;
    const connect = (doc: Y.Doc, token: () => string, onRefused?: () => void) => {
      const conn = connectHocuspocus(doc, { url, room, token, WebSocketPolyfill: WebSocket, reconnectDelayMs: 50, onRefused });
      cleanups.push(() => conn.destroy());
      return conn;
    };

    const docB = new Y.Doc();
    const connB = connect(docB, () => valid);
    const b = createSharedFetchStore({ doc: docB, awareness: connB.awareness });
    cleanups.push(() => b.destroy());

    const docA = new Y.Doc();
    let signedIn = "first"; // the token this device holds
    let again: HocuspocusConnection | undefined;
    let reconnected!: () => void;
    const connectedAgain = new Promise<void>((resolve) => (reconnected = resolve));
    // As the README's example does: a sign-in, then a connection with the new token.
    const onRefused = () => {
      signedIn = valid;
      again = connect(docA, () => signedIn);
      reconnected();
    };
    const first = connect(docA, () => signedIn, onRefused);
    const a = createSharedFetchStore({ doc: docA, awareness: first.awareness });
    cleanups.push(() => a.destroy());
    await seeEachOther(a, b);

    valid = "second"; // the secret rotates; a's socket drops and its reconnect is refused
    (first.websocket.webSocket as unknown as WebSocket).terminate();
    await connectedAgain;
    await again!.whenSynced;
    expect(first.error?.name).toBe("HocuspocusAuthError");
    await seeEachOther(a, b);
    expect(a.inspect().settle?.why).not.toBe("alone");
  }, 30_000);
});
