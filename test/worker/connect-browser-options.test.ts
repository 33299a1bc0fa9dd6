/**
 * connectBrowser's options and what becomes of a tab they cannot serve. Bad input throws at the
 * call with a SharedFetchInputError naming the value and what was expected (the rule every option
 * follows; `peers` by connectPeers' own rules), since the worker or the tab's own replica that
 * would use it comes later. A hello whose config the worker cannot serve is refused, naming why,
 * so the tab falls back at once (README, "Fallback": "it refuses the tab"). A tab replica that
 * cannot be made leaves the asks pending (invariant 8: never idle), says why on the console once,
 * and leaves no unhandled rejection. Where SharedWorker does not exist the tab is a replica of its
 * own at once (README, "Fallback"), whatever else the app passes. Real ports and stores; FakeLocks.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { SharedFetchInputError } from "../../src/core/errors.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { PROTOCOL } from "../../src/worker/protocol.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/options";
let seq = 0;
const name = () => `opts-${process.pid}-${++seq}`;
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("`peers` is checked at the call", () => {
  it("a bad `peers` throws SharedFetchInputError naming the value and what is expected; no worker is started", () => {
    const worker = vi.fn();
    const bad: [unknown, RegExp][] = [
      [{ url: "wss://sync.example.com", room: "" }, /connectBrowser's `peers\.room` must be a non-empty string, got ""/],
      [{ room: "r" }, /`peers\.url` must be a non-empty string, got undefined/],
      ["wss://sync.example.com", /`peers` must be \{ url, room, params\? \}, got "wss:\/\/sync\.example\.com"/],
      [{ url: "wss://s", room: "r", params: { token: 5 } }, /`peers\.params\.token` must be a string, got a number/],
      [{ url: "wss://s", room: "r", params: "token=1" }, /`peers\.params` must be a plain object of strings when given, got a string/],
    ];
    for (const [peers, message] of bad) {
      const call = () => connectBrowser({ name: name(), worker, locks: new FakeLocks().forTab("t"), peers: peers as never });
      expect(call).toThrow(SharedFetchInputError);
      expect(call).toThrow(message);
    }
    expect(worker).not.toHaveBeenCalled();
  });
});

describe("`worker` and `standby` are checked at the call", () => {
  it("a SharedWorker, its URL or null for `worker`, or a `standby` that is no boolean, throws naming it", () => {
    vi.stubGlobal("SharedWorker", function SharedWorker() {});
    const made = new (globalThis as unknown as { SharedWorker: new () => object }).SharedWorker();
    const bad: [object, RegExp][] = [
      [{ worker: made }, /worker must be a function \(name\) => new SharedWorker\(…\), or false, when given, got a SharedWorker/],
      [{ worker: "/replica.worker.js" }, /worker must be a function .* got "\/replica\.worker\.js"/],
      [{ worker: null }, /worker must be a function .* got null/],
      [{ worker: true }, /worker must be a function .* got true/],
      [{ worker: () => made, standby: "off" }, /standby must be a boolean when given, got "off"/],
    ];
    for (const [options, message] of bad) {
      const call = () => connectBrowser({ name: name(), locks: new FakeLocks().forTab("t"), ...options } as never);
      expect(call).toThrow(SharedFetchInputError);
      expect(call).toThrow(message);
    }
  });
});

describe("a hello the worker cannot serve is refused, naming why", () => {
  it("a malformed config (an empty peers room) is answered with `refused` naming it, not dropped in silence", async () => {
    const replica = createBrowserReplica({ locks: new FakeLocks().forTab("w"), lockName: name() });
    cleanup(() => replica.destroy());
    const channel = new MessageChannel();
    cleanup(() => (channel.port1.close(), channel.port2.close()));
    replica.accept(channel.port2 as unknown as MessagePort);
    const got: unknown[] = [];
    channel.port1.onmessage = (event) => void got.push(event.data);
    const config = { name: name(), identity: "u", peers: { url: "wss://sync.example.com", room: "" } };
    channel.port1.postMessage({ t: "hello", v: PROTOCOL, tab: "t", lock: "tab-lock", config });
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(got).toEqual([{ t: "refused", message: '`config.peers.room` must be a non-empty string, got ""' }]);
    expect(replica.malformed).toBe(1);
  });

  it("a config over the protocol's bounds (a 10 001-character name): the tab falls back at once with the worker's reason, not after its timeout", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const host = new Host();
    host.auto = () => ({ status: 200, body: { own: 1 } });
    const t = browser(host).tab({ name: "n".repeat(10_001), workerTimeoutMs: 60_000, fetch: host.fetch });
    const asked = t.ensure({ url: API });
    await until(() => t.mode === "tab");
    expect(t.modeReason).toMatch(/^the SharedWorker refused this tab: config\.name must be a non-empty string of at most 10000 characters/);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { own: 1 } });
  });
});

describe("a tab replica that cannot be made", () => {
  it("(its peers need a WebSocket there is none of): the asks stay pending, the console says why once, no unhandled rejection", async () => {
    vi.stubGlobal("WebSocket", undefined);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    cleanup(() => process.off("unhandledRejection", onUnhandled));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const host = new Host();
    host.auto = () => ({ status: 200, body: { never: true } });
    const store = connectBrowser({
      name: name(),
      fetch: host.fetch,
      locks: new FakeLocks().forTab("t"),
      peers: { url: "ws://127.0.0.1:9", room: "r" },
    });
    cleanup(() => store.destroy());
    const seen: string[] = [];
    store.subscribe({ url: API }, () => seen.push(store.snapshot({ url: API }).status));
    let settled = false;
    store.ensure({ url: API }).then(
      () => (settled = true),
      () => (settled = true),
    );
    await until(() => errors.mock.calls.length > 0);
    await new Promise((r) => setTimeout(r, 30));
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls[0]![0]).toBe(
      "shared-fetch: this tab's replica could not be made (no worker factory given); its requests stay pending",
    );
    expect(String(errors.mock.calls[0]![1])).toMatch(/no global WebSocket here/);
    expect(store.snapshot({ url: API }).status).toBe("pending");
    expect(seen).not.toContain("idle");
    // Asked after the failure too: pending, not thrown.
    expect(() => store.ensure({ url: `${API}/2` }).catch(() => {})).not.toThrow();
    expect(store.snapshot({ url: `${API}/2` }).status).toBe("pending");
    expect(settled).toBe(false);
    expect(host.calls).toHaveLength(0);
    expect(unhandled).toEqual([]);
  });
});

describe("no SharedWorker here", () => {
  it("a worker factory and the app's own `locks` (a polyfill, say) still make the tab its own replica at once, the factory never called", () => {
    expect(typeof (globalThis as { SharedWorker?: unknown }).SharedWorker).toBe("undefined");
    const worker = vi.fn();
    const store = connectBrowser({ name: name(), worker, locks: new FakeLocks().forTab("t") });
    cleanup(() => store.destroy());
    expect(store.mode).toBe("tab");
    expect(store.modeReason).toBe("no SharedWorker here");
    expect(worker).not.toHaveBeenCalled();
  });
});

describe("`locks` and `workerTimeoutMs` are checked at the call, whichever replica serves the tab", () => {
  it("where the tab is its own replica (no SharedWorker): a `locks` that is no LockManager throws naming it, not a console line with asks pending for ever", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const [locks, got] of [
      [5, "a number"],
      [{}, "an object without request()"],
      [true, "a boolean"],
    ] as const) {
      const call = () => connectBrowser({ name: name(), locks: locks as never });
      expect(call).toThrow(SharedFetchInputError);
      expect(call).toThrow(`shared-fetch: locks must be a LockManager (navigator.locks) or null when given, got ${got}`);
    }
    expect(error).not.toHaveBeenCalled();
  });

  it("where the tab is its own replica: a bad `workerTimeoutMs` throws as it does where a SharedWorker serves (the same config fails in every browser alike)", () => {
    for (const bad of [-1, 2 ** 31, "5000"])
      expect(() => connectBrowser({ name: name(), workerTimeoutMs: bad as never })).toThrow(
        /shared-fetch: workerTimeoutMs must be a non-negative number at most 2147483647, got/,
      );
  });

  it("with a SharedWorker: a `locks` without request() throws SharedFetchInputError naming it, before any worker is started", () => {
    vi.stubGlobal("SharedWorker", function SharedWorker() {});
    const worker = vi.fn();
    expect(() => connectBrowser({ name: name(), worker, locks: { query: () => {} } as never })).toThrow(
      new SharedFetchInputError(
        "shared-fetch: locks must be a LockManager (navigator.locks) or null when given, got an object without request()",
      ),
    );
    expect(worker).not.toHaveBeenCalled();
  });
});

describe("a worker tab's store checks what its calls are given, as a store of its own does", () => {
  it("refuses a listener that is not a function and a bad maxAgeMs on refetch, naming them; nothing is sent", async () => {
    const host = new Host();
    const store = browser(host).tab();
    expect(() => store.subscribe({ url: API }, 5 as never)).toThrow(
      new SharedFetchInputError("shared-fetch: subscribe needs a listener function, got 5"),
    );
    expect(() => store.subscribeProgram({ url: `${API}/main.js` }, null as never)).toThrow(/subscribe needs a listener function, got null/);
    await expect(store.refetch({ url: API }, { maxAgeMs: -1 })).rejects.toThrow(/maxAgeMs must be a non-negative number, got -1/);
    expect(host.calls).toHaveLength(0);
  });
});
