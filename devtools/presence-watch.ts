import type { Awareness } from "y-protocols/awareness";
import type { Inspection } from "./core.ts";
import { presenceId } from "./presence.ts";

/**
 * Keeps in `since` when this panel saw each replica's presence change, from each inspection it is
 * given (the first sighting is the baseline, not a change).
 */
export function presenceSince(since: Map<string, number>): (i: Inspection) => void {
  let presentSeen = new Map<string, boolean | undefined>();
  let baselined = false;
  return (i) => {
    // A panel left open for days sees many tabs come and go: what it noted of those the store
    // shows no more goes.
    const seen = new Map<string, boolean | undefined>();
    for (const r of i.replicas) {
      // One that arrives after the first inspection (the baseline) arrived while the panel watched.
      if (r.present !== undefined && (presentSeen.has(r.replicaId) ? presentSeen.get(r.replicaId) !== r.present : baselined))
        since.set(r.replicaId, i.at);
      seen.set(r.replicaId, r.present);
    }
    presentSeen = seen;
    baselined = true;
    for (const id of since.keys()) if (!seen.has(id)) since.delete(id);
  };
}

/**
 * Puts in `successors` each replica whose awareness client now names another: a new store on that
 * connection (a logout and a login there) took its presence over. The replica each client named
 * last is kept to tell it; `guard` keeps a throw of the listener out of the awareness's emitter.
 * Returns the unsubscribe.
 */
export function watchSuccessors(
  awareness: Awareness,
  successors: Map<string, string>,
  changed: () => void,
  guard: <A>(fn: (arg: A) => void) => (arg: A) => void,
): () => void {
  const named = new Map<number, string>();
  const onPresence = guard(({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }) => {
    for (const client of removed) named.delete(client);
    for (const client of [...added, ...updated]) {
      const [was, id] = [named.get(client), presenceId(awareness.getStates().get(client))];
      if (was !== undefined && id !== undefined && was !== id) successors.set(was, id);
      if (id === undefined) named.delete(client);
      else named.set(client, id);
    }
    changed();
  });
  onPresence({ added: [...awareness.getStates().keys()], updated: [], removed: [] });
  awareness.on("change", onPresence);
  return () => awareness.off("change", onPresence);
}
