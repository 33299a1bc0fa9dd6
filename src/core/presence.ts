import type { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";
import { connectorsOf, onConnector, type ConnectorInfo } from "./connectors.ts";
import { isId, isPlainObject } from "./request.ts";

export const PRESENCE_FIELD = "sharedFetch";
/**
 * Origin of awareness removals caused by *this* side losing its connection (connectPeers uses it):
 * those peers are not known to be dead, so their claims keep their lease.
 */
export const CONNECTION_LOST_ORIGIN = "shared-fetch:connection-lost";

type Change = { added: number[]; updated: number[]; removed: number[] };

/**
 * What a replica publishes: its id, its browser's, and `waits`, the keys whose foreign claim it
 * waits on, each with the lowest revision one of its asks wants (the claimant's request answers
 * them): a claimant keeps that request going once nothing of its own wants it (invariant 11).
 */
export type PresenceSelf = { replicaId: string; browserId?: string | undefined; waits?: Record<string, number> | undefined };

/**
 * Presence as a failure event: a replica publishes `{ sharedFetch: { replicaId, browserId } }` in
 * awareness; when a peer's state is removed (it disconnected or timed out) its claims are stale now.
 */
export function watchPresence(
  awareness: Awareness,
  self: PresenceSelf,
  handlers: {
    gone(replicaId: string): void;
    present(replicaId: string, browserId: string | undefined, waits: unknown): void;
    /** Removed without proof of death (see below): no longer counted present, its claims keep their lease. */
    absent?(replicaId: string): void;
  },
  /** Reads the others only: this replica's entry there is kept by whoever wrote it (followAwareness). */
  quiet?: boolean,
): (keep?: boolean, crashed?: boolean) => () => void {
  const byClient = new Map<number, string>();
  const read = (clientId: number): { id: string; browserId: string | undefined; waits: unknown } | undefined => {
    const state = awareness.getStates().get(clientId);
    const field = isPlainObject(state) ? state[PRESENCE_FIELD] : undefined;
    if (!isPlainObject(field) || !isId(field.replicaId)) return undefined;
    return { id: field.replicaId, browserId: isId(field.browserId) ? field.browserId : undefined, waits: field.waits };
  };
  const onChange = ({ added, updated, removed }: Change, origin: unknown) => {
    try {
      for (const clientId of [...added, ...updated]) {
        if (clientId === awareness.clientID) continue;
        const seen = read(clientId);
        const before = byClient.get(clientId);
        // A store that stops clears its field: that replica left in order, though its connection
        // stays. Its claims are stale now — a copy of one still on its way to it when it released
        // them is released by nobody else. A field naming another replica is a store that took the
        // doc's presence over, the one before it perhaps still alive (a render made the new store,
        // an effect's cleanup destroys the old): unheard from, not dead.
        if (before !== undefined && before !== seen?.id && before !== self.replicaId) {
          if (seen === undefined) handlers.gone(before);
          else handlers.absent?.(before);
        }
        if (seen === undefined) {
          byClient.delete(clientId);
          continue;
        }
        byClient.set(clientId, seen.id);
        handlers.present(seen.id, seen.browserId, seen.waits);
      }
      for (const clientId of removed) {
        const id = byClient.get(clientId);
        byClient.delete(clientId);
        if (id === undefined || id === self.replicaId) continue;
        // "timeout": y-protocols' own 30 s check, which only says we heard nothing (our connection
        // may be the one that hangs); a peer that really went silent is removed by the server. Yet
        // neither it nor our lost connection may leave the peer counted present for good: once
        // removed, the server's own removal is ignored, and a reconnect re-announces only peers
        // still there (a live one is counted again then).
        if (origin === CONNECTION_LOST_ORIGIN || origin === "timeout") handlers.absent?.(id);
        else handlers.gone(id);
      }
    } catch (error) {
      queueMicrotask(() => console.error("shared-fetch: presence handler failed", error));
    }
  };
  for (const clientId of awareness.getStates().keys()) {
    const seen = read(clientId);
    if (seen === undefined || clientId === awareness.clientID) continue;
    byClient.set(clientId, seen.id);
    // Present before this store started: the inspector would otherwise report it absent.
    handlers.present(seen.id, seen.browserId, seen.waits);
  }
  awareness.on("change", onChange);
  // A copy (the awareness keeps it): an undefined browserId or waits is not sent (JSON).
  if (!quiet) awareness.setLocalStateField(PRESENCE_FIELD, { ...self });
  // Only our own entry: a store that took the doc's presence over has written its own since.
  const put = (field: PresenceSelf | null) => {
    const mine = awareness.getLocalState()?.[PRESENCE_FIELD];
    if (isPlainObject(mine) && mine.replicaId === self.replicaId) awareness.setLocalStateField(PRESENCE_FIELD, field);
  };
  const leave = () => put(null);
  // `keep`: this replica has not left, it watches elsewhere (see followAwareness); `leave` is for its
  // stop. What it waits on stays published here too, kept up to date (watchReplicaPresence's
  // publish): a claimant on this awareness alone hears nothing else. A crashed page says nothing.
  return (keep, crashed) => (awareness.off("change", onChange), keep ? crashed || put({ ...self }) : leave(), leave);
}

/**
 * Binds to `initial` and, once it is destroyed with its connection (`connectPeers(doc).destroy()`
 * and a connect again: an effect's cleanup and re-run, an offline toggle), to the awareness of the
 * doc's next connector of the same kind: a store outlives its connections. Before, it kept the
 * destroyed one: the other devices never saw it again, and it saw nobody, so it claimed as if alone.
 * Given the tabs' awareness (Usage) on a doc that also reaches other devices (connectPeers beside
 * connectTabs, before or after the store), it follows the devices' connector's awareness while there
 * is one (the tabs' again once it is destroyed): the other devices' presence is only there. Before,
 * it counted no other device present, so every device claimed eagerly (each sent every request
 * asked at once) and none saw another leave.
 */
export function followAwareness(
  doc: Y.Doc,
  initial: Awareness,
  bind: (awareness: Awareness) => (keep?: boolean, crashed?: boolean) => () => void,
): () => void {
  const kind = connectorsOf(doc).find((c) => c.awareness === initial)?.crossDevice;
  const fits = (c: { awareness?: Awareness; crossDevice: boolean }, gone: Awareness) =>
    c.awareness !== undefined && c.awareness !== gone && (kind === undefined || c.crossDevice === kind);
  let stop = (_keep?: boolean, _crashed?: boolean): void => {};
  let left = () => {};
  const follow = (awareness: Awareness): void => {
    const unbind = bind(awareness);
    const onDestroy = () => {
      stop();
      // A successor made before this one was destroyed is there already.
      const next = connectorsOf(doc).find((c) => fits(c, awareness));
      if (next) return follow(next.awareness!);
      const unwatch = onConnector(doc, (c) => {
        if (!fits(c, awareness)) return;
        unwatch();
        follow(c.awareness!);
      });
      stop = unwatch;
    };
    awareness.on("destroy", onDestroy);
    stop = (keep, crashed) => {
      awareness.off("destroy", onDestroy);
      keep &&= crashed || awareness === initial;
      const leave = unbind(keep, crashed);
      if (keep) left = leave;
    };
  };
  // Given the tabs' awareness on a doc that also reaches other devices: theirs, while there is one.
  // Our entry stays in the tabs' (we have not left): a tab that watches only theirs would take its
  // removal for our death and send again what we have in flight, and would not hear our waits; it
  // goes at our stop. Devices connected first, it is written there all the same.
  const toDevices = (c: ConnectorInfo): boolean => kind === false && c.crossDevice && (stop(true), follow(c.awareness!), true);
  const unwatch = onConnector(doc, toDevices);
  follow(initial);
  connectorsOf(doc).some(toDevices);
  // `crashed` (dev.crash): it stops watching and leaves nowhere; a crashed page says nothing.
  return (crashed?: boolean) => (unwatch(), stop(crashed, crashed), crashed || left());
}

/** Presence wired into an engine: a departed peer's claims go stale at once (and the inspector is told). */
export function watchReplicaPresence(
  doc: Y.Doc,
  initial: Awareness,
  self: PresenceSelf,
  engine: {
    liveness: { markGone(id: string): void; markPresent(id: string): void };
    markClaimantDirty(id: string): void;
    recheck(keys: Iterable<string>): void;
  },
  changed: () => void,
  /** A replica is present (its entry changed, or was there): the store may watch its lock. */
  seen?: (replicaId: string, browserId: string | undefined, waits: unknown) => void,
): {
  present: ReadonlySet<string>;
  /** Whether another replica is heard from, in the awareness it follows or the tabs' one. */
  alone(): boolean;
  elsewhere(ownBrowserId: string | undefined): number;
  /** The awareness it publishes this replica in now (none between a connection and the next). */
  awareness(): Awareness | undefined;
  /** The replicas present (`me`: and this one) that wait on a claim of `key` at `rev`, as their presence says. */
  waiters(key: string, rev: number, me?: boolean): string[];
  /** Whether a replica present waits on this replica's claim of `key` at `rev` (PresenceSelf.waits). */
  awaited(key: string, rev: number): boolean;
  /** Publishes `self` again (its browser id changed), and tells `seen` of every replica present again. */
  publish(): void;
  /** The replica is dead (its Web Lock was released): what it waited on is waited on no more. */
  released(replicaId: string): void;
  /** This replica waits on a foreign claim of `key` for `rev` (undefined: no longer): published a microtask later. */
  wait(key: string, rev: number | undefined): void;
  stop(crashed?: boolean): void;
} {
  const present = new Set<string>();
  const browsers = new Map<string, string | undefined>();
  // Another replica's waits, as published (validated where read: peers are not trusted, invariant 14).
  const waits = new Map<string, Record<string, unknown>>();
  // Following the devices' awareness: the waits heard in the tabs' one (a tab of this browser on
  // connectTabs alone publishes there only), and who is there.
  const tabWaits = new Map<string, Record<string, unknown>>();
  const tabs = new Set<string>();
  let current: Awareness | undefined;
  // Its waits went with it (it left, crashed or went quiet): the keys it waited on are decided again.
  const setWaits = (id: string, next: unknown, into = waits) => {
    const keys = Object.keys(into.get(id) ?? {});
    if (isPlainObject(next)) keys.push(...Object.keys(into.set(id, next).get(id)!));
    else into.delete(id);
    if (keys.length) engine.recheck(keys);
  };
  const tabGone = (id: string) => (tabs.delete(id), setWaits(id, undefined, tabWaits), changed());
  const handlers = {
    gone: (id: string) => {
      present.delete(id);
      browsers.delete(id);
      setWaits(id, undefined);
      engine.liveness.markGone(id);
      engine.markClaimantDirty(id);
      changed();
    },
    present: (id: string, browserId: string | undefined, waited: unknown) => {
      present.add(id);
      browsers.set(id, browserId);
      setWaits(id, waited);
      engine.liveness.markPresent(id);
      seen?.(id, browserId, waited);
      changed();
    },
    absent: (id: string) => {
      present.delete(id);
      browsers.delete(id);
      setWaits(id, undefined);
      changed();
    },
  };
  const stop = followAwareness(doc, initial, (awareness) => {
    current = awareness;
    const unwatch = watchPresence(awareness, self, handlers);
    // Else a claimant with both connectors aborted what such a tab waited on once its own ask ended.
    const unwatchTabs =
      awareness !== initial &&
      watchPresence(
        initial,
        self,
        {
          gone: tabGone,
          absent: tabGone,
          present: (id, browserId, waited) => (tabs.add(id), setWaits(id, waited, tabWaits), seen?.(id, browserId, waited), changed()),
        },
        true,
      );
    return (keep, crashed) => {
      if (unwatchTabs) unwatchTabs(true, true);
      tabs.forEach(tabGone);
      const leave = unwatch(keep, crashed);
      current = undefined;
      // Unheard from now, not known dead: their claims keep their lease.
      for (const id of [...present]) handlers.absent(id);
      return leave;
    };
  });
  // Replicas present in another browser (or one that names none): they may race this one's claims.
  const elsewhere = (ownBrowserId: string | undefined): number => {
    let n = 0;
    for (const browserId of browsers.values()) if (browserId === undefined || browserId !== ownBrowserId) n++;
    return n;
  };
  // `me`: this replica's own waits count too (inspect() shows them; a claimant never waits on itself).
  // One entry per replica: a tab with both connectors is heard in both awarenesses.
  const waiters = (key: string, rev: number, me?: boolean): string[] =>
    [...new Map([...tabWaits, ...waits, ...(me ? [[self.replicaId, self.waits ?? {}] as const] : [])])]
      .filter(([, w]) => Object.hasOwn(w, key) && typeof w[key] === "number" && w[key] <= rev)
      .map(([id]) => id);
  const awaited = (key: string, rev: number): boolean => waiters(key, rev).length > 0;
  let queued = false;
  // Kept apart from `self.waits` and copied once per publish: a page joining K keys in one tick
  // paid K copies of up to K entries (the one published must stay as it was sent).
  const waiting = new Map<string, number>();
  // Only our own entry: a store that took the doc's presence over has written its own since. Our
  // entry kept in the tabs' awareness (followAwareness) says it too: a tab on it alone may claim.
  const publish = () => {
    queued = false;
    self.waits = waiting.size ? Object.fromEntries(waiting) : undefined;
    for (const a of current ? new Set([current, initial]) : []) {
      const mine = a.getLocalState()?.[PRESENCE_FIELD];
      if (isPlainObject(mine) && mine.replicaId === self.replicaId) a.setLocalStateField(PRESENCE_FIELD, { ...self });
    }
  };
  const wait = (key: string, rev: number | undefined) => {
    if (rev === undefined) waiting.delete(key);
    else waiting.set(key, rev);
    // Once per tick, outside any transaction the decision ran in (pitfall 1).
    if (!queued) queueMicrotask(publish);
    queued = true;
  };
  // Its entry stays until its presence times out (30 s on the tabs' awareness): its waits go now.
  const released = (id: string) => (setWaits(id, undefined), setWaits(id, undefined, tabWaits));
  // Our browser id changed: a waiter heard under it before is of our browser now (its lock is watched).
  const again = () => (publish(), present.forEach((id) => seen?.(id, browsers.get(id), waits.get(id))));
  return {
    present,
    alone: () => !present.size && !tabs.size,
    elsewhere,
    awareness: () => current,
    waiters,
    awaited,
    publish: again,
    released,
    wait,
    stop,
  };
}
