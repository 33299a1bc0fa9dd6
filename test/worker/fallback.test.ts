// @vitest-environment jsdom
/**
 * Issue 15, fallback: a SharedWorker that fails to load (its script 404s or throws: an `error`
 * event), refuses the tab, or never answers within the bound makes the tab a replica of its own,
 * as where SharedWorker does not exist. `store.mode` says "tab" then and `modeReason` why (the
 * devtools header shows both). What the tab asked for before is asked again there (invariant 8:
 * pending throughout, never idle), and its subscriptions follow. Real stores and ports; FakeLocks;
 * fake timers for the bound.
 */
import { cleanup as unmount, render, screen } from "@testing-library/react";
import { createElement } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectBrowser, type BrowserStore } from "../../src/worker/connect-browser.ts";
import { PROTOCOL } from "../../src/worker/protocol.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { WORKER_PROBE_MS, WORKER_READY_MS } from "../../src/worker/worker-bounds.ts";
import { cleanup, sharedWorkerHere } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/fallback";
let seq = 0;
afterEach(() => void vi.useRealTimers());

/** A worker whose port takes messages and never answers (a script that never ran), and its `error` listeners. */
function silentWorker() {
  const channel = new MessageChannel();
  cleanup(() => (channel.port1.close(), channel.port2.close()));
  const onError: ((event: Event) => void)[] = [];
  const worker = {
    port: channel.port1 as unknown as MessagePort,
    addEventListener: (_type: "error", listener: (event: Event) => void) => void onError.push(listener),
  };
  return { worker, other: channel.port2, fireError: () => onError.forEach((l) => l(new Event("error"))) };
}

function tab(host: Host, start: () => ReturnType<typeof silentWorker>["worker"], extra: { workerTimeoutMs?: number } = {}): BrowserStore {
  sharedWorkerHere();
  const store = connectBrowser({
    name: `fb-${process.pid}-${++seq}`,
    worker: start,
    locks: new FakeLocks().forTab("t"),
    fetch: host.fetch,
    ...extra,
  });
  cleanup(() => store.destroy());
  return store;
}

/** Lets timers and promises run under fake timers until `promise` settles. */
async function settle<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 500 && !done; i++) await vi.advanceTimersByTimeAsync(10);
  return promise;
}

