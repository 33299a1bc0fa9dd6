/**
 * In-page docs joined by the one simulated network (sim/network.ts). Kept as this small adapter
 * for stories/Devtools.stories.tsx (issue 12 owns it); new stories use `Network` directly.
 */
import type * as Y from "yjs";
import { Network } from "../../sim/network.ts";

export type LinkedDocs = { docs: Y.Doc[]; net: Network; destroy(): void };

/** `count` fresh docs on one network. */
export function createLinkedDocs(count = 2): LinkedDocs {
  const net = new Network(count);
  const docs = net.docs.slice();
  return {
    docs,
    net,
    destroy() {
      net.destroy();
      for (const doc of docs) doc.destroy();
    },
  };
}
