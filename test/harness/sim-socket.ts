import type * as Y from "yjs";
import { registerConnector } from "../../src/core/connectors.ts";
import { syncClock } from "../../src/sync/sync-clock.ts";
import type { Network } from "../../sim/network.ts";

/** A device's link to the sync server: up, down (connects refused) or hung (connects never answered). */
export type Link = { mode: "up" | "down" | "hang" };

export type SimSocket = {
  readonly state: "closed" | "connecting" | "open" | "synced";
  /** How many reconnects a claim waited for (each `resync` that started or joined a wait). */
  readonly waits: number;
  /** The socket closes (the server or the network dropped it); y-websocket's back-off reconnects. */
  drop(): void;
  /** The link changed: a hung connect ends when the link goes down, as its TCP socket is destroyed. */
  linkChanged(): void;
  /** Connects now, as a provider's connect() (no-op while a socket is open or connecting). */
  connect(): void;
  stop(): void;
};

/**
 * One replica's y-websocket connection on a simulated server network (fake timers), told to the
 * stores as connectPeers tells them: the same sync clock (src/sync/sync-clock.ts) fed by the same
 * events (status, sync, connection-close), the same `resync` (connect now, wait for that sync),
 * and y-websocket's back-off between attempts (100 ms doubled per failure, at most 2 500 ms).
 */
export function simSocket(doc: Y.Doc, server: Network, link: Link, tripMs: () => number): SimSocket {
  let resolveSynced!: () => void;
  const whenSynced = new Promise<void>((resolve) => (resolveSynced = resolve));
  const clock = syncClock(whenSynced);
  let state: SimSocket["state"] = "closed";
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let backoff: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let waits = 0;
  server.isolate(doc);
  if (!server.docs.includes(doc)) server.add(doc);

  const after = (ms: number, fn: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
  const close = () => {
    if (state === "closed") return;
    clearTimeout(timer);
    server.isolate(doc);
    // y-websocket: status "disconnected" (lost), then connection-close (closed, give up).
    if (state === "open" || state === "synced") failures = 0;
    else failures += 1;
    state = "closed";
    clock.lost();
    clock.closed();
    clock.giveUp();
    if (!stopped) backoff = setTimeout(connect, Math.min(100 * 2 ** failures, 2500));
  };
  const connect = () => {
    if (stopped || state !== "closed") return;
    clearTimeout(backoff);
    state = "connecting";
    if (link.mode === "down") return after(1, close);
    if (link.mode === "hang") return;
    after(tripMs(), () => {
      state = "open";
      clock.opened();
      // Sync step 1 out, sync step 2 back: the doc and the server's state meet.
      after(2 * tripMs(), () => {
        server.heal(doc);
        state = "synced";
        clock.synced();
        resolveSynced();
      });
    });
  };
  const unregister = registerConnector(doc, {
    ...clock.info,
    crossDevice: true,
    resync: () => {
      const wait = stopped ? undefined : clock.resync();
      if (!wait) return;
      waits += 1;
      connect();
      return wait;
    },
  });
  connect();
  return {
    get state() {
      return state;
    },
    get waits() {
      return waits;
    },
    drop: close,
    linkChanged: () => {
      if (state === "connecting" && link.mode === "down") close();
    },
    connect,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(backoff);
      server.isolate(doc);
      unregister();
      resolveSynced();
    },
  };
}
