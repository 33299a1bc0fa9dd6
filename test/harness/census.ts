import * as Y from "yjs";
import { Awareness } from "y-protocols/awareness";

/**
 * The sizes of every Map, Set and Array reachable from `roots` through object properties, by
 * path (e.g. `engine.sightings.liveness.claimSeen`): what a long-lived replica keeps in memory.
 * Yjs docs and types and awareness instances are not walked (their size is measured apart: the
 * doc's encoded size, their listeners); nor are functions (closures are not reachable).
 */
export function census(roots: Record<string, unknown>, maxDepth = 6): Map<string, number> {
  const sizes = new Map<string, number>();
  const seen = new Set<unknown>();
  const walk = (value: unknown, path: string, depth: number) => {
    if (value === null || typeof value !== "object" || seen.has(value) || depth > maxDepth) return;
    if (value instanceof Y.Doc || value instanceof Y.AbstractType || value instanceof Awareness) return;
    if (value instanceof Y.Item || ArrayBuffer.isView(value) || value instanceof Promise) return;
    seen.add(value);
    if (value instanceof Map || value instanceof Set || Array.isArray(value)) {
      const n = value instanceof Map || value instanceof Set ? value.size : value.length;
      sizes.set(path, (sizes.get(path) ?? 0) + n);
      // One level into the members: a Map of Sets grows in its members too.
      let i = 0;
      for (const member of value instanceof Map ? value.values() : value) {
        if (i++ > 200) break;
        walk(member, `${path}[]`, depth + 1);
      }
      return;
    }
    for (const name of Object.getOwnPropertyNames(value)) {
      let member: unknown;
      try {
        member = (value as Record<string, unknown>)[name];
      } catch {
        continue;
      }
      walk(member, `${path}.${name}`, depth + 1);
    }
  };
  for (const [name, root] of Object.entries(roots)) walk(root, name, 0);
  return sizes;
}

/** Listeners registered on a lib0 observable (a Y.Doc, an Awareness): every event name's set. */
export function observerCount(observable: unknown): number {
  const observers = (observable as { _observers?: Map<string, Set<unknown>> })._observers;
  let n = 0;
  for (const set of observers?.values() ?? []) n += set.size;
  return n;
}

/** Observers on a Yjs type: its own and its deep ones. */
export function typeObserverCount(type: Y.AbstractType<unknown>): number {
  const t = type as unknown as { _eH: { l: unknown[] }; _dEH: { l: unknown[] } };
  return t._eH.l.length + t._dEH.l.length;
}