describe("a worker that fails falls back to a per-tab replica", () => {
  it(`never answers within WORKER_READY_MS (${WORKER_READY_MS} ms): mode "tab", the reason named, the pending ask answered by the tab's own replica`, async () => {
    vi.useFakeTimers();
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 1 } });
    const { worker } = silentWorker();
    const store = tab(host, () => worker);
    expect(store.mode).toBe("shared-worker");
    const seen: string[] = [];
    store.subscribe({ url: API }, () => seen.push(store.snapshot({ url: API }).status));
    const asked = store.ensure({ url: API });
    await vi.advanceTimersByTimeAsync(WORKER_READY_MS - 1);
    expect(store.mode).toBe("shared-worker");
    expect(store.snapshot({ url: API }).status).toBe("pending");
    expect(host.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.mode).toBe("tab");
    expect(store.modeReason).toBe(`the SharedWorker did not answer within ${WORKER_READY_MS} ms`);
    await expect(settle(asked)).resolves.toMatchObject({ status: "success", data: { own: 1 } });
    expect(host.calls).toHaveLength(1);
    // The subscription made before the fallback follows the tab's replica; never idle on the way.
    expect(seen).not.toContain("idle");
    expect(seen.at(-1)).toBe("success");
    expect(store.snapshot({ url: API })).toMatchObject({ status: "success", data: { own: 1 } });
  });

  it("fires `error` (its script 404s or throws at evaluation): falls back at once, and the devtools header says why", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 2 } });
    const failing = silentWorker();
    const store = tab(host, () => failing.worker);
    const asked = store.ensure({ url: API });
    // The error event comes once the tab has started the worker.
    while (failing.worker.port && store.mode === "shared-worker") {
      failing.fireError();
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(store.mode).toBe("tab");
    expect(store.modeReason).toBe("the SharedWorker failed to load (its script did not load or threw)");
    await expect(asked).resolves.toMatchObject({ status: "success", data: { own: 2 } });
    render(createElement(SharedFetchDevtoolsPanel, { store }));
    cleanup(unmount);
    expect(screen.getByText(/in this tab \(the SharedWorker failed to load/)).toBeTruthy();
  });

  it(`hears no \`error\` though its script 404s (it connected as the failing worker was torn down): starts it again at WORKER_PROBE_MS (${WORKER_PROBE_MS} ms) and falls back naming the load failure, well before WORKER_READY_MS`, async () => {
    vi.useFakeTimers();
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 4 } });
    const missed = silentWorker();
    const probe = silentWorker();
    const started: string[] = [];
    const store = tab(host, (name?: string) => (started.push(name ?? ""), started.length === 1 ? missed.worker : probe.worker));
    const asked = store.ensure({ url: API });
    await vi.advanceTimersByTimeAsync(WORKER_PROBE_MS - 1);
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    // The same worker, by the same name: a live one would take it as one more port.
    expect(started).toHaveLength(2);
    expect(started[1]).toBe(started[0]);
    expect(store.mode).toBe("shared-worker");
    probe.fireError();
    expect(store.mode).toBe("tab");
    expect(store.modeReason).toBe("the SharedWorker failed to load (its script did not load or threw)");
    await expect(settle(asked)).resolves.toMatchObject({ status: "success", data: { own: 4 } });
    expect(host.calls).toHaveLength(1);
  });

  it("answers late (after WORKER_PROBE_MS): the probe is one more port that never says hello and is closed; the worker serves the tab, one request", async () => {
    vi.useFakeTimers();
    const host = new Host();
    host.auto = () => ({ status: 200, body: { slow: 1 } });
    sharedWorkerHere();
    const locks = new FakeLocks();
    const replica = createBrowserReplica({ locks: locks.forTab("worker"), fetch: host.fetch, store: { settleMs: 0 } });
    cleanup(() => replica.destroy());
    const workerEnds: MessagePort[] = [];
    const start = () => {
      const channel = new MessageChannel();
      cleanup(() => (channel.port1.close(), channel.port2.close()));
      workerEnds.push(channel.port2);
      return { port: channel.port1 as unknown as MessagePort };
    };
    const store = connectBrowser({ name: `fb-${process.pid}-${++seq}`, worker: start, locks: locks.forTab("t"), fetch: host.fetch });
    cleanup(() => store.destroy());
    const asked = store.ensure({ url: API });
    await vi.advanceTimersByTimeAsync(WORKER_PROBE_MS);
    expect(workerEnds).toHaveLength(2);
    vi.useRealTimers();
    // The worker's script ran only now: both ports connect, the tab's first.
    const probeHeard: unknown[] = [];
    workerEnds[1]!.addEventListener("message", (event) => probeHeard.push(event.data));
    // Node's MessagePort says when its other end closed (a browser's does not).
    const probeClosed = new Promise((resolve) => (workerEnds[1] as unknown as NodeJS.EventEmitter).once("close", resolve));
    for (const port of workerEnds) replica.accept(port as unknown as MessagePort);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { slow: 1 } });
    expect(store.mode).toBe("shared-worker");
    expect(host.calls).toHaveLength(1);
    expect(probeHeard).toEqual([]);
    await probeClosed;
  });

  it("refuses the tab (another protocol version): falls back, naming the worker's message", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 3 } });
    const refusing = silentWorker();
    refusing.other.addEventListener("message", () =>
      refusing.other.postMessage({ t: "refused", message: `protocol ${PROTOCOL} asked, this worker speaks 0` }),
    );
    refusing.other.start();
    const store = tab(host, () => refusing.worker, { workerTimeoutMs: 60_000 });
    await expect(store.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { own: 3 } });
    expect(store.mode).toBe("tab");
    expect(store.modeReason).toBe(`the SharedWorker refused this tab: protocol ${PROTOCOL} asked, this worker speaks 0`);
  });
});

describe("the tab's own replica is a chunk loaded on demand (issue 10: a tab the worker serves loads no Yjs)", () => {
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 40 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  };

  it("where no worker can serve it: mode 'tab' at once, an ask made before the replica loaded is answered by it, pending meanwhile", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 4 } });
    const locks = new FakeLocks();
    const store = connectBrowser({ name: `fb-${process.pid}-${++seq}`, fetch: host.fetch, locks: locks.forTab("solo") });
    cleanup(() => store.destroy());
    expect(store.mode).toBe("tab");
    expect(store.modeReason).toBe("no worker factory given");
    const asked = store.ensure({ url: API });
    // Invariant 8: asked is pending, never idle, while the replica's code loads.
    expect(store.snapshot({ url: API }).status).toBe("pending");
    await expect(asked).resolves.toMatchObject({ status: "success", data: { own: 4 } });
    // The replica holds its lock (the one a crash would release) once it is made.
    expect(locks.holders()).toContain("solo");
  });

  it("destroyed before its replica loaded: none is made — no lock held, nothing fetched, the ask aborted", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 5 } });
    const locks = new FakeLocks();
    const store = connectBrowser({ name: `fb-${process.pid}-${++seq}`, fetch: host.fetch, locks: locks.forTab("gone") });
    const asked = store.ensure({ url: API });
    store.destroy();
    await expect(asked).rejects.toMatchObject({ name: "AbortError" });
    // Long enough for the chunk to have loaded and a replica to have taken its lock.
    await until(() => locks.holders().length > 0);
    expect(locks.holders()).toEqual([]);
    expect(host.calls).toHaveLength(0);
  });

  it("bad options throw at connectBrowser, naming the value, though the replica they are for comes later", () => {
    const name = `fb-${process.pid}-${++seq}`;
    expect(() => connectBrowser({ name, leaseMs: -1 })).toThrow(/leaseMs/);
    expect(() => connectBrowser({ name, programLeaseMs: Number.NaN })).toThrow(/programLeaseMs/);
    expect(() => connectBrowser({ name, fetch: "nope" as unknown as typeof fetch })).toThrow(
      'fetch must be a function when given, got "nope"', // a string as a URL is shown (no query); a function or object by kind
    );
  });
});
