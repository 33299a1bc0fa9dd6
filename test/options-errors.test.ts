/**
 * Bad options are refused where they are given, with a message naming the option, what was
 * expected and what came (by type alone where it may hold a secret), and nothing is left behind:
 * no observer on the doc, no Web Lock, no timer. The checks sit before anything is made, because
 * a refused store that held its replica lock would look alive to every other tab.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import WebSocket from "ws";
import { connectBrowser, connectPeers, connectTabs, createSharedFetchStore, SharedFetchInputError } from "../src/index.ts";
import { connectHocuspocus } from "../src/hocuspocus/index.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import { Host } from "../sim/host.ts";
import { URL_A } from "./harness/replicas.ts";

afterEach(() => vi.useRealTimers());

const observerCount = (doc: Y.Doc): number =>
  [...(doc as unknown as { _observers: Map<string, Set<unknown>> })._observers.values()].reduce((n, set) => n + set.size, 0);

describe("createSharedFetchStore", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "an awareness without its methods",
      { awareness: {} },
      /awareness must be a y-protocols Awareness .*got an object without getStates\(\)/,
    ],
    ["an awareness that is a string", { awareness: "tabs" }, /awareness must be .*got a string/],
    ["an awareness that is null", { awareness: null }, /awareness must be .*got null/],

    ["locks that are a number", { locks: 5 }, /locks must be a LockManager \(navigator.locks\) or null when given, got a number/],
    ["locks without request()", { locks: {} }, /locks must be .*got an object without request\(\)/],
    ["an empty browserId", { browserId: "" }, /browserId must be a non-empty string when given, got ""/],
    ["a browserId that is a number", { browserId: 5 }, /browserId must be a non-empty string when given, got 5/],
    ["a fetch that is a string", { fetch: "x" }, /fetch must be a function \(typeof fetch\) when given, got a string/],
    ["a fetch that is null", { fetch: null }, /fetch must be a function .*got null/],
    ["a leaseMs that is a bigint", { leaseMs: 10n }, /leaseMs must be a positive number.*, got 10n$/],
  ];
  for (const [name, extra, message] of cases)
    it(`${name}: a SharedFetchInputError naming it; no observer on the doc, no Web Lock held`, async () => {
      const doc = new Y.Doc();
      const locks = new FakeLocks();
      const before = observerCount(doc);
      let error: unknown;
      try {
        createSharedFetchStore({ doc, fetch: new Host().fetch, locks: locks.forTab("a"), ...extra } as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SharedFetchInputError);
      expect((error as Error).message).toMatch(message);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(observerCount(doc)).toBe(before);
      expect(locks.holders()).toEqual([]);
    });

  it("the connection given for its awareness (`{ awareness: tabs }`) is named, with what to pass instead", () => {
    // It said "got an object without getStates()", which names no fix.
    const doc = new Y.Doc();
    const tabs = connectTabs(doc, { name: "awareness-is-connection", indexeddb: false });
    try {
      expect(() => createSharedFetchStore({ doc, locks: null, awareness: tabs as never })).toThrow(
        /awareness must be .*got the connection from connectTabs\/connectPeers; pass its `\.awareness`$/,
      );
      createSharedFetchStore({ doc, locks: null, awareness: tabs.awareness }).destroy();
    } finally {
      tabs.destroy();
    }
  });

  it("a fetch closing over a token is never quoted", () => {
    const fetchWithToken = { token: "secret-123" };
    expect(() => createSharedFetchStore({ doc: new Y.Doc(), fetch: fetchWithToken as never })).toThrow(/got an object$/);
  });
});

describe("the store's calls", () => {
  it("refetch checks maxAgeMs as ensure does, and skipInFlight, and writes nothing", async () => {
    const host = new Host();
    const store = createSharedFetchStore({ doc: new Y.Doc(), fetch: host.fetch, locks: null, settleMs: 0 });
    for (const bad of [-1, Number.NaN, "1"])
      await expect(store.refetch({ url: URL_A }, { maxAgeMs: bad as number })).rejects.toThrow(/maxAgeMs must be a non-negative number/);
    await expect(store.refetch({ url: URL_A }, { skipInFlight: "yes" as never })).rejects.toThrow(
      /skipInFlight must be a boolean when given, got "yes"/,
    );
    expect(host.calls).toHaveLength(0);
    expect(store.claims()).toEqual([]);
    store.destroy();
  });

  it("an AbortController given for `signal` (instead of its .signal) is named as one, not as {}", async () => {
    const host = new Host();
    const store = createSharedFetchStore({ doc: new Y.Doc(), fetch: host.fetch, locks: null, settleMs: 0 });
    const controller = new AbortController();
    await expect(store.ensure({ url: URL_A }, { signal: controller as never })).rejects.toThrow(
      new SharedFetchInputError("shared-fetch: signal must be an AbortSignal, got an AbortController"),
    );
    await expect(store.ensureProgram({ url: `${URL_A}/main.js` }, { signal: controller as never })).rejects.toThrow(
      /signal must be an AbortSignal, got an AbortController$/,
    );
    expect(host.calls).toHaveLength(0);
    store.destroy();
  });

  it("subscribe and subscribeProgram refuse a listener that is not a function, naming it", () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), fetch: new Host().fetch, locks: null });
    expect(() => store.subscribe({ url: URL_A }, 5 as never)).toThrow(
      new SharedFetchInputError("shared-fetch: subscribe needs a listener function, got 5"),
    );
    expect(() => store.subscribeProgram({ url: `${URL_A}/main.js` }, "x" as never)).toThrow(/subscribe needs a listener function, got "x"/);
    store.destroy();
  });
});

describe("connectors", () => {
  it("connectTabs names a doc that is not a Y.Doc, a name that is not a string and an indexeddb that is not a boolean", () => {
    expect(() => connectTabs({} as never, { name: "app" })).toThrow(
      new TypeError("connectTabs: `doc` must be a Y.Doc, got an object that is not one"),
    );
    expect(() => connectTabs(undefined as never, { name: "app" })).toThrow(
      new TypeError("connectTabs: `doc` must be a Y.Doc, got undefined"),
    );
    expect(() => connectTabs(new Y.Doc(), { name: 5 as never })).toThrow(
      new TypeError("connectTabs: `name` must be a non-empty string, got 5"),
    );
    expect(() => connectTabs(new Y.Doc(), { name: "app", indexeddb: "no" as never })).toThrow(
      new TypeError('connectTabs: `indexeddb` must be a boolean when given, got "no"'),
    );
    // A string read from configuration: quoted, or "got false" would read as a valid value.
    expect(() => connectTabs(new Y.Doc(), { name: "app", indexeddb: "false" as never })).toThrow(
      new TypeError('connectTabs: `indexeddb` must be a boolean when given, got "false"'),
    );
  });

  it("connectPeers and connectHocuspocus name a WebSocketPolyfill that is not a constructor, before any timer starts", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const polyfill = 5 as never;
    expect(() => connectPeers(new Y.Doc(), { url: "ws://127.0.0.1:9", room: "r", WebSocketPolyfill: polyfill })).toThrow(
      new TypeError("connectPeers: `WebSocketPolyfill` must be a WebSocket constructor when given, got a number"),
    );
    expect(() => connectHocuspocus(new Y.Doc(), { url: "ws://127.0.0.1:9", room: "r", token: "t", WebSocketPolyfill: polyfill })).toThrow(
      new TypeError("connectHocuspocus: `WebSocketPolyfill` must be a WebSocket constructor when given, got a number"),
    );
    expect(() => connectPeers({} as never, { url: "ws://127.0.0.1:9", room: "r" })).toThrow(/connectPeers: `doc` must be a Y.Doc/);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("connectPeers names a url that is not a WebSocket URL, and a room y-websocket would cut at '?' or '#' (DESIGN 13: tenants' rooms stay apart), before any timer starts", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    for (const url of ["127.0.0.1:1234", "sync.example.com", "not a url", "ftp://127.0.0.1"])
      expect(() => connectPeers(new Y.Doc(), { url, room: "r", WebSocketPolyfill: WebSocket })).toThrow(
        new TypeError(`connectPeers: \`url\` must be a ws:// or wss:// URL (e.g. "wss://sync.example.com"), got ${JSON.stringify(url)}`),
      );
    for (const room of ["org-x?tenant=1", "team#1"])
      expect(() => connectPeers(new Y.Doc(), { url: "ws://127.0.0.1:9", room, WebSocketPolyfill: WebSocket })).toThrow(
        /connectPeers: `room` must not contain "\?" or "#"/,
      );
    expect(() => connectBrowser({ name: "app", peers: { url: "ws://127.0.0.1:9", room: "a?b" } })).toThrow(/`peers.room` must not contain/);
    expect(vi.getTimerCount()).toBe(0);
  });
});
