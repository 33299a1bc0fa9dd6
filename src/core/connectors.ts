import type { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";

/** What a connector (connectTabs, connectPeers, …) tells the stores on its doc. */
export type ConnectorInfo = {
  /** Settles once the connector's initial sync is done (or it gave up): claims wait for it. */
  whenSynced: Promise<void>;
  /** True when replicas on other devices can reach this doc through it (a sync server). */
  crossDevice: boolean;
  /**
   * True when what it loads may hold records other devices wrote, on their clocks: this browser
   * synced a doc of its name with them (another tab's connectPeers, an earlier visit's, one made later).
   */
  othersWrote?: () => boolean;
  /** A high percentile of its measured round trips to the server, once it has samples (ms). */
  tripMs?: () => number | undefined;
  /**
   * An upper bound on one round trip: how long its last initial sync took, from the socket's open
   * to the server's answer to its first sync step (ms). That answer carries the doc, so it is no
   * sample; until trips are measured it may only shorten the default window, never lengthen it.
   */
  syncTripMs?: () => number | undefined;
  /** When (Date.now()) its current connection finished syncing; undefined while not in sync. */
  syncedSince?: () => number | undefined;
  /**
   * When its connection to the server was lost (never connected: when it was made); undefined
   * while a connection is open, syncing or in sync (a claim then may meet the server's state soon).
   */
  disconnectedSince?: () => number | undefined;
  /**
   * Orders what this replica writes next among what the server received (see SyncRoundTrips.fence
   * in sync/trip-probe.ts): calls `answered(true)` once every update the server took before what
   * this replica writes next is in the doc (where the server sends no client its own updates back:
   * before the fence itself). Returns false when it cannot tell now (not in sync).
   */
  fence?: (answered: (inOrder: boolean) => void) => boolean;
  /**
   * Calls `done` once the other replicas it reaches have applied what this doc sent before the
   * call (or it gave up waiting): a key's Web Lock is let go only then (see sync/tab-flush.ts).
   */
  flush?: (done: () => void) => void;
  /**
   * Names the doc among this browser's docs, as every tab of it names it (connectTabs' name): a
   * key's Web Lock is scoped by it, so two docs that never sync do not arbitrate one key between
   * them (a request hung in one would hold the other's back for as long).
   */
  scope?: string;
  /**
   * While its connection is out of sync and being made again: a promise that ends at that
   * connection's sync or failure (the same one until then). A claim made now waits for it, as the
   * first claims wait for the initial sync: what other devices claimed or recorded meanwhile is on
   * its way. Undefined when in sync, or when no connection is wanted (a deliberate disconnect).
   */
  resync?: () => Promise<void> | undefined;
  /** The presence it carries (the awareness it returns): a store given it follows its successor. */
  awareness?: Awareness;
};

/** The doc's name for its keys' Web Locks: its connectors' scopes, the same in every tab of it. */
export function docScope(doc: Y.Doc): string {
  return connectorsOf(doc)
    .flatMap((c) => (c.scope === undefined ? [] : [c.scope]))
    .sort()
    .join("|");
}

const byDoc = new WeakMap<Y.Doc, Set<ConnectorInfo>>();
const watchers = new WeakMap<Y.Doc, Set<(info: ConnectorInfo) => void>>();

/** Connectors register themselves, so a store knows when its doc is in sync without being told. */
export function registerConnector(doc: Y.Doc, info: ConnectorInfo): () => void {
  let set = byDoc.get(doc);
  if (!set) byDoc.set(doc, (set = new Set()));
  set.add(info);
  for (const listener of [...(watchers.get(doc) ?? [])]) listener(info);
  return () => set.delete(info);
}

/** Calls `listener` with each connector registered on the doc from now on. */
export function onConnector(doc: Y.Doc, listener: (info: ConnectorInfo) => void): () => void {
  let set = watchers.get(doc);
  if (!set) watchers.set(doc, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

export function connectorsOf(doc: Y.Doc): ConnectorInfo[] {
  return [...(byDoc.get(doc) ?? [])];
}

/**
 * How long a first claim waits for an initial sync that does not come: a server that never
 * answers. One that refuses the connection ends the wait sooner (the connectors give up then).
 */
export const SYNC_WAIT_MS = 2000;

/** Resolves when every connector of the doc synced (or gave up), however long that takes. */
export function whenConnectorsSynced(doc: Y.Doc): Promise<void> {
  return Promise.all(connectorsOf(doc).map((c) => c.whenSynced.catch(() => {}))).then(() => {});
}

/**
 * Resolves when every connector of the doc synced, or after SYNC_WAIT_MS: a dead server must not
 * block work. Or once the store ends it (`ends`).
 */
export function whenDocSynced(doc: Y.Doc, ends: Set<() => void>): Promise<void> {
  return connectorsOf(doc).length === 0 ? Promise.resolve() : within(whenConnectorsSynced(doc), ends);
}

/**
 * `wait`, bounded by SYNC_WAIT_MS; its end is in `ends` until it settles, for the store's destroy:
 * the bound's timer must not outlive the store, or it holds a Node process up to 2 s. Not unref'd:
 * a script whose only work is that wait would exit before it ends.
 */
function within(wait: Promise<void>, ends: Set<() => void>): Promise<void> {
  let end!: () => void;
  const bound = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, SYNC_WAIT_MS);
    end = () => (clearTimeout(timer), resolve());
  });
  ends.add(end);
  return Promise.race([wait, bound]).finally(() => (end(), ends.delete(end)));
}

/**
 * For a claim made now: a wait for every connection of the doc being made again
 * (ConnectorInfo.resync), each asked at once and waited for together, as the first claim waits
 * for every initial sync, and bounded (and ended through `ends`) as that wait is; undefined when
 * none is, or once each was waited for.
 */
export function resyncWaits(doc: Y.Doc, ends: Set<() => void>): () => Promise<void> | undefined {
  const waited = new WeakSet<Promise<void>>();
  return () => {
    const attempts = connectorsOf(doc)
      .map((c) => c.resync?.())
      .filter((p) => p && !waited.has(p)) as Promise<void>[];
    if (!attempts.length) return;
    // Waited for once that wait ended: a claim that asks while it is under way (a page frozen
    // during it, shown again) waits for it too.
    return within(
      Promise.all(attempts).then(() => {}),
      ends,
    ).finally(() => attempts.forEach((p) => waited.add(p)));
  };
}

/** Runs `then` once every connector of the doc flushed (at once when none can). */
export function afterFlush(doc: Y.Doc, then: () => void): void {
  const flushing = connectorsOf(doc).filter((c) => c.flush);
  let left = flushing.length;
  if (left === 0) return then();
  for (const c of flushing) c.flush!(() => --left === 0 && then());
}
