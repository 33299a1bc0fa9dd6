/**
 * A buggy or hostile peer (invariant 14): a doc of its own on the story's network that writes raw
 * records into a lane of its own, as a replica running other code would. Nothing checks them on
 * the way; every replica that reads them must (src/core/records.ts), and the devtools list them.
 */
import * as Y from "yjs";
import { ROOT } from "../../src/internals.ts";
import type { Network } from "../../sim/network.ts";

export type HostilePeer = {
  doc: Y.Doc;
  /**
   * Appends `{ t: table, k: key, v: value, s }` in a new lane, as the lanes layout expects
   * (src/core/lanes.ts); `value` is written as it is. Returns undefined, or the message of an
   * exception that reached this writer (a reader's observer threw: it never should).
   */
  write(table: string, key: string, value: unknown): string | undefined;
  destroy(): void;
};

/** A peer that joins `net` now (it receives the doc as it is) and writes only when told. */
export function joinHostilePeer(net: Network): HostilePeer {
  const doc = new Y.Doc();
  net.add(doc);
  let seq = 1_000;
  return {
    doc,
    write(table, key, value) {
      try {
        const lane = new Y.Array<unknown>();
        lane.push([{ t: table, k: key, v: value, s: ++seq }]);
        // Delivered synchronously to every doc on the network: their observers run inside this call.
        doc.getArray<unknown>(ROOT).push([lane]);
        return undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
    destroy() {
      net.remove(doc);
      doc.destroy();
    },
  };
}
