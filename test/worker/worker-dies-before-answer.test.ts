/**
 * A tab opens as the browser's live worker dies (its host tab crashed): the worker never answers
 * the tab's hello, and the tab learned the worker's lock only from that answer, so it had nothing
 * to watch and waited out the answer bound (WORKER_READY_MS, 5 s) with no data, then became a
 * replica of its own. The tab now watches, from its hello, the lock that the generation it
 * turned to holds (Web Locks' query, as it found that generation): its release is the death, and
 * the tab turns to the next generation at once (invariant 3a: a real event, no timer). A worker
 * that lives but is busy is waited for: no second worker, one request. A port the tab leaves may
 * reach a fresh worker of the dead one's name that read its hello: the tab says bye there, or that
 * worker ran the tab's asks beside the next one (a second request) and never retired. Real ports, docs and
 * stores; FakeLocks (crash = the browser releasing a dead realm's locks); the answer bound set to
 * Infinity so that only the death can move the tab.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import type { PortLike } from "../../src/worker/port.ts";
import { WORKER_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { WORKER_PROBE_MS } from "../../src/worker/worker-bounds.ts";
import { browser, cleanup, holdingHello } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/dies-before-answer";

afterEach(() => void vi.useRealTimers());

/** `port`, calling `onHello` as the tab's hello goes out on it. */
function telling(port: PortLike, onHello: () => void): PortLike {
  return {
    postMessage: (m: unknown) => ((m as { t?: string }).t === "hello" && onHello(), port.postMessage(m)),
    addEventListener: (t, f) => port.addEventListener(t, f),
    removeEventListener: (t, f) => port.removeEventListener(t, f),
    start: () => port.start?.(),
    close: () => port.close(),
  };
}

/** A live worker (its host tab asked once), and a second tab whose hello it gets only once `open` settles. */
async function busyWorker() {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const first = b.tab();
  await expect(first.ensure({ url: API })).resolves.toMatchObject({ data: { v: 1 } });
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const started: string[] = [];
  let hello!: () => void;
  const helloSent = new Promise<void>((resolve) => (hello = resolve));
  const tab = b.tab({
    workerTimeoutMs: Infinity,
    standby: false,
    worker: (name) => {
      started.push(name);
      const worker = b.start(name);
      return started.length === 1 ? { port: telling(holdingHello(worker.port, opened), hello) } : worker;
    },
  });
  return { b, host, tab, open, started, helloSent };
}

it("the live worker dies before it answers a new tab's hello: the tab turns to the next generation at once, served, not a replica of its own", async () => {
  const { b, host, tab, started, helloSent } = await busyWorker();
  const asked = tab.refetch({ url: API });
  // The hello went out (held in the port): the tab waits on the worker of generation 0.
  await helloSent;
  b.kill(0);
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 2 } });
  expect(tab.mode).toBe("shared-worker");
  expect(started).toEqual([`shared-fetch:${b.name}:0`, `shared-fetch:${b.name}:1`]);
  expect(b.workerStore(1)).toBeTruthy();
  expect(host.calls).toHaveLength(2);
});

it("the live worker is only busy: the tab waits for its answer, and turns to no other worker", async () => {
  const { b, host, tab, open, started, helloSent } = await busyWorker();
  const asked = tab.refetch({ url: API });
  await helloSent;
  open();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 2 } });
  expect(tab.mode).toBe("shared-worker");
  expect(started).toEqual([`shared-fetch:${b.name}:0`]);
  expect([...b.workers.keys()]).toEqual([`shared-fetch:${b.name}:0`]);
  expect(host.calls).toHaveLength(2);
});

it(`a fresh worker takes its lock only after the tab's hello, then dies before it answers: the tab watches that lock from WORKER_PROBE_MS (${WORKER_PROBE_MS} ms) on, and turns to the next generation at its release`, async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const gen0 = `shared-fetch:${b.name}:0`;
  const started: string[] = [];
  let hello!: () => void;
  const helloSent = new Promise<void>((resolve) => (hello = resolve));
  // Generation 0 is still loading: its ports take messages and nothing answers.
  const loading = () => {
    const channel = new MessageChannel();
    cleanup(() => (channel.port1.close(), channel.port2.close()));
    return { port: telling(channel.port1 as unknown as PortLike, hello) };
  };
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const tab = b.tab({
    workerTimeoutMs: Infinity,
    standby: false,
    worker: (name) => (started.push(name), name === gen0 ? loading() : b.start(name)),
  });
  const asked = tab.ensure({ url: API });
  await helloSent;
  // It took its lock since (it read the hello), as a worker does before it opens its doc.
  let taken!: () => void;
  const held = new Promise<void>((resolve) => (taken = resolve));
  void b.locks.forTab(gen0).request(WORKER_LOCK_PREFIX + gen0, { mode: "exclusive" }, () => (taken(), new Promise(() => {})));
  await held;
  await vi.advanceTimersByTimeAsync(WORKER_PROBE_MS);
  // The probe started it again by its name (a live worker takes that as one more port).
  expect(started).toEqual([gen0, gen0]);
  vi.useRealTimers();
  b.locks.crash(gen0);
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(tab.mode).toBe("shared-worker");
  expect(started).toEqual([gen0, gen0, `shared-fetch:${b.name}:1`]);
});

it("the hello reached a fresh worker of the dead one's name (the browser had not let go of its lock yet): the tab turns to the next generation, says bye there, and that worker retires", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const first = b.tab();
  await expect(first.ensure({ url: API })).resolves.toMatchObject({ data: { v: 1 } });
  const gen0 = `shared-fetch:${b.name}:0`;
  // The browser starts a fresh worker for the name: the live one is dead, its lock not yet let go.
  let retired!: () => void;
  const retiredNow = new Promise<void>((resolve) => (retired = resolve));
  const fresh = createBrowserReplica({
    locks: b.locks.forTab("fresh"),
    lockName: gen0,
    fetch: host.fetch,
    store: { settleMs: 0 },
    retireAfterMs: 10,
    onRetire: () => retired(),
  });
  cleanup(() => fresh.destroy());
  let deliver!: () => void;
  const delivered = new Promise<void>((resolve) => (deliver = resolve));
  const tab = b.tab({
    workerTimeoutMs: Infinity,
    standby: false,
    worker: (name) => {
      if (name !== gen0) return b.start(name);
      const channel = new MessageChannel();
      cleanup(() => (channel.port1.close(), channel.port2.close()));
      fresh.accept(channel.port2 as unknown as MessagePort);
      return { port: holdingHello(channel.port1 as unknown as PortLike, delivered) };
    },
  });
  const asked = tab.refetch({ url: API });
  // The tab watches the dead worker's lock; then the fresh worker reads the hello and queues for it.
  const pending = async (mode: string) =>
    ((await b.locks.forTab("look").query()).pending ?? []).some((l) => l.name?.endsWith(gen0) && l.mode === mode);
  while (!(await pending("shared"))) await new Promise((r) => setTimeout(r, 1));
  deliver();
  while (!(await pending("exclusive"))) await new Promise((r) => setTimeout(r, 1));
  b.kill(0);
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 2 } });
  expect(b.workerStore(1)).toBeTruthy();
  await retiredNow;
  expect(host.calls).toHaveLength(2);
});
