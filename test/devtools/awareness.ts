import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";

const LINK = "test-link";
type Change = { added: number[]; updated: number[]; removed: number[] };

/**
 * N awareness instances wired in a full mesh, as a provider would (the tabs of `connectTabs`).
 * Each has its own doc: the store only needs a client id from it, and the cluster harness creates
 * the store's doc itself. `cut(i)` silences the i-th for good without a goodbye (a crash): the
 * others drop it only by y-protocols' own 30 s timeout.
 */
export function linkedAwareness(count: number): { all: Awareness[]; cut(i: number): void; destroy(): void } {
  const all = Array.from({ length: count }, () => new Awareness(new Y.Doc()));
  const silent = new Set<Awareness>();
  for (const from of all) {
    from.on("update", ({ added, updated, removed }: Change, origin: unknown) => {
      if (origin === LINK || silent.has(from)) return;
      const update = encodeAwarenessUpdate(from, [...added, ...updated, ...removed]);
      for (const to of all) if (to !== from && !silent.has(to)) applyAwarenessUpdate(to, update, LINK);
    });
  }
  return {
    all,
    cut: (i) => silent.add(all[i]!),
    destroy: () => {
      for (const a of all) a.destroy();
    },
  };
}
