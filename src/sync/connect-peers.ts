import { registerConnector } from "../core/connectors.ts";
import { WebsocketProvider } from "y-websocket";
import type { Doc } from "yjs";
import { createAwareness, retireAwareness } from "./awareness-clock.ts";
import {
  announceAgain,
  dropRemotePresence,
  droppingMalformed,
  sharedTrips,
  requireDoc,
  requireWebSocket,
  type Connection,
} from "./connection.ts";
import { peersProblem } from "./peers-options.ts";
import { resyncWhenOnline } from "./back-online.ts";
import { passingClose, syncClock } from "./sync-clock.ts";
import { warnUnknownOptions } from "../core/options.ts";
import { probeTrips } from "./trip-probe.ts";

/** Any WebSocket-compatible constructor, e.g. the default export of `ws` in Node. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => object;

export type PeersOptions = {
  /** Base URL of a y-websocket server, e.g. "wss://sync.example.com". */
  url: string;
  /** Document name on the server: one per doc and trust boundary. */
  room: string;
  /** Query parameters sent with the connection (e.g. an auth token). */
  params?: Record<string, string> | undefined;
  /** Needed where there is no global WebSocket (Node 20). */
  WebSocketPolyfill?: WebSocketConstructor | undefined;
  /**
   * Also use y-websocket's own BroadcastChannel between tabs. Default false: connectTabs owns tab
   * sync, and a second channel would only double the traffic (and hide server problems in tests).
   */
  broadcastChannel?: boolean | undefined;
};

export type PeerConnection = Connection & {
  /** The underlying provider, for status events and disconnect()/connect() (partitions). */
  provider: WebsocketProvider;
};

const PEERS_OPTIONS = { url: 0, room: 0, params: 0, WebSocketPolyfill: 0, broadcastChannel: 0 } satisfies Record<keyof PeersOptions, 0>;

/** A socket class whose message handler never throws (droppingMalformed). */
function guardedSocket(WS: typeof WebSocket, url: string): typeof WebSocket {
  return class extends WS {
    // @ts-expect-error a setter alone: y-websocket only ever assigns it
    set onmessage(handle: ((event: MessageEvent) => void) | null) {
      super.onmessage = handle && droppingMalformed("connectPeers", url, handle);
    }
  };
}

/** Syncs `doc` with other devices through a y-websocket server (sync + awareness). */
export function connectPeers(doc: Doc, opts: PeersOptions): PeerConnection {
  warnUnknownOptions("connectPeers", opts, PEERS_OPTIONS);
  const problem = peersProblem(opts);
  if (problem !== undefined) throw new TypeError(`connectPeers: ${problem}`);
  requireDoc("connectPeers", doc);
  requireWebSocket("connectPeers", opts.WebSocketPolyfill);
  if (opts.WebSocketPolyfill === undefined && typeof WebSocket === "undefined") {
    throw new TypeError("connectPeers: no global WebSocket here; pass `WebSocketPolyfill` (e.g. from 'ws')");
  }
  const awareness = createAwareness(doc);
  const provider = new WebsocketProvider(opts.url, opts.room, doc, {
    awareness,
    params: opts.params ?? {},
    disableBc: opts.broadcastChannel !== true,
    WebSocketPolyfill: guardedSocket((opts.WebSocketPolyfill ?? WebSocket) as typeof WebSocket, opts.url),
  });

  let destroyed = false;
  let resolveSynced!: () => void;
  const whenSynced = new Promise<void>((resolve) => (resolveSynced = resolve));
  const trips = probeTrips(provider);
  const clock = syncClock(whenSynced);
  // Stores on this doc make their first claim once it synced (or its first connection failed):
  // replicas on other devices may race. Its measured trips size their settle window; its fences
  // order their claims at the server.
  const unregister = registerConnector(doc, {
    ...clock.info,
    crossDevice: true,
    tripMs: sharedTrips(awareness, trips.samples),
    fence: trips.fence,
    awareness,
    // A claim while the socket is down or waits out its back-off (a device back online): connect
    // now, and let the claim wait for that sync. None after a deliberate disconnect(), nor after
    // such a connect failed, until a sync (sync-clock.ts).
    resync: () => {
      const wait = provider.shouldConnect ? clock.resync() : undefined;
      if (wait) provider.connect();
      return wait;
    },
  });
  const onSync = (synced: boolean): void => {
    if (!synced) return clock.lost();
    clock.synced();
    resolveSynced();
  };

  // Every closed socket, failed attempts included. y-websocket drops every remote presence when
  // *our* socket closes, as if those peers had left; the first claims stop waiting for a sync. But
  // not for a socket the server accepted that closed mid-sync in passing (passingClose: a flaky
  // link, a server restarting), nor one we replace: the next attempt, after the provider's
  // back-off, likely syncs. One the server closed on purpose (a token refused once connected) or
  // the app did (disconnect(): a close with no code, or no event once its socket was gone) has no
  // next attempt that syncs.
  let replacing = false;
  const onConnectionClose = (event: { code?: number } | null): void => {
    const cut = clock.closed(replacing || passingClose(event?.code));
    dropRemotePresence(awareness);
    if (!cut) clock.giveUp();
  };
  // y-websocket re-announces us at the clock we were removed at: bump it as we connect.
  const onStatus = ({ status }: { status: string }): void => {
    // y-websocket sends its sync step 1 right after this event: its answer ends the initial sync.
    if (status === "connected") {
      clock.opened();
      announceAgain(awareness);
    } else clock.lost();
  };

  const stopOnline = resyncWhenOnline(clock, trips.fence, () => {
    // Only the socket that did not answer: one that closed (a deliberate disconnect(), a
    // destroy) stays closed, and y-websocket reconnects a lost one by itself.
    if (!provider.ws) return;
    // Ours, not the app's: the claims wait for the socket that replaces it.
    replacing = true;
    provider.disconnect();
    replacing = false;
    provider.connect();
  });

  function destroy(): void {
    if (destroyed) return;
    destroyed = true;
    stopOnline();
    unregister();
    doc.off("destroy", destroy);
    provider.off("sync", onSync);
    // The provider sends our "left" awareness frame before closing the socket. The probes stop
    // after it: a check of the socket still unanswered then finds no socket to replace.
    provider.destroy();
    trips.stop();
    provider.off("connection-close", onConnectionClose);
    provider.off("status", onStatus);
    // The provider leaves the awareness (and its 3 s timer) alive; Node would not exit.
    retireAwareness(awareness);
    resolveSynced();
  }

  // y-websocket tells no close of a socket already gone: the app's disconnect() within its back-off
  // after a link cut mid-sync, whose next attempt the first claims waited for, left them waiting.
  const disconnect = provider.disconnect.bind(provider);
  provider.disconnect = () => (provider.ws || (clock.closed(), clock.giveUp()), disconnect());
  provider.on("sync", onSync);
  provider.on("connection-close", onConnectionClose);
  provider.on("status", onStatus);
  // A close the server means for good (4400-4499, e.g. 4401 for a refused token): the provider
  // stops for good, so it is released as by destroy(). whenSynced never settled, and a store given
  // this awareness stayed with it when the app connected again: no other device saw it, nor it them.
  provider.on("closed", destroy);
  doc.on("destroy", destroy);
  return { whenSynced, awareness, destroy, provider };
}
