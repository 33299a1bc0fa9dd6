import type { Awareness } from "y-protocols/awareness";
import type { Doc } from "yjs";
import { kindOf, shownUrl, shownValue } from "../core/errors.ts";
import { CONNECTION_LOST_ORIGIN } from "../core/presence.ts";
import { DEFAULT_SETTLE_MS } from "../core/store-options.ts";
import type { TripSamples } from "../core/trips.ts";

/** What connectTabs, connectPeers and connectHocuspocus hand back: one way of syncing a Y.Doc. */
export type Connection = {
  /**
   * Resolves once the connection's own source of truth has been read: IndexedDB for tabs (at once
   * without it), the server's state for peers. It never waits for other tabs, which may not exist.
   * It also resolves on destroy(), so teardown code that awaits it cannot hang.
   */
  whenSynced: Promise<void>;
  /**
   * Presence of the replicas reached through this connection, keyed by Y.Doc clientID. The local
   * state starts as `{}`; a missing state means the replica left (or went silent for 30 s).
   */
  awareness: Awareness;
  /**
   * Idempotent. Tells the others this replica left, then releases every handle (Node can exit),
   * but for one: a reconnect timer the provider armed while offline, which then does nothing and
   * holds Node up to its back-off (y-websocket: 2.5 s at most; Hocuspocus: its retry delay).
   */
  destroy(): void;
};

/**
 * Origin of the awareness removals that happen because *this* side lost its connection, as opposed
 * to a peer leaving. A store should not treat those peers as dead: it cannot tell either way.
 */
export { CONNECTION_LOST_ORIGIN as connectionLostOrigin } from "../core/presence.ts";

/**
 * Called when *our* socket closed. Providers then drop every remote presence with the same origin
 * as a peer that really left; drop them first under connectionLostOrigin so a store can tell the two.
 * Only local listeners hear of it ("change", never "update"): a provider sends every "update"
 * through a socket that may still be open (a close we asked for, the 30 s silence check), and the
 * server would relay "they all left" to every peer, which would take over live claims. Their clocks
 * are forgotten too, so the server's re-announcement at the same clock shows them again at once.
 */
export function dropRemotePresence(awareness: Awareness): void {
  const others = [...awareness.getStates().keys()].filter((id) => id !== awareness.clientID);
  if (others.length === 0) return;
  for (const id of others) {
    awareness.states.delete(id);
    awareness.meta.delete(id);
  }
  awareness.emit("change", [{ added: [], updated: [], removed: others }, CONNECTION_LOST_ORIGIN]);
}

/**
 * `handle`, a socket's message listener, made never to throw. Providers read each frame inside it:
 * a malformed one from the server (garbage, a message or sync step they do not know, a truncated
 * awareness) threw out of the handler, uncaught, naming nothing; in Node it also stalled the
 * socket's reader, so the device stayed "in sync" and heard nothing more. The frame is dropped with
 * a warning naming the server; what it should have carried comes with the next sync round.
 */
export function droppingMalformed<A extends unknown[]>(who: string, url: string, handle: (...args: A) => void) {
  return (...args: A): void => {
    try {
      handle(...args);
    } catch (error) {
      console.warn(`shared-fetch: ${who} dropped a malformed message from ${shownUrl(url)}:`, error);
    }
  };
}

/**
 * Called once a (re)connection is usable. The server removed us at our last clock when our socket
 * closed; providers re-announce us at that same clock, which everyone ignores until the 15 s
 * renewal. Setting the state again bumps the clock, so we are visible at once.
 */
export function announceAgain(awareness: Awareness): void {
  const state = awareness.getLocalState();
  if (state !== null) awareness.setLocalState(state);
}

/**
 * The p95 round trip (ms) a device's connector measured to its sync server, published in its
 * awareness (connectPeers at each probe, connectHocuspocus when it changes by 10 ms).
 */
export const TRIP_FIELD = "sharedFetchTrip";

/**
 * A connector's `tripMs`: the longest of its own p95 (`own`'s) and the trips the other devices here
 * published. A slower device's eager claim, made before it heard of this one, takes its own round
 * trip to reach the server: a newcomer's window sized from its own trips alone ended first on a fast
 * link, and both sent the request. Before its own first sample, a published trip counts only where
 * its window is longer than the default (the store's, or what the initial sync bounds it by, is kept).
 */
export function sharedTrips(awareness: Awareness, own: TripSamples) {
  return (): number | undefined => {
    const mine = own.p95();
    const floor = mine ?? (DEFAULT_SETTLE_MS - 10) / 2;
    let max = floor;
    // Read like any record (invariant 14): a number of ms, anything else ignored (JSON carries no
    // Infinity or NaN). Our own counts too: it is our p95.
    awareness.getStates().forEach((state) => {
      const trip: unknown = state[TRIP_FIELD];
      if (typeof trip === "number" && trip > max) max = trip;
    });
    return max > floor ? max : mine;
  };
}

/**
 * What an app's `connectPeers` returned, as a connection or nothing. An `async` connector hands over
 * a promise: taken for a connection, a store's destroy (and a worker's retire) threw at it before
 * the doc was closed.
 */
export function connectionOrNothing(who: string, made: unknown): Connection | undefined {
  if (made && typeof (made as Connection).destroy !== "function")
    throw new TypeError(`${who}: connectPeers must return a connection (or nothing), got ${shownValue(made)}`);
  return (made as Connection | undefined) || undefined;
}

/**
 * Destroys each connection on its own: an app's connector whose destroy() throws (a provider it
 * already tore down) kept the rest open — the doc, a worker's lock and its retirement.
 */
export function destroyEach(connections: (Connection | undefined)[]): void {
  for (const c of connections) {
    try {
      c?.destroy();
    } catch (error) {
      console.error("shared-fetch: a connection's destroy() threw; the rest is closed anyway", error);
    }
  }
}

/** Throws a TypeError unless `value` looks like a Y.Doc (by shape: another copy of yjs is another class). */
export function requireDoc(fn: string, value: unknown): asserts value is Doc {
  const doc = value as Doc | null;
  if (typeof doc === "object" && doc !== null && typeof doc.getMap === "function" && typeof doc.on === "function") return;
  const got = kindOf(value) === "an object" ? "an object that is not one" : kindOf(value);
  throw new TypeError(`${fn}: \`doc\` must be a Y.Doc, got ${got}`);
}

/** Throws before anything is made: a provider given a non-constructor throws after its timers started. */
export function requireWebSocket(fn: string, value: unknown): void {
  if (value !== undefined && typeof value !== "function")
    throw new TypeError(`${fn}: \`WebSocketPolyfill\` must be a WebSocket constructor when given, got ${kindOf(value)}`);
}

/** Throws a TypeError naming the function, the option and the value, unless it is absent or a boolean. */
export function requireOptionalBoolean(fn: string, option: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean")
    throw new TypeError(`${fn}: \`${option}\` must be a boolean when given, got ${shownValue(value)}`);
}

/**
 * Throws unless the options are an object: a name or URL given in their place is named, not taken
 * for `{}`. `shape` says what they hold, so `connectTabs(doc)` learns of `name` in one step.
 */
export function requireOptions(fn: string, value: unknown, shape = "an object"): void {
  if (typeof value !== "object" || value === null) throw new TypeError(`${fn}: the options must be ${shape}, got ${shownValue(value)}`);
}

/** Throws a TypeError naming the function, the option and the bad value. */
export function requireNonEmptyString(fn: string, option: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value === "")
    throw new TypeError(`${fn}: \`${option}\` must be a non-empty string, got ${shownValue(value)}`);
}
