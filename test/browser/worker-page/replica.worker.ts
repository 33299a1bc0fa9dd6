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

const stamp = () => performance.timeOrigin + performance.now();
const self = globalThis as unknown as { name?: string; addEventListener(t: "connect", f: (e: MessageEvent) => void): void };
// The first hello this worker got, and each request it sent: where a takeover's time goes (bench marks).
let helloed = false;
let readied = false;
let ensured = false;
self.addEventListener("connect", (event) => {
  const port = event.ports[0];
  if (!port) return;
  port.addEventListener("message", (e: MessageEvent<{ t?: string }>) => {
    if (e.data?.t === "hello" && !helloed) {
      helloed = true;
      diag.postMessage({ worker: self.name, helloAt: stamp() });
    }
    if (e.data?.t === "standby") diag.postMessage({ worker: self.name, standbyAt: stamp() });
    if (e.data?.t === "ensure" && !ensured) {
      ensured = true;
      diag.postMessage({ worker: self.name, ensureAt: stamp() });
    }
  });
  const post = port.postMessage.bind(port);
  port.postMessage = (m: { t?: string }) => {
    if (m?.t === "ready" && !readied) {
      readied = true;
      diag.postMessage({ worker: self.name, readyAt: stamp() });
    }
    post(m);
  };
});
// Each lock this worker asks for, asked and granted (bench marks: a takeover waits on these).
{
  const locks = navigator.locks as unknown as { request: (n: string, o: object, cb: (l: unknown) => unknown) => Promise<unknown> };
  const request = locks.request.bind(locks);
  locks.request = (name, options, callback) => {
    const asked = stamp();
    return request(name, options, (lock) => {
      diag.postMessage({
        worker: self.name,
        lock: name.slice(0, 40),
        mode: (options as { mode?: string }).mode,
        asked,
        granted: stamp(),
        got: lock !== null,
      });
      return callback(lock);
    });
  };
}
serveBrowserReplica({
  fetch: (input, init) => {
    diag.postMessage({ worker: self.name, fetchAt: stamp() });
    return fetch(input, init);
  },
});
