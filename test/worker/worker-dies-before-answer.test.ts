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
import { fakeStorage } from "../sync/boot-fakes.ts";
import { browser, cleanup, holdingHello } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/dies-before-answer";

afterEach(() => (vi.useRealTimers(), vi.unstubAllGlobals()));

/** Resolves once `check` holds, looked at after each turn of the event loop (no timer: they may be faked). */
async function untilTurned(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

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

/** A port whose other end nothing reads: a worker that died, or whose script threw before it listened. */
function silentPort(): PortLike {
  const channel = new MessageChannel();
  cleanup(() => (channel.port1.close(), channel.port2.close()));
  return channel.port1 as unknown as PortLike;
}

it(`a worker whose script threw as it started, heard by the tab connected then: a tab that connects to it later hears no \`error\`, nor does its probe; it falls back at WORKER_PROBE_MS (${WORKER_PROBE_MS} ms), not at the answer bound, naming why; its own replica sends the one request`, async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  vi.stubGlobal("localStorage", fakeStorage());
  const error = vi.spyOn(console, "error").mockImplementation(() => {});
  cleanup(() => error.mockRestore());
  // The broken worker: alive, nothing reads its ports; its `error` goes to the first tab only.
  const threw = new EventTarget();
  let listening = false;
  const first = b.tab({
    standby: false,
    fetch: host.fetch,
    worker: () => ({ port: silentPort(), addEventListener: (t, f) => ((listening = true), threw.addEventListener(t, f)) }),
  });
  await untilTurned(() => listening);
  threw.dispatchEvent(Object.assign(new Event("error"), { message: "Uncaught Error: boom at start" }));
  await untilTurned(() => first.mode === "tab");
  expect(first.modeReason).toBe("the SharedWorker failed to load: Uncaught Error: boom at start");
  const started: string[] = [];
  let hello!: () => void;
  const helloSent = new Promise<void>((resolve) => (hello = resolve));
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const tab = b.tab({
    standby: false,
    fetch: host.fetch,
    worker: (name) => (started.push(name), { port: started.length > 1 ? silentPort() : telling(silentPort(), hello) }),
  });
  const asked = tab.ensure({ url: API });
  await helloSent;
  await vi.advanceTimersByTimeAsync(WORKER_PROBE_MS - 1);
  expect(tab.mode).toBe("shared-worker");
  await vi.advanceTimersByTimeAsync(1);
  await untilTurned(() => tab.mode === "tab");
  expect(tab.modeReason).toBe("the SharedWorker failed to load (told to another tab)");
  expect(started).toEqual([`shared-fetch:${b.name}:0`, `shared-fetch:${b.name}:0`]);
  vi.useRealTimers();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(host.calls).toHaveLength(1);
});

it(`the live worker is busy past WORKER_PROBE_MS (${WORKER_PROBE_MS} ms), the tab's hello unread: it holds its lock, so the tab keeps waiting and is served by it, one request`, async () => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const { b, host, tab, open, started, helloSent } = await busyWorker();
  const asked = tab.refetch({ url: API });
  await helloSent;
  await vi.advanceTimersByTimeAsync(WORKER_PROBE_MS);
  expect(started).toEqual([`shared-fetch:${b.name}:0`, `shared-fetch:${b.name}:0`]);
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  expect(tab.mode).toBe("shared-worker");
  vi.useRealTimers();
  open();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 2 } });
  expect(tab.mode).toBe("shared-worker");
  expect([...b.workers.keys()]).toEqual([`shared-fetch:${b.name}:0`]);
  expect(host.calls).toHaveLength(2);
});

it("a message from the worker cannot be read (the port's messageerror): the tab falls back at once, naming why", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const unreadable = new EventTarget();
  let hello!: () => void;
  const helloSent = new Promise<void>((resolve) => (hello = resolve));
  const error = vi.spyOn(console, "error").mockImplementation(() => {});
  cleanup(() => error.mockRestore());
  const tab = b.tab({
    workerTimeoutMs: Infinity,
    standby: false,
    fetch: host.fetch,
    worker: () => {
      const port = telling(silentPort(), hello);
      return {
        port: {
          ...port,
          addEventListener: (t, f) =>
            t === "messageerror" ? unreadable.addEventListener(t, f as EventListener) : port.addEventListener(t, f),
        },
      };
    },
  });
  const asked = tab.ensure({ url: API });
  await helloSent;
  expect(tab.mode).toBe("shared-worker");
  unreadable.dispatchEvent(new Event("messageerror"));
  expect(tab.mode).toBe("tab");
  expect(tab.modeReason).toBe("a message from the SharedWorker could not be read");
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(host.calls).toHaveLength(1);
});

it("a worker of that generation that answers clears the failed-to-load mark: a later slow worker is waited for, not taken for the broken one", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const key = `shared-fetch:worker-failed:shared-fetch:${b.name}:0`;
  const storage = fakeStorage({ [key]: "1" });
  vi.stubGlobal("localStorage", storage);
  const tab = b.tab({ standby: false });
  await expect(tab.ensure({ url: API })).resolves.toMatchObject({ data: { v: 1 } });
  expect(tab.mode).toBe("shared-worker");
  expect(storage.items.has(key)).toBe(false);
});
