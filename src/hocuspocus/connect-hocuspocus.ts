import { registerConnector } from "../core/connectors.ts";
import { HocuspocusProvider, HocuspocusProviderWebsocket, WebSocketStatus } from "@hocuspocus/provider";
import * as decoding from "lib0/decoding";
import type { Doc } from "yjs";
import { describe, shownUrl, shownValue } from "../core/errors.ts";
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
  requireNonEmptyString,
  requireOptions,
  requireWebSocket,
  type Connection,
} from "../sync/connection.ts";
import { heldRemovals, removesOther } from "../sync/held-removals.ts";
import { resyncWhenOnline } from "../sync/back-online.ts";
import { syncClock } from "../sync/sync-clock.ts";
import { HocuspocusAuthError, UNAVAILABLE_REASON } from "./errors.ts";
import { warnUnknownOptions } from "../core/options.ts";
import { observeUpdateTrips } from "./update-trips.ts";
import { echoFence } from "./echo-fence.ts";
import { syncCheck } from "./sync-check.ts";

export type HocuspocusOptions = {
  /** One Hocuspocus URL, e.g. "wss://sync.example.com". Give `url` or `urls`. */
  url?: string | undefined;
  /** Several instances of one cluster: on every lost connection or failed attempt, the next one. */
  urls?: string[] | undefined;
  /** Document name on the server: one per doc and trust boundary. */
  room: string;
  /** Sent to the server's `onAuthenticate` (a function is asked again at every connection). */
  token: string | (() => string | Promise<string>);
  /** Needed where there is no global WebSocket (Node 20). */
  WebSocketPolyfill?: WebSocketConstructor | undefined;
  /** First reconnect delay in ms (default 1000, Hocuspocus' own); later attempts back off. */
  reconnectDelayMs?: number | undefined;
  /**
   * Called once when the server refuses the token, whenever that happens: at the first connection
   * (`whenSynced` rejects too) or at a reconnect after a secret was rotated, when `whenSynced` has
   * long resolved. The connection has stopped and is released as by destroy(); show a sign-in and
   * connect again with a new token: the stores on the doc follow the new connection.
   */
  onRefused?: ((error: HocuspocusAuthError) => void) | undefined;
  /**
   * Every device of the room reaches this one instance (`url`, no cluster behind it): its order
   * decides races between devices' claims exactly, as y-websocket's does (a fence), instead of a
   * timed window. Default false: instances on Redis each order their own clients first.
   */
  oneInstance?: boolean | undefined;
};

export type HocuspocusConnection = Connection & {
  /** The underlying provider and its socket, for status events and partitions in tests. */
  provider: HocuspocusProvider;
  websocket: HocuspocusProviderWebsocket;
  /** The instance in use (or being tried) now. */
  readonly url: string;
  /** Set once the server refused the token: the connection has stopped for good. */
  readonly error: HocuspocusAuthError | undefined;
};

type Listener = (event: unknown) => void;
type Listening = {
  addEventListener(type: string, listener: Listener): void;
  removeEventListener(type: string, listener: Listener): void;
};

/** Each message listener of a socket, as guarded() registered it. */
const guardedListeners = new WeakMap<Listener, Listener>();

/**
 * Every socket gets an error listener of its own that stays. The provider removes its listeners
 * before it closes a socket; `ws` then reports a socket closed while still connecting (destroy()
 * during a connection attempt) as an "error" event with no listener left: an uncaught exception
 * that would end a Node process. The provider's own listener still sees every error. Its message
 * listeners never throw (droppingMalformed).
 */
function guarded(Base: WebSocketConstructor): WebSocketConstructor {
  return class extends (Base as new (url: string, protocols?: string | string[]) => Listening) {
    readonly #url: string;
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      this.#url = url;
      super.addEventListener("error", () => {});
    }
    override addEventListener(type: string, listener: Listener): void {
      if (type !== "message") return super.addEventListener(type, listener);
      const safe = droppingMalformed("connectHocuspocus", this.#url, listener);
      guardedListeners.set(listener, safe);
      super.addEventListener(type, safe);
    }
    override removeEventListener(type: string, listener: Listener): void {
      super.removeEventListener(type, (type === "message" && guardedListeners.get(listener)) || listener);
    }
  };
}

/** Hocuspocus' awareness message (its MessageType.Awareness), after the room's name. */
const AWARENESS_MESSAGE = 1;

/** Whether a message from the server relays the removal of a peer's presence (see heldRemovals). */
function relaysRemoval(data: unknown, self: number): boolean {
  try {
    const decoder = decoding.createDecoder(new Uint8Array(data as ArrayBuffer));
    decoding.readVarString(decoder);
    return decoding.readVarUint(decoder) === AWARENESS_MESSAGE && removesOther(decoding.readVarUint8Array(decoder), self);
  } catch {
    return false; // the provider's own handler reports it
  }
}

/** How @hocuspocus/provider words a token function's failure, which it reports as a refusal. */
const TOKEN_FETCH_FAILED = "Failed to get token";

function checkedUrls(opts: HocuspocusOptions): string[] {
  if (opts.url !== undefined && opts.urls !== undefined) throw new TypeError("connectHocuspocus: give `url` or `urls`, not both");
  const urls = opts.urls ?? (opts.url === undefined ? [] : [opts.url]);
  if (!Array.isArray(urls) || urls.length === 0)
    throw new TypeError(
      `connectHocuspocus: \`url\` or \`urls\` is required, got ${Array.isArray(opts.urls) ? "[]" : shownValue(opts.urls ?? opts.url)}`,
    );
  for (const url of urls) {
    requireNonEmptyString("connectHocuspocus", "url", url);
    let protocol = "";
    try {
      protocol = new URL(url).protocol;
    } catch {
      // reported below
    }
    if (protocol !== "ws:" && protocol !== "wss:")
      throw new TypeError(`connectHocuspocus: \`url\` must be a ws:// or wss:// URL, got ${shownUrl(url)}`);
  }
  return urls;
}

