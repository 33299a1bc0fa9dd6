import type { Awareness } from "y-protocols/awareness";
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
