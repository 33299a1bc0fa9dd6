import * as Y from "yjs";
import { openDocRecords } from "../core/doc-records.ts";
import { validateProgramData } from "../core/program-work.ts";
import type { DocMirror } from "./doc-mirror.ts";

/** A Yjs doc mirroring the worker's: what the worker sends is applied, what the devtools write goes back. */
export function yjsDocMirror(send: (update: Uint8Array) => void): DocMirror {
  const doc = new Y.Doc();
  // The origin of the worker's updates: they are not sent back to it.
  const fromWorker = {};
  doc.on("update", (update: Uint8Array, origin: unknown) => {
    if (origin !== fromWorker) send(update);
  });
  return {
    records: openDocRecords(doc, validateProgramData),
    apply: (update) => Y.applyUpdate(doc, update, fromWorker),
    state: () => Y.encodeStateAsUpdate(doc),
    destroy: () => doc.destroy(),
  };
}
