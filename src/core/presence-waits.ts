import type * as Y from "yjs";
import { afterFlush } from "./connectors.ts";
import type { EngineOptions } from "./engine-options.ts";
import type { watchReplicaPresence } from "./replica-presence.ts";

type Presence = Pick<ReturnType<typeof watchReplicaPresence>, "awaited" | "alone" | "wait">;

/**
 * Who waits on whose claim, as the engine asks it: presence carries it, so it goes with a replica
 * that leaves or dies. `presence` is read when the engine asks (the store makes it after the engine).
 */
export function presenceWaits(
  doc: Y.Doc,
  presence: () => Presence,
  recheck: (keys: Iterable<string>) => void,
): Required<Pick<EngineOptions, "awaited" | "waits">> {
  // Per key, the unwanted request (its revision) that waits for the tabs' flush, or has waited
  // (`done`: for the one decision the flush wakes, so a later request of the key gets its own).
  const graced = new Map<string, { rev: number; done?: boolean }>();
  return {
    awaited: (key: string, rev: number, sent: boolean) => {
      if (presence().awaited(key, rev)) return true;
      if (!sent || presence().alone()) return false;
      // A wait may be on its way (a tab joined as this one's ask ended): the request goes on
      // until the tabs have answered a flush, which comes behind what they sent before it.
      let g = graced.get(key);
      if (g?.rev !== rev) {
        const mark: { rev: number; done?: boolean } = (g = { rev });
        graced.set(key, mark);
        let later = false;
        afterFlush(doc, () => {
          if (graced.get(key) !== mark) return;
          mark.done = true;
          // Ended at once (no connection flushes): this decision is the one it wakes. A recheck
          // would read the key again, start a new grace, and so on without end.
          if (!later) return;
          recheck([key]);
          // Not taken by that decision (its ask came back): spent all the same.
          queueMicrotask(() => graced.get(key) === mark && graced.delete(key));
        });
        later = true;
      }
      return !g.done || !graced.delete(key);
    },
    waits: (key: string, rev: number | undefined) => presence().wait(key, rev),
  };
}
