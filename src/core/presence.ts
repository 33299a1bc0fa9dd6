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
 * Presence as a failure event: a replica publishes `{ sharedFetch: { replicaId, browserId } }` in
 * awareness; when a peer's state is removed (it disconnected or timed out) its claims are stale now.
 */
export function watchPresence(
  awareness: Awareness,
  self: { replicaId: string; browserId?: string },
  handlers: { gone(replicaId: string): void; present(replicaId: string): void },
): () => void {
  const byClient = new Map<number, string>();
  const read = (clientId: number): string | undefined => {
    const state = awareness.getStates().get(clientId);
    const field = isPlainObject(state) ? state[PRESENCE_FIELD] : undefined;
    const id = isPlainObject(field) ? field.replicaId : undefined;
    return isId(id) ? id : undefined;
  };
  const onChange = ({ added, updated, removed }: Change, origin: unknown) => {
    try {
      for (const clientId of [...added, ...updated]) {
        const id = read(clientId);
        if (id === undefined || clientId === awareness.clientID) continue;
        byClient.set(clientId, id);
        handlers.present(id);
      }
      for (const clientId of removed) {
        const id = byClient.get(clientId);
        byClient.delete(clientId);
        if (id !== undefined && id !== self.replicaId && origin !== CONNECTION_LOST_ORIGIN) handlers.gone(id);
      }
    } catch (error) {
      queueMicrotask(() => console.error("shared-fetch: presence handler failed", error));
    }
  };
  for (const clientId of awareness.getStates().keys()) {
    const id = read(clientId);
    if (id === undefined || clientId === awareness.clientID) continue;
    byClient.set(clientId, id);
    // Present before this store started: the inspector would otherwise report it absent.
    handlers.present(id);
  }
  awareness.on("change", onChange);
  awareness.setLocalStateField(
    PRESENCE_FIELD,
    self.browserId ? { replicaId: self.replicaId, browserId: self.browserId } : { replicaId: self.replicaId },
  );
  return () => {
    awareness.off("change", onChange);
    if (awareness.getLocalState() !== null) awareness.setLocalStateField(PRESENCE_FIELD, null);
  };
}

/** Presence wired into an engine: a departed peer's claims go stale at once (and the inspector is told). */
export function watchReplicaPresence(
  awareness: Awareness,
  self: { replicaId: string; browserId?: string },
  engine: { liveness: { markGone(id: string): void; markPresent(id: string): void }; markClaimantDirty(id: string): void },
  changed: () => void,
): { present: ReadonlySet<string>; stop(): void } {
  const present = new Set<string>();
  const stop = watchPresence(awareness, self, {
    gone: (id) => {
      present.delete(id);
      engine.liveness.markGone(id);
      engine.markClaimantDirty(id);
      changed();
    },
    present: (id) => {
      present.add(id);
      engine.liveness.markPresent(id);
      changed();
    },
  });
  return { present, stop };
}
