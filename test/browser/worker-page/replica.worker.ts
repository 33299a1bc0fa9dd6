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
// Set when this worker is not generation 0 (a standby or a successor): its message handlers are timed.
const successor = self.name?.endsWith(":0") ? undefined : stamp();
let readied = false;
let ensured = false;
self.addEventListener("connect", (event) => {
  const port = event.ports[0];
  if (!port) return;
  // How long the replica's own handler took on each message, once it is a successor (TIMELINE).
  const listen = port.addEventListener.bind(port);
  port.addEventListener = ((type: string, listener: (e: MessageEvent) => void, options?: unknown) => {
    if (type !== "message" || successor === undefined) return listen(type as "message", listener, options as undefined);
    const timed = (e: MessageEvent<{ t?: string }>) => {
      const start = stamp();
      listener(e);
      diag.postMessage({ worker: self.name, handled: e.data?.t, start, ms: Math.round((stamp() - start) * 10) / 10 });
    };
    return listen("message", timed, options as undefined);
  }) as typeof port.addEventListener;
  listen("message", (e: MessageEvent<{ t?: string }>) => {
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
  type Out = { t?: string; snap?: { status?: string }; messages?: Out[] };
  port.postMessage = (m: Out) => {
    if (m?.t === "ready" && !readied) {
      readied = true;
      diag.postMessage({ worker: self.name, readyAt: stamp() });
    }
    const at = stamp();
    post(m);
    const inner = m?.t === "batch" ? (m.messages ?? []) : [m];
    if (inner.some((x) => (x?.t === "snap" || x?.t === "settled") && x.snap?.status === "success")) markDelivery(at, stamp() - at);
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
// The data's way out to the tabs: when the response came, and the first and last post of it to a port.
let delivery: { posts: number; first: number; last: number; postMs: number } | undefined;
let settledAt: number | undefined;
let answeredAt: number | undefined;
function markDelivery(at: number, postMs: number): void {
  if (!delivery) {
    delivery = { posts: 0, first: at, last: at, postMs: 0 };
    setTimeout(() => {
      diag.postMessage({ worker: self.name, answeredAt, settledAt, delivery });
      delivery = undefined;
    }, 50);
  }
  delivery.posts += 1;
  delivery.last = at;
  delivery.postMs += postMs;
}
const replica = serveBrowserReplica({
  fetch: (input, init) => {
    diag.postMessage({ worker: self.name, fetchAt: stamp() });
    return fetch(input, init).then((response) => {
      answeredAt = stamp();
      return response;
    });
  },
});

// When the store wrote the outcome (its "settled" event), for each store the worker makes.
const watched = new Set<unknown>();
setInterval(() => {
  for (const store of replica.stores()) {
    if (watched.has(store)) continue;
    watched.add(store);
    store.onEvent((event) => {
      if (event.type === "settled") settledAt = stamp();
    });
  }
}, 20);
