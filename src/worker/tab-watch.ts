import * as Y from "yjs";
import { internalsOf } from "../core/internals.ts";
import { lookAgain } from "../core/inspector.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { MalformedRecord } from "../core/lanes.ts";
import type { WorkerMessage } from "./protocol.ts";

/**
 * A peer may put a Yjs type or sub-document where a lane or a record belongs (invariant 14):
 * postMessage cannot clone one, and the whole inspection would not reach the tab. It is named.
 * Only those have a toJSON method among the values Yjs decodes.
 */
const clonable = (m: MalformedRecord): MalformedRecord =>
  typeof (m.value as { toJSON?: unknown } | null)?.toJSON === "function" ? { ...m, value: "<a Yjs type>" } : m;

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
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = lookAgain();
    const inspect = () => {
      clearTimeout(timer);
      const { crashed, networkPaused, heartbeatsStopped } = internalsOf(store).dev;
      const dev = { crashed, networkPaused, heartbeatsStopped };
      const malformed = store.malformed().map(clonable);
      const inspection = { ...store.inspect(), malformed };
      post({ t: "inspect", inspection, claims: store.claims(), malformed, dev });
      // A silent claimant's claim goes stale, and a settle window may lapse, with no change to tell,
      // and the tab cannot judge either (it reads this inspection only): send the store's verdict
      // again once the lease or the window ran out.
      const at = next(inspection);
      timer = at < Infinity ? setTimeout(inspect, at - inspection.at + 1) : undefined;
    };
    stops.push(store.onInspect(inspect), () => clearTimeout(timer));
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
