import * as Y from "yjs";
import { internalsOf } from "../core/internals.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { WorkerMessage } from "./protocol.ts";

/**
 * What a tab's devtools watch in the worker, posted to it while asked for: the store's
 * inspection (with the simulation switches), its events, and the doc's updates for the tab's
 * mirror (except those that came from that tab: `self` is their origin). Returns the stops.
 */
export function watchForTab(
  store: SharedFetchStoreWithExtras,
  doc: Y.Doc | undefined,
  post: (message: WorkerMessage) => void,
  self: unknown,
  want: { inspect: boolean; events: boolean; mirror: boolean },
): (() => void)[] {
  const stops: (() => void)[] = [];
  if (want.inspect) {
    const inspect = () => {
      const { crashed, networkPaused, heartbeatsStopped } = internalsOf(store).dev;
      const dev = { crashed, networkPaused, heartbeatsStopped };
      post({ t: "inspect", inspection: store.inspect(), claims: store.claims(), malformed: store.malformed(), dev });
    };
    stops.push(store.onInspect(inspect));
    inspect();
  }
  if (want.events) stops.push(store.onEvent((event) => post({ t: "event", event })));
  if (want.mirror && doc) {
    const onUpdate = (update: Uint8Array, origin: unknown) => {
      if (origin !== self) post({ t: "doc", update });
    };
    doc.on("update", onUpdate);
    stops.push(() => doc.off("update", onUpdate));
    post({ t: "doc", update: Y.encodeStateAsUpdate(doc) });
  }
  return stops;
}
