import type { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";
import { followAwareness } from "./follow-awareness.ts";
import { PRESENCE_FIELD, watchPresence, type PresenceSelf } from "./presence.ts";
import { isPlainObject } from "./request.ts";

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
