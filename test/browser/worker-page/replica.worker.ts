/**
 * The test page's SharedWorker: the package's browser replica, plus a count of IndexedDB opens
 * announced on a BroadcastChannel (the test sums it with the tabs' own counts).
 */
import { serveBrowserReplica } from "../../../src/worker/index.ts";

const diag = new BroadcastChannel("e2e-diag");
// When this worker's script ran (epoch ms): how long a successor takes to start.
diag.postMessage({
  worker: (globalThis as { name?: string }).name,
  startedAt: performance.timeOrigin + performance.now(),
  origin: performance.timeOrigin,
});
let opens = 0;
const idb = globalThis.indexedDB;
const open = idb.open.bind(idb);
idb.open = (name: string, version?: number) => {
  opens += 1;
  diag.postMessage({ worker: (globalThis as { name?: string }).name, opens, openedAt: performance.timeOrigin + performance.now() });
  return open(name, version);
};

serveBrowserReplica();
