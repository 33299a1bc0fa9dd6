import { registerConnector } from "../core/connectors.ts";
import { HocuspocusProvider, HocuspocusProviderWebsocket, WebSocketStatus } from "@hocuspocus/provider";
import type { Doc } from "yjs";
import { TripSamples } from "../core/trips.ts";
import { createAwareness, retireAwareness } from "../sync/awareness-clock.ts";
import type { WebSocketConstructor } from "../sync/connect-peers.ts";
import {
  announceAgain,
  dropRemotePresence,
  droppingMalformed,
  sharedTrips,
  TRIP_FIELD,
  requireDoc,
  type Connection,
} from "../sync/connection.ts";
import { heldRemovals } from "../sync/held-removals.ts";
import { resyncWhenOnline } from "../sync/back-online.ts";
import { passingClose, syncClock } from "../sync/sync-clock.ts";
import { HocuspocusAuthError, UNAVAILABLE_REASON } from "./errors.ts";
import { checkedOptions, type HocuspocusOptions } from "./options.ts";
import { guarded, relaysRemoval } from "./socket.ts";
import { observeUpdateTrips } from "./update-trips.ts";
import { echoFence } from "./echo-fence.ts";
import { syncCheck } from "./sync-check.ts";

export type { HocuspocusOptions };

export type HocuspocusConnection = Connection & {
  /** The underlying provider and its socket, for status events and partitions in tests. */
  provider: HocuspocusProvider;
  websocket: HocuspocusProviderWebsocket;
  /** The instance in use (or being tried) now. */
  readonly url: string;
  /** Set once the server refused the token: the connection has stopped for good. */
  readonly error: HocuspocusAuthError | undefined;
};

/** How @hocuspocus/provider words a token function's failure, which it reports as a refusal. */
const TOKEN_FETCH_FAILED = "Failed to get token";

/**
 * Syncs `doc` with other devices through Hocuspocus (one instance or a cluster on Redis), with the
 * guarantees of connectPeers: a peer's presence removal is a failure event, our own lost connection
 * is not taken for the peers' death, and a reconnect is visible to the others at once.
 */
