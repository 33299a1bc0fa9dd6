import { afterEach } from "vitest";
import * as Y from "yjs";
import { openDocRecords, type DocRecords } from "../../src/core/doc-records.ts";
import { ROOT } from "../../src/internals.ts";

export type RecordsReplica = { doc: Y.Doc; records: DocRecords };

const opened: RecordsReplica[] = [];
afterEach(() => opened.splice(0).forEach(({ doc, records }) => (records.destroy(), doc.destroy())));

/** A doc and its records tables as a store opens them, with no store around them; destroyed after each test. */
export function recordsReplica(): RecordsReplica {
  const doc = new Y.Doc();
  const r = { doc, records: openDocRecords(doc, () => null) };
  opened.push(r);
  return r;
}

/** Every update of one doc reaches the other at once, as a synchronous provider delivers it. */
export function linkDocs(a: Y.Doc, b: Y.Doc): void {
  a.on("update", (u: Uint8Array, origin: unknown) => origin !== b && Y.applyUpdate(b, u, a));
  b.on("update", (u: Uint8Array, origin: unknown) => origin !== a && Y.applyUpdate(a, u, b));
}

/** A peer that writes these entries straight into the doc, as one lane, as a buggy or hostile replica could. */
export function peerWrites(doc: Y.Doc, entries: unknown[]): void {
  const lane = new Y.Array<unknown>();
  lane.push(entries);
  doc.getArray<unknown>(ROOT).push([lane]);
}
