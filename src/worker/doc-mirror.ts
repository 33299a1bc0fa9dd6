import type { DocRecords } from "../core/doc-records.ts";

/**
 * A tab's copy of the worker's doc, for the devtools: the raw records over it, kept in sync both
 * ways (the worker's updates are applied here; the devtools' actions go back through `send`).
 */
export type DocMirror = { records: DocRecords; apply(update: Uint8Array): void; state(): Uint8Array; destroy(): void };
export type DocMirrorFactory = (send: (update: Uint8Array) => void) => DocMirror;

let factory: DocMirrorFactory | undefined;

/**
 * Set by `shared-fetch/internals` (the devtools read the records through it): the Yjs behind a
 * mirror comes with that entry, so a tab the SharedWorker serves loads no Yjs until someone reads
 * the raw records.
 */
export function provideDocMirror(make: DocMirrorFactory): void {
  factory ??= make;
}

export function createDocMirror(send: (update: Uint8Array) => void): DocMirror {
  if (!factory) {
    throw new Error(
      "shared-fetch: a SharedWorker store's raw records are read through `shared-fetch/internals` (internalsOf), which brings the doc mirror",
    );
  }
  return factory(send);
}
