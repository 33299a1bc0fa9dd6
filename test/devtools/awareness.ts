import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";

const LINK = "test-link";
type Change = { added: number[]; updated: number[]; removed: number[] };

/**
 * N awareness instances wired in a full mesh, as a provider would. Each has its own doc: the store
 * only needs a client id from it, and the cluster harness creates the store's doc itself.
 */
export function linkedAwareness(count: number): { all: Awareness[]; destroy(): void } {
  const all = Array.from({ length: count }, () => new Awareness(new Y.Doc()));
  for (const from of all) {
    from.on("update", ({ added, updated, removed }: Change, origin: unknown) => {
      if (origin === LINK) return;
      const update = encodeAwarenessUpdate(from, [...added, ...updated, ...removed]);
      for (const to of all) if (to !== from) applyAwarenessUpdate(to, update, LINK);
    });
  }
  return {
    all,
    destroy: () => {
      for (const a of all) a.destroy();
    },
  };
}
