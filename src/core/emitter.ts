import type { StoreEvent, StoreEventListener } from "./events.ts";

/** Listeners must never break the store or each other: a throwing one is reported, the rest still run. */
export function callAll<T extends unknown[]>(listeners: Set<(...args: T) => void>, args: T, what: string): void {
  for (const listener of [...listeners]) {
    try {
      listener(...args);
    } catch (error) {
      queueMicrotask(() => console.error(`shared-fetch: ${what} listener failed`, error));
    }
  }
}

/** The store's typed events, and a "something the inspector shows changed" signal batched per microtask. */
export function createEmitter() {
  const events = new Set<StoreEventListener>();
  const changes = new Set<() => void>();
  let queued = false;
  let stopped = false;
  // Called from Yjs observers (inside a writer's transaction): notify a microtask later.
  const changed = () => {
    if (queued || stopped || changes.size === 0) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      if (!stopped) callAll(changes, [], "inspect");
    });
  };
  return {
    emit(event: StoreEvent): void {
      callAll(events, [event], "event");
      changed();
    },
    changed,
    onEvent(listener: StoreEventListener): () => void {
      events.add(listener);
      return () => events.delete(listener);
    },
    onChange(listener: () => void): () => void {
      changes.add(listener);
      return () => changes.delete(listener);
    },
    stop(): void {
      stopped = true;
      // The last change: an inspector (an open panel) must learn the store stopped, in a quiet doc too.
      callAll(changes, [], "inspect");
      events.clear();
      changes.clear();
    },
  };
}
