import type * as Y from "yjs";
import { connectorsOf, type ConnectorInfo } from "./connectors.ts";
import { windowForTrip } from "./trips.ts";
import { hasUpdateListeners } from "./yjs-internals.ts";

export type SettleInputs = {
  doc: Y.Doc;
  /** Web Locks arbitrate keys between this browser's tabs. */
  exactTabs: boolean;
  /** The `settleMs` option, when given: the window across devices, as set. */
  fixedMs: number | undefined;
  /** The window before any trip was measured (DEFAULT_SETTLE_MS). */
  defaultMs: number;
  /** How many replicas of other browsers are present now; undefined when this store cannot tell. */
  elsewhere: (() => number) | undefined;
};

/**
 * Why a claim made now waits the window it does, for the devtools and `inspect()`:
 * - `nothing-syncs`: no connector, no listener of the doc's updates: no window, eager;
 * - `tab-locks`: only tabs of this browser can race, and the key's Web Lock decides: no window;
 * - `settle-ms`: the store's `settleMs` option;
 * - `default`: the default window, no round trip known to size it by;
 * - `initial-sync`: shortened to what the connectors' initial sync bounds a round trip by;
 * - `measured-trip`: sized from the connectors' measured round trips;
 * - `disconnected`: cut off from every server for longer than the window: no window, eager;
 * - `alone`: no replica of another browser present, in sync for longer than the window: no window, eager.
 */
export type SettleWhy =
  "nothing-syncs" | "tab-locks" | "settle-ms" | "default" | "initial-sync" | "measured-trip" | "disconnected" | "alone";

/**
 * `fence`: the claim is ordered at the one sync server other devices reach it through (see
 * ConnectorInfo.fence); `ms` then only covers an eager claim made before its maker saw this replica
 * arrive, and `fallbackMs` is the window used when the server's order cannot be learnt.
 */
export type Settle = {
  ms: number;
  eager: boolean;
  why: SettleWhy;
  /** The round trip the window was sized from (`measured-trip`: its p95; `initial-sync`: the sync's length). */
  tripMs?: number;
  fence?: { ask: (answered: (inOrder: boolean) => void) => boolean; fallbackMs: number };
};

/**
 * The settle window of a claim made now. A doc nothing syncs (no connector, no listener of its
 * updates: a store alone in Node, say) has nobody to race: no window, and the claim is eager, so it
 * outranks a claim of its revision still settling on a replica connected later. Between tabs of one
 * browser the key's Web Lock decides: no window. Across devices the window covers a rival claim's
 * trip, sized from the connectors' measured round trips (windowForTrip). A replica with no replica
 * of another browser present, in sync for longer than that window (a device booting now announces
 * itself before it claims), dispatches at once with an eager claim, which a racing newcomer's claim
 * yields to.
 *
 * A replica disconnected from every server for longer than the window likewise has nobody to race
 * until it reconnects: no window, eager. Once a connection is open again, the window is back.
 *
 * Through one sync server the race is decided exactly rather than timed: the server answers each
 * client in order, so a fence sent just before the claim tells which rival claims reached it first
 * (the first claim wins; see Attempt). What the window must still cover is an eager claim made by a
 * replica that had not yet heard this one arrive: that is over once this replica has been in sync
 * for the window, so a replica long in sync waits only for its fence.
 */
export function settleFor(inputs: SettleInputs, now = Date.now()): Settle {
  const connectors = connectorsOf(inputs.doc);
  const devices = connectors.filter((c) => c.crossDevice);
  const { fixedMs } = inputs;
  if (fixedMs === undefined && connectors.length === 0 && !hasUpdateListeners(inputs.doc))
    return { ms: 0, eager: true, why: "nothing-syncs" };
  if (inputs.exactTabs && connectors.length > 0 && devices.length === 0) return { ms: 0, eager: false, why: "tab-locks" };
  if (fixedMs !== undefined) return { ms: fixedMs, eager: false, why: "settle-ms" };
  if (devices.length === 0) return { ms: inputs.defaultMs, eager: false, why: "default" };
  const sized = sizedWindow(devices, inputs.defaultMs);
  const { ms } = sized;
  // Disconnected for longer than the window (its server down, say): no rival's claim can reach this
  // replica, nor its claim a rival, before a reconnect. Waiting buys nothing; eager, a claim of
  // its revision still settling elsewhere when they meet yields to it.
  const cutOff = devices.every((c) => {
    const since = c.disconnectedSince?.();
    return since !== undefined && now - since >= ms;
  });
  if (cutOff) return { ms: 0, eager: true, why: "disconnected" };
  const alone = inputs.elsewhere !== undefined && inputs.elsewhere() === 0;
  const settledIn = devices.every((c) => {
    const since = c.syncedSince?.();
    return since !== undefined && now - since >= ms;
  });
  if (alone && settledIn) return { ms: 0, eager: true, why: "alone" };
  const fence = devices.length === 1 ? devices[0]!.fence : undefined;
  if (!fence) return { ...sized, eager: false };
  const since = devices[0]!.syncedSince?.();
  const left = since === undefined ? ms : Math.max(0, ms - (now - since));
  return { ...sized, ms: left, eager: false, fence: { ask: fence, fallbackMs: ms } };
}

const known = (t: number | undefined): t is number => t !== undefined;

type Sized = { ms: number; why: SettleWhy; tripMs?: number };

/**
 * Two measured trips of the slowest connector (windowForTrip). Before every connector has measured
 * one, the default, shortened where every connector's initial sync bounds its trip below it: a
 * page's first claims come right after that sync, long before the first probe's answer.
 */
function sizedWindow(devices: ConnectorInfo[], defaultMs: number): Sized {
  const trips = devices.map((c) => c.tripMs?.());
  if (trips.every(known)) {
    const tripMs = Math.max(...trips);
    return { ms: windowForTrip(tripMs), why: "measured-trip", tripMs };
  }
  const bounds = devices.map((c, i) => trips[i] ?? c.syncTripMs?.());
  if (!bounds.every(known)) return { ms: defaultMs, why: "default" };
  const tripMs = Math.max(...bounds);
  const ms = windowForTrip(tripMs);
  return ms < defaultMs ? { ms, why: "initial-sync", tripMs } : { ms: defaultMs, why: "default" };
}