/**
 * Syncs `doc` with other devices through Hocuspocus (one instance or a cluster on Redis), with the
 * guarantees of connectPeers: a peer's presence removal is a failure event, our own lost connection
 * is not taken for the peers' death, and a reconnect is visible to the others at once.
 */
export function connectHocuspocus(doc: Doc, opts: HocuspocusOptions): HocuspocusConnection {
  requireDoc("connectHocuspocus", doc);
  requireOptions("connectHocuspocus", opts);
  warnUnknownOptions("connectHocuspocus", opts, {
    url: 0,
    urls: 0,
    room: 0,
    token: 0,
    WebSocketPolyfill: 0,
    reconnectDelayMs: 0,
    onRefused: 0,
    oneInstance: 0,
  } satisfies Record<keyof HocuspocusOptions, 0>);
  const urls = checkedUrls(opts);
  requireNonEmptyString("connectHocuspocus", "room", opts.room);
  requireWebSocket("connectHocuspocus", opts.WebSocketPolyfill);
  if (typeof opts.token !== "string" && typeof opts.token !== "function") {
    // A token is a secret: the refusal says what it is, never what it holds.
    const got = opts.token === null || opts.token === undefined ? String(opts.token) : `a value of type ${typeof opts.token}`;
    throw new TypeError(`connectHocuspocus: \`token\` must be a string or a function returning one, got ${got}`);
  }
  if (opts.WebSocketPolyfill === undefined && typeof WebSocket === "undefined") {
    throw new TypeError("connectHocuspocus: no global WebSocket here; pass `WebSocketPolyfill` (e.g. from 'ws')");
  }
  const token = opts.token;
  const delay = opts.reconnectDelayMs ?? 1000;
  if (!Number.isFinite(delay) || delay < 0)
    throw new TypeError(`connectHocuspocus: \`reconnectDelayMs\` must be a number ≥ 0, got ${describe(delay)}`);
  const oneInstance = opts.oneInstance ?? false;
  if (typeof oneInstance !== "boolean")
    throw new TypeError(`connectHocuspocus: \`oneInstance\` must be a boolean, got ${describe(oneInstance)}`);
  if (oneInstance && urls.length > 1)
    throw new TypeError(`connectHocuspocus: \`oneInstance\` means one instance, got ${urls.length} \`urls\`; give \`url\``);
  const onRefused = opts.onRefused;
  if (onRefused !== undefined && typeof onRefused !== "function")
    throw new TypeError(`connectHocuspocus: \`onRefused\` must be a function, got ${describe(onRefused)}`);

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
  // server accepted that dropped mid-sync (a flaky link, not a server down) leaves the claims
  // waiting for the next attempt, within the stores' bound; a claim made before it sent a request
  // another device had in flight.
  const held = heldRemovals();
  const onDisconnect = (): void => {
    // Heard before the provider decides to reconnect: see `loop`.
    websocket.cancelWebsocketRetry ??= loop;
    fence?.lost();
    check.lost();
    if (!clock.closed(true) && ++closedSockets >= urls.length) clock.giveUp();
    held.drop();
    dropRemotePresence(awareness);
    if (urls.length > 1 && !destroyed && error === undefined) {
      index = (index + 1) % urls.length;
      websocket.configuration.url = urls[index]!; // the retry loop reads it at its next attempt
    }
  };
  websocket.on("disconnect", onDisconnect);
  websocket.on("connect", () => (loop = undefined));
  // The provider reconnects a lost connection from a timer it never clears, whose connect() wants
  // a connection again: after a destroy() within its delay, a socket was made and kept open for
  // good, reconnecting on its own, seen by nobody. The timer still runs out; it then does nothing.
  const connect = websocket.connect.bind(websocket);
  websocket.connect = () => (destroyed ? Promise.resolve() : connect());

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
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  function retryLater(): void {
    websocket.disconnect();
    const wait = Math.min(delay * 2 ** passingFailures++, 30_000);
    const reconnect = (): void => {
      websocket.off("disconnect", reconnect);
      if (!destroyed && error === undefined) websocket.connect().catch(() => {});
    };
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      // connect() does nothing while the socket still reads as connected, and a slow close
      // handshake outlasts the back-off: the client then never came back (here, for 27 s).
      if (websocket.status === "connected") websocket.on("disconnect", reconnect);
      else reconnect();
    }, wait);
  }
  // A server that closes the room (an instance stopping: SIGTERM in a rolling deploy) sends a close
  // message, on which the provider drops every remote presence as if those peers had left, keeping
  // their clocks: their claims went stale at once and were taken over, and the next instance's
  // re-announcement was ignored until the 15 s renewal. It is our connection that ends: and the
  // socket, left open by the instance while it stores, served nothing until it exited. Closed, it
  // takes the way of a lost connection: the next instance.
  const closeRoom = provider.onClose.bind(provider);
  provider.onClose = () => (held.drop(), dropRemotePresence(awareness), closeRoom(), websocket.webSocket?.close());
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
    clearTimeout(retryTimer);
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
