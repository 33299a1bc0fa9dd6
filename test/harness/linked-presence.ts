import { onTestFinished } from "vitest";
import { applyAwarenessUpdate, Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";

type Change = { added: number[]; updated: number[]; removed: number[] };

/**
 * `count` awarenesses (presence, as a store's `awareness` option) that hear each other at once, as
 * tabs on one BroadcastChannel do. `cut(i)` silences the i-th for good without a goodbye (a crash):
 * the others drop it only by y-protocols' own 30 s timeout.
 */
export function linkedPresence(count: number): { all: Awareness[]; cut(i: number): void } {
  const all = Array.from({ length: count }, () => new Awareness(new Y.Doc()));
  const silent = new Set<Awareness>();
  const link = Symbol("link");
  for (const from of all)
    from.on("update", ({ added, updated, removed }: Change, origin: unknown) => {
      if (origin === link || silent.has(from)) return;
      const update = encodeAwarenessUpdate(from, [...added, ...updated, ...removed]);
      for (const to of all) if (to !== from && !silent.has(to)) applyAwarenessUpdate(to, update, link);
    });
  onTestFinished(() => all.forEach((a) => a.destroy()));
  return { all, cut: (i) => silent.add(all[i]!) };
}
