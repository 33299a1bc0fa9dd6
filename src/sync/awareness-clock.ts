import { Awareness } from "y-protocols/awareness";
import type { Doc } from "yjs";
import { unrefTimer } from "../core/unref-timer.ts";

// Other replicas remember the clock at which a client left and ignore its states up to that clock.
// A doc connected again after destroy() (React StrictMode mounts effects twice) would restart at
// clock 0 and stay invisible until its 15 s renewals caught up. So a new awareness for the same doc
// and clientID continues where the previous one stopped.
const lastClocks = new WeakMap<Doc, { clientID: number; clock: number }>();

export function createAwareness(doc: Doc): Awareness {
  const awareness = new Awareness(doc);
  // Its 3 s renewal timer must not keep a Node process alive (a script ends with its work).
  unrefTimer((awareness as unknown as { _checkInterval: unknown })._checkInterval);
  const last = lastClocks.get(doc);
  const meta = awareness.meta.get(awareness.clientID);
  if (last !== undefined && last.clientID === awareness.clientID && meta !== undefined && meta.clock <= last.clock) {
    meta.clock = last.clock;
    awareness.setLocalState(awareness.getLocalState()); // now last.clock + 1
  }
  return awareness;
}

/** Destroys the awareness (its timer would keep Node alive) and remembers its final clock. */
export function retireAwareness(awareness: Awareness): void {
  awareness.destroy();
  const clock = awareness.meta.get(awareness.clientID)?.clock;
  if (clock === undefined) return;
  const last = lastClocks.get(awareness.doc);
  if (last === undefined || last.clientID !== awareness.clientID || last.clock < clock) {
    lastClocks.set(awareness.doc, { clientID: awareness.clientID, clock });
  }
}