export function connectHocuspocus(doc: Doc, opts: HocuspocusOptions): HocuspocusConnection {
  requireDoc("connectHocuspocus", doc);
  const { urls, token, delay, oneInstance, onRefused } = checkedOptions(opts);

  let index = 0;
  let destroyed = false;
  let error: HocuspocusAuthError | undefined;
  let resolveSynced!: () => void;
  let rejectSynced!: (reason: HocuspocusAuthError) => void;
  const whenSynced = new Promise<void>((resolve, reject) => ((resolveSynced = resolve), (rejectSynced = reject)));
  // A caller that never awaits whenSynced must not get an unhandled rejection; one that does still sees it.
  whenSynced.catch(() => {});
  const trips = new TripSamples();
  const clock = syncClock(whenSynced);
  let closedSockets = 0;
  // Stores on this doc make their first claim once it synced: replicas on other devices may race.
  // Or once every instance failed a connection before that, or refused the token (see syncClock).
  // The trips of this replica's own updates size their window; in sync with no other device present
  // for longer than it, they claim at once (settle-window.ts): a device that arrives announces
  // itself before it claims.
  const awareness = createAwareness(doc);
  const tripMs = sharedTrips(awareness, trips);
  const fence = oneInstance
    ? echoFence(
        doc,
        () => clock.info.syncedSince?.() !== undefined,
        (origin) => origin === provider,
      )
    : undefined;
  const unregister = registerConnector(doc, {
    ...clock.info,
    crossDevice: true,
    tripMs,
    ...(fence && { fence: fence.fence }),
    awareness,
    // As connectPeers': a claim while the socket waits out its back-off (a device back online)
    // connects now and waits for that sync. None after disconnect() or a passing failure's
    // retryLater, nor after such a connect failed, until a sync (sync-clock.ts).
    resync: () => {
      const wait = websocket.shouldConnect ? clock.resync() : undefined;
      // An attempt already under way is waited for, not started again (connect() would drop it).
      if (wait && websocket.status === WebSocketStatus.Disconnected) websocket.connect().catch(() => {});
      return wait;
    },
  });

  // The provider's retry loop ends at a socket's first message ("connect"). A socket closed before
  // it (accepted, then dropped: a proxy in front of an instance that is down) leaves that loop
  // retrying with its growing delay, yet the provider started another loop on every such close,
  // each one's first attempt at once: 188 sockets in 6 s at a 200 ms delay. The loop's cancel,
  // which the provider forgets as the socket opens, is handed back to it on such a close instead.
  let loop: (() => void) | undefined;
  const websocket = new HocuspocusProviderWebsocket({
    url: urls[0]!,
    // Called before the provider's own open handler forgets it.
    onOpen: () => (loop = websocket.cancelWebsocketRetry),
    delay,
    minDelay: Math.min(delay, 1000),
    WebSocketPolyfill: guarded(opts.WebSocketPolyfill ?? (WebSocket as unknown as WebSocketConstructor)),
  });
  // Registered before the provider attaches: the socket's own close handler emits "disconnect"
  // before the provider's handler runs, which removes every remote presence as if they had left.
  // It fires on every closed socket, failed attempts included. As connectPeers': a socket the
  // server accepted that closed mid-sync in passing (passingClose: a flaky link, a server
  // restarting) leaves the claims waiting for the next attempt, within the stores' bound, as does
  // a socket we close (`ours`; 4408, the silence check's or a back-online replacement's). One the
  // server closed on purpose (1008, a token refused once connected) or the app did (disconnect())
  // has no next attempt that syncs, and its claims waited out the whole bound.
  const held = heldRemovals();
  let ours = false;
  const onDisconnect = ({ event }: { event?: { code?: number } } = {}): void => {
    // Heard before the provider decides to reconnect: see `loop`. Else it reconnects from a timer
    // that never reads shouldConnect again: the app's disconnect() within its delay got its socket
    // back, and a disconnect() and connect() within it had the app's socket replaced as it opened.
    // Set here, ours stands in for it, and the app's connect() drops it as it drops a retry loop.
    websocket.cancelWebsocketRetry ??= loop ?? reconnectLater();
    fence?.lost();
    check.lost();
    const cut = clock.closed(ours || event?.code === 4408 || passingClose(event?.code));
    ours = false;
    if (!cut && (!websocket.shouldConnect || ++closedSockets >= urls.length)) clock.giveUp();
    held.drop();
    dropRemotePresence(awareness);
    if (urls.length > 1 && !destroyed && error === undefined) {
      index = (index + 1) % urls.length;
      websocket.configuration.url = urls[index]!; // the retry loop reads it at its next attempt
    }
  };
  websocket.on("disconnect", onDisconnect);
  websocket.on("connect", () => (loop = undefined));
  function reconnectLater(): () => void {
    const timer = setTimeout(() => websocket.shouldConnect && websocket.connect().catch(() => {}), delay);
    return () => clearTimeout(timer);
  }

  const provider = new HocuspocusProvider({
    websocketProvider: websocket,
    name: opts.room,
    document: doc,
    awareness,
    // Always a function returning a promise: the provider's union type does not take our wider one.
    token: async () => (typeof token === "function" ? await token() : token),
    // Emitted at each connection's sync (after every reconnect too), never when it is lost.
    onSynced: () => {
      passingFailures = 0;
      clock.synced();
      resolveSynced();
    },
    // The provider sends the token, then its sync step 1, right after this: the initial sync's start.
    onOpen: () => clock.opened(),
    // Only after authentication does the server read our awareness, so bump the clock then.
    onAuthenticated: () => announceAgain(awareness),
    onAuthenticationFailed: ({ reason }) => {
      if (destroyed || error !== undefined) return;
      // Two failures that pass are reported as refusals too, and are asked again after a back-off:
      // the provider's own failure to get a token (the app's token function threw: an auth
      // backend's blip), and a server that cannot open the room for now (its database down).
      // The server answered (not a link cut mid-sync): its close counts as a failed attempt.
      if (reason.startsWith(TOKEN_FETCH_FAILED) || reason.startsWith(UNAVAILABLE_REASON)) return (clock.lost(), retryLater());
      error = new HocuspocusAuthError(opts.room, reason);
      websocket.disconnect(); // stop: the server keeps the socket open and would never sync us
      rejectSynced(error);
      // Stopped for good, so released as destroy() does: a store given this awareness follows the
      // connection the app makes next (it stayed on this one, seen by no other device). After the
      // provider's message handling, which the app's callback throwing must not break either:
      // that is reported the way an event listener's error is.
      const refused = error;
      queueMicrotask(() => (destroy(), onRefused?.(refused)));
    },
  });
  // A passing failure: a new connection after a back-off (the delay, doubling to 30 s).
  let passingFailures = 0;
  // One reconnect pending at most, its timer's or its wait for the socket's close: a later failure
  // (two sockets' token requests) drops it, or that close reconnected before the later back-off.
  let dropRetry = (): void => {};
  // The app's own disconnect() drops it too (the provider's shouldConnect cannot tell that one from
  // ours below): its socket came back when the back-off or the slow close ended, against its wish.
  // It ends the first claims' wait now: its socket's close may read as a passing one (the link gone
  // as it closed: 1006, 1001), or be long past (a link cut mid-sync): they waited the whole bound.
  const disconnect = websocket.disconnect.bind(websocket);
  websocket.disconnect = () => (dropRetry(), clock.closed(), clock.giveUp(), disconnect());
  // A connect() that starts a socket (the app's) drops it too: the back-off's end replaced that socket
  // while it opened, or, open, reconnected at once at its close. On a socket still closing the
  // provider's connect() does nothing: the pending reconnect is then the one that comes back.
  // After a destroy(), nothing connects: a socket made then was kept open for good, seen by nobody.
  const connect = websocket.connect.bind(websocket);
  websocket.connect = () => (destroyed ? Promise.resolve() : (websocket.status !== WebSocketStatus.Connected && dropRetry(), connect()));
  function retryLater(): void {
    dropRetry();
    disconnect();
    const wait = Math.min(delay * 2 ** passingFailures++, 30_000);
    const reconnect = (): void => {
      websocket.off("disconnect", reconnect);
      if (!destroyed && error === undefined) websocket.connect().catch(() => {});
    };
    const timer = setTimeout(() => {
      // connect() does nothing while the socket still reads as connected, and a slow close
      // handshake outlasts the back-off: the client then never came back (here, for 27 s).
      if (websocket.status === "connected") websocket.on("disconnect", reconnect);
      else reconnect();
    }, wait);
    dropRetry = () => (clearTimeout(timer), websocket.off("disconnect", reconnect));
  }
  // A server that closes the room (an instance stopping: SIGTERM in a rolling deploy) sends a close
  // message, on which the provider drops every remote presence as if those peers had left, keeping
  // their clocks: their claims went stale at once and were taken over, and the next instance's
  // re-announcement was ignored until the 15 s renewal. It is our connection that ends: and the
  // socket, left open by the instance while it stores, served nothing until it exited. Closed, it
  // takes the way of a lost connection: the next instance.
  const closeRoom = provider.onClose.bind(provider);
  provider.onClose = () => {
    held.drop();
    dropRemotePresence(awareness);
    closeRoom();
    // A lost connection's close (the next instance likely syncs), not one on purpose: see onDisconnect.
    ours = !!websocket.webSocket;
    websocket.webSocket?.close();
  };
  // A stopping instance tells each client still connected that the ones it closed before left
  // (RELAYED_REMOVAL_GRACE_MS): such a removal counts only if our own connection outlives it.
  const receive = provider.onMessage.bind(provider);
  // Fences are answered right after the provider applied the message that brought their claims back.
  // A held removal is applied from a timer, out of the socket's guard: guarded as the socket is.
  provider.onMessage = (event) =>
    relaysRemoval(event.data, doc.clientID)
      ? held.hold(droppingMalformed("connectHocuspocus", websocket.url, () => receive(event)))
      : (receive(event), fence?.received(event.data), check.received(event.data));
  const observer = observeUpdateTrips(provider, trips);
  // Our p95 for the other devices' windows (sharedTrips), after each ack: to 10 ms, sent only when
  // that changes (an awareness message per ack would double the traffic of every write).
  provider.on("unsyncedChanges", () => {
    const ms = Math.ceil(trips.p95()! / 10) * 10;
    if (trips.count > 0 && awareness.getLocalState()?.[TRIP_FIELD] !== ms) awareness.setLocalStateField(TRIP_FIELD, ms);
  });
  provider.attach();

  const check = syncCheck(
    doc,
    opts.room,
    () => websocket.webSocket,
    () => clock.info.syncedSince() !== undefined,
  );
  const stopOnline = resyncWhenOnline(clock, check.check, () => {
    // Only the socket that did not answer, and only while the app wants one (not after its
    // disconnect() or a destroy(): a close on a half-open socket takes its handshake's 30 s).
    if (destroyed || !websocket.shouldConnect || !websocket.webSocket) return;
    // The provider's own forced close (its silence check's), with no reconnect of its own armed:
    // that one, `delay` later, would restart the attempt made here at once.
    websocket.cancelWebsocketRetry = () => {};
    websocket.onClose({ event: { code: 4408, reason: "forced" } } as Parameters<typeof websocket.onClose>[0]);
    websocket.connect().catch(() => {});
  });

  function destroy(): void {
    if (destroyed) return;
    destroyed = true;
    dropRetry();
    stopOnline();
    check.lost();
    held.drop();
    unregister();
    observer.stop();
    fence?.stop();
    doc.off("destroy", destroy);
    // The provider sends our "left" awareness frame, then closes the room; then the socket goes.
    provider.destroy();
    websocket.off("disconnect", onDisconnect);
    websocket.destroy();
    retireAwareness(awareness);
    resolveSynced();
  }
  doc.on("destroy", destroy);

  return {
    whenSynced,
    awareness,
    destroy,
    provider,
    websocket,
    get url() {
      return websocket.configuration.url;
    },
    get error() {
      return error;
    },
  };
}
