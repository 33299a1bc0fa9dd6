/**
 * Devices whose claims a sync server orders (a fence per claim), raced on 127.0.0.1: a Hocuspocus
 * instance, what a device hears held back and let through in order, and the race the fence
 * decides — one device's claim reaching the server while a rival's is still on its way.
 */
import { Server } from "@hocuspocus/server";
import { expect, vi } from "vitest";
import WebSocket from "ws";
import type * as Y from "yjs";
import type { SharedFetchStoreWithExtras, StoreEvent } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import type { CountingHost } from "../cluster/http-host.ts";

/** A Hocuspocus instance on 127.0.0.1; a connection with the token "viewer" is read-only (it applies none of its updates). */
export async function startHocuspocus(): Promise<{ url: string; close: () => Promise<void> }> {
  const port = await freePort();
  const server = new Server({
    port,
    address: "127.0.0.1",
    quiet: true,
    stopOnSignals: false,
    async onAuthenticate({ token, connectionConfig }) {
      if (token === "viewer") connectionConfig.readOnly = true;
    },
  });
  await server.listen();
  return { url: `ws://127.0.0.1:${port}`, close: () => server.destroy() };
}

/** Holds what the server sends to one device while `held`, then delivers it in order, one task per message. */
export class HeldInbound {
  held = false;
  private queue: (() => void)[] = [];

  protected deliver(fn: () => void): void {
    if (this.held) this.queue.push(fn);
    else fn();
  }

  async release(): Promise<void> {
    while (this.queue.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.queue.shift()!();
    }
    this.held = false;
  }
}

type Listener = (event: unknown) => void;

/** HeldInbound for a provider that listens with addEventListener (Hocuspocus). */
export class HeldListeners extends HeldInbound {
  socket(): typeof WebSocket {
    const deliver = (fn: () => void) => this.deliver(fn);
    class GatedSocket extends WebSocket {
      override addEventListener(type: string, listener: Listener, ...rest: unknown[]): void {
        const gated: Listener = type === "message" ? (event) => deliver(() => listener(event)) : listener;
        (super.addEventListener as (...args: unknown[]) => void)(type, gated, ...rest);
      }
    }
    return GatedSocket as unknown as typeof WebSocket;
  }
}

export type Racer = {
  doc: Y.Doc;
  conn: { whenSynced: Promise<unknown>; provider: unknown };
  store: SharedFetchStoreWithExtras;
  events: StoreEvent[];
  inbound: HeldInbound;
};

/** Both in sync, each seeing the other present: neither claims eagerly (no window-free claim in these races). */
export async function bothPresent(a: Pick<Racer, "conn" | "store">, b: Pick<Racer, "conn" | "store">): Promise<void> {
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
  await vi.waitFor(() => {
    expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true);
    expect(b.store.inspect().replicas.some((r) => r.replicaId === a.store.replicaId && r.present)).toBe(true);
  });
}

/** The claim that stands in `d`'s doc for `url`. */
export const standing = (d: Racer, url: string) => d.store.claims().find(([, claim]) => claim.label?.endsWith(url))?.[1];

/**
 * a's claim reaches the server first; b claims while a's claim (and b's own fence answer) are held
 * from b. b decides nothing until it hears the server's order, then yields to a: one request, and
 * every doc names a as the claimant (invariant 8: pending names the true claimant).
 */
export async function rivalClaimInFlight(a: Racer, b: Racer, host: CountingHost, path: string): Promise<void> {
  const url = host.url(path);
  try {
    await bothPresent(a, b);
    host.hold = true;
    b.inbound.held = true;
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
  }
}
