/**
 * A misspelt option does something: each entry point warns once of a key it does not know, naming
 * the closest option it does. Before, `connectTabs(doc, { name, indexedDB: false })` persisted the
 * doc (the option is `indexeddb`), `createSharedFetchStore({ doc, setleMs: 0 })` kept its settle
 * window, `connectBrowser({ name, workers })` ran a replica in every tab, and nothing said why. A
 * warning, not an error: an app may hand several entry points one shared config object. Each case
 * uses a key of its own: a key is warned of once per entry point for the page's life. A key that is no plausible
 * typo of any option (more edits than TypeScript's "Did you mean" allows, 0.4 per letter) names no
 * option but lists them: `connectPeers(doc, { connect: false })`, y-websocket's own option, was
 * answered "did you mean `room`?".
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectBrowser, connectPeers, connectTabs, createSharedFetchStore } from "../src/index.ts";
import { connectHocuspocus } from "../src/hocuspocus/index.ts";
import { createBrowserReplica, serveBrowserReplica } from "../src/worker/index.ts";

let warn: MockInstance<typeof console.warn>;
const warnings = () => warn.mock.calls.map((args) => String(args[0]));
const scope = globalThis as { addEventListener?: unknown };

beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  warn.mockRestore();
  delete scope.addEventListener;
});

describe("unknown options: each entry point warns once, naming the key and the closest known option", () => {
  it("connectTabs: `indexedDB` (the option is `indexeddb`), once however often the app connects", () => {
    for (let i = 0; i < 2; i++) connectTabs(new Y.Doc(), { name: "unknown-options", indexedDB: false } as never).destroy();
    expect(warnings()).toEqual(["shared-fetch: connectTabs ignores `indexedDB`; did you mean `indexeddb`?"]);
  });

  it("connectTabs: every known option given is no warning", () => {
    connectTabs(new Y.Doc(), { name: "unknown-options-2", indexeddb: false, persisted: false, snapshotBytes: 0 }).destroy();
    expect(warnings()).toEqual([]);
  });

  it("createSharedFetchStore: `setleMs` names `settleMs`; the store is made all the same", () => {
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, setleMs: 0 } as never);
    store.destroy();
    expect(warnings()).toEqual(["shared-fetch: createSharedFetchStore ignores `setleMs`; did you mean `settleMs`?"]);
  });

  it("createSharedFetchStore: a Y.Doc given as the options (createSharedFetchStore(doc)) is refused naming it, with no warning of its own keys", () => {
    expect(() => createSharedFetchStore(new Y.Doc() as never)).toThrow(
      /createSharedFetchStore needs \{ doc: Y.Doc \}, got the Y.Doc itself: pass \{ doc \}$/,
    );
    expect(warnings()).toEqual([]);
  });

  it("connectPeers: `rooom` is named beside the refusal of the missing room; `param` names `params`", () => {
    const doc = new Y.Doc();
    expect(() => connectPeers(doc, { url: "ws://127.0.0.1:9", rooom: "r" } as never)).toThrow(/`room` must be a non-empty string/);
    const peers = connectPeers(doc, { url: "ws://127.0.0.1:9", room: "r", param: { token: "t" }, WebSocketPolyfill: WebSocket } as never);
    peers.destroy();
    expect(warnings()).toEqual([
      "shared-fetch: connectPeers ignores `rooom`; did you mean `room`?",
      "shared-fetch: connectPeers ignores `param`; did you mean `params`?",
    ]);
  });

  it("connectHocuspocus: `tokn` is named beside the refusal of the missing token", () => {
    expect(() => connectHocuspocus(new Y.Doc(), { url: "ws://127.0.0.1:9", room: "r", tokn: "t" } as never)).toThrow(/token/);
    expect(warnings()).toEqual(["shared-fetch: connectHocuspocus ignores `tokn`; did you mean `token`?"]);
  });

  it("connectBrowser: `workers` names `worker`", () => {
    const store = connectBrowser({ name: "unknown-options-3", workers: () => undefined } as never);
    store.destroy();
    expect(warnings()).toEqual(["shared-fetch: connectBrowser ignores `workers`; did you mean `worker`?"]);
  });

  it("serveBrowserReplica: `retireAfterMS` names `retireAfterMs` once, though it makes its replica as createBrowserReplica does", () => {
    scope.addEventListener = () => {};
    serveBrowserReplica({ locks: null, retireAfterMS: 10 } as never).destroy();
    serveBrowserReplica({ locks: null, retireAfterMS: 10 } as never).destroy();
    expect(warnings()).toEqual(["shared-fetch: serveBrowserReplica ignores `retireAfterMS`; did you mean `retireAfterMs`?"]);
  });
});

describe("unknown options: once per entry point and key, so a second misuse of a key elsewhere is told there too", () => {
  it("`leaseMS` given to createSharedFetchStore, then to connectBrowser: each names it (the second was silent)", () => {
    createSharedFetchStore({ doc: new Y.Doc(), locks: null, leaseMS: 5000 } as never).destroy();
    connectBrowser({ name: "unknown-options-6", leaseMS: 5000 } as never).destroy();
    createSharedFetchStore({ doc: new Y.Doc(), locks: null, leaseMS: 5000 } as never).destroy();
    expect(warnings()).toEqual([
      "shared-fetch: createSharedFetchStore ignores `leaseMS`; did you mean `leaseMs`?",
      "shared-fetch: connectBrowser ignores `leaseMS`; did you mean `leaseMs`?",
    ]);
  });

  it("`retireAfterMs0` at serveBrowserReplica, then at createBrowserReplica: each entry point names it", () => {
    scope.addEventListener = () => {};
    serveBrowserReplica({ locks: null, retireAfterMs0: 10 } as never).destroy();
    createBrowserReplica({ locks: null, retireAfterMs0: 10 } as never).destroy();
    expect(warnings()).toEqual([
      "shared-fetch: serveBrowserReplica ignores `retireAfterMs0`; did you mean `retireAfterMs`?",
      "shared-fetch: createBrowserReplica ignores `retireAfterMs0`; did you mean `retireAfterMs`?",
    ]);
  });
});

describe("unknown options far from every known one: no suggestion, the known options listed (TypeScript's spelling bound)", () => {
  it("connectPeers: `connect` (y-websocket's option) is no typo of `room`", () => {
    connectPeers(new Y.Doc(), { url: "ws://127.0.0.1:9", room: "r", connect: false, WebSocketPolyfill: WebSocket } as never).destroy();
    expect(warnings()).toEqual([
      "shared-fetch: connectPeers ignores `connect`; known: url, room, params, WebSocketPolyfill, broadcastChannel",
    ]);
  });

  it("createSharedFetchStore: TanStack's `staleTime` and `gcTime` name no store option; `awarness` still names `awareness`", () => {
    createSharedFetchStore({ doc: new Y.Doc(), locks: null, staleTime: 1000, gcTime: 0, awarness: null } as never).destroy();
    const known =
      "known: doc, replicaId, identity, fetch, leaseMs, programLeaseMs, awareness, settleMs, retentionMs, locks, browserId, keyLockScope, maxPrograms, maxProgramBytes, maxResultBytes";
    expect(warnings()).toEqual([
      `shared-fetch: createSharedFetchStore ignores \`staleTime\`; ${known}`,
      `shared-fetch: createSharedFetchStore ignores \`gcTime\`; ${known}`,
      "shared-fetch: createSharedFetchStore ignores `awarness`; did you mean `awareness`?",
    ]);
  });

  it("connectTabs: `channel` names no option", () => {
    connectTabs(new Y.Doc(), { name: "unknown-options-4", channel: "x" } as never).destroy();
    expect(warnings()).toEqual(["shared-fetch: connectTabs ignores `channel`; known: name, indexeddb, persisted, snapshotBytes, locks"]);
  });

  it("connectBrowser: `sharedWorker` names no option; `workerUrl` names `worker`", () => {
    connectBrowser({ name: "unknown-options-5", sharedWorker: true, workerUrl: "/w.js" } as never).destroy();
    expect(warnings()).toEqual([
      "shared-fetch: connectBrowser ignores `sharedWorker`; known: name, identity, leaseMs, programLeaseMs, peers, connectPeers, worker, standby, fetch, locks, workerTimeoutMs",
      "shared-fetch: connectBrowser ignores `workerUrl`; did you mean `worker`?",
    ]);
  });

  it("serveBrowserReplica: `timeout`, connectHocuspocus: `reconnect` name no option", () => {
    scope.addEventListener = () => {};
    serveBrowserReplica({ locks: null, timeout: 10 } as never).destroy();
    expect(() => connectHocuspocus(new Y.Doc(), { url: "ws://127.0.0.1:9", room: "r", reconnect: false } as never)).toThrow(/token/);
    expect(warnings()).toEqual([
      "shared-fetch: serveBrowserReplica ignores `timeout`; known: connectPeers, fetch, onRetire, lockName, store, locks, retireAfterMs",
      "shared-fetch: connectHocuspocus ignores `reconnect`; known: url, urls, room, token, WebSocketPolyfill, reconnectDelayMs, onRefused, oneInstance",
    ]);
  });
});
