import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";

const LINK = "story-link";
type Change = { added: number[]; updated: number[]; removed: number[] };

/**
 * `count` awarenesses (each store's `awareness` option) that hear each other at once, as the tabs
 * of `connectTabs` do: a replica's presence, and what it says it waits on, reach the others.
 */
export function linkedAwareness(count: number): { all: Awareness[]; destroy(): void } {
  const all = Array.from({ length: count }, () => new Awareness(new Y.Doc()));
  for (const from of all)
    from.on("update", ({ added, updated, removed }: Change, origin: unknown) => {
      if (origin === LINK) return;
      const update = encodeAwarenessUpdate(from, [...added, ...updated, ...removed]);
      for (const to of all) if (to !== from) applyAwarenessUpdate(to, update, LINK);
    });
  return { all, destroy: () => all.forEach((a) => a.doc.destroy()) };
}
