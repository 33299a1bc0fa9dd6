/**
 * This page's Web Locks, under a name prefix of one scenario's own. Every scenario names its
 * replicas "replica-a", "replica-b", … and a replica holds a lock named after itself for its whole
 * life (its first claim waits for it), as do its keys while claimed. Locks are shared by the whole
 * origin: two scenarios mounted at once — a docs page renders every story of a file, and a second
 * browser tab on Storybook shares the first one's locks — would queue behind each other's, and the
 * later scenario's replicas would stay pending for ever with no claim. Each scenario gets its own
 * names; within it the locks are the browser's, with the browser's semantics.
 */
import type { LockManagerLike } from "../../src/core/locks.ts";

/** `undefined` where the page has no Web Locks (the store then finds none either). */
export function scenarioLocks(): LockManagerLike | undefined {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return undefined;
  // Random, not counted: another browser tab's scenarios count from 1 too.
  const prefix = `scenario-${Math.random().toString(36).slice(2, 10)}/`;
  return {
    request: (name, options, callback) => locks.request(prefix + name, options, callback),
    // The held locks of this scenario alone, under the names its stores asked for.
    query: async () => {
      const { held = [] } = await locks.query();
      return {
        held: held.flatMap((lock) => (lock.name?.startsWith(prefix) ? [{ ...lock, name: lock.name.slice(prefix.length) }] : [])),
      };
    },
  };
}
