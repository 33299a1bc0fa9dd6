import { afterEach } from "vitest";
import * as Y from "yjs";
import type { DocRecords, openDocRecords } from "../../src/core/doc-records.ts";

/** A replica whose own updates are kept, in order, for the test to carry to another. */
export type CarriedReplica = { doc: Y.Doc; records: DocRecords; updates: Uint8Array[] };

/**
 * Replicas on real Y.Docs whose updates a test carries by hand (`carry`, any order), destroyed
 * after each test. `open` is the test's own openDocRecords: a test may load the engine anew.
 */
export function carriedReplicas(open: typeof openDocRecords) {
  let made: CarriedReplica[] = [];
  afterEach(() => {
    for (const r of made) r.records.destroy();
    made = [];
  });
  const replica = (clientID: number): CarriedReplica => {
    const doc = new Y.Doc();
    doc.clientID = clientID;
    const r: CarriedReplica = { doc, records: open(doc, () => null), updates: [] };
    doc.on("update", (update: Uint8Array, origin: unknown) => origin !== "carried" && r.updates.push(update));
    made.push(r);
    return r;
  };
  const carry = (to: CarriedReplica, update: Uint8Array) => Y.applyUpdate(to.doc, update, "carried");
  return { replica, carry };
}
