/**
 * BroadcastChannels that know which page opened them, for the tabs' sync tests under Node: a
 * "busy" page (its main thread taken by other work) receives nothing until it is free, then all it
 * was sent, in order; what each page received is logged. And a tab replica whose IndexedDB open
 * is held back (a database that takes its time). Globals are stubbed with vi.stubGlobal: the test
 * file restores them (vi.unstubAllGlobals) after each test.
 */
import { vi } from "vitest";
import * as Y from "yjs";
import type { FakeLocks } from "../../sim/fake-locks.ts";
import type { Host } from "../../sim/host.ts";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { asBytes, readSyncStatus } from "../../src/sync/tab-protocol.ts";
import { slowIndexedDB } from "./boot-fakes.ts";

export function pageChannels() {
  const Real = globalThis.BroadcastChannel;
  let making: string | undefined;
  const busy = new Set<string>();
  const held: (() => void)[] = [];
  const opened: (string | undefined)[] = [];
  const received: { page: string | undefined; data: Uint8Array }[] = [];
  class PageChannel extends Real {
    readonly page = making;
    private readonly wrapped = new Map<EventListenerOrEventListenerObject, (event: Event) => void>();
    constructor(name: string) {
      super(name);
      opened.push(this.page);
    }
    override addEventListener(type: string, listener: EventListenerOrEventListenerObject): void {
      const wrapper = (event: Event) => {
        const deliver = () => {
          received.push({ page: this.page, data: asBytes((event as MessageEvent).data)! });
          if (typeof listener === "function") listener(event);
          else listener.handleEvent(event);
        };
        if (this.page !== undefined && busy.has(this.page)) held.push(deliver);
        else deliver();
      };
      this.wrapped.set(listener, wrapper);
      super.addEventListener(type, wrapper);
    }
    override removeEventListener(type: string, listener: EventListenerOrEventListenerObject): void {
      super.removeEventListener(type, this.wrapped.get(listener) ?? listener);
    }
  }
  vi.stubGlobal("BroadcastChannel", PageChannel);
  /** The channels opened from now on belong to `page` (undefined: to no page the test follows). */
  const tag = (page: string | undefined): void => void (making = page);
  return {
    tag,
    /** Runs `make` with the channels it opens belonging to `page`. */
    as: <T>(page: string, make: () => T): T => {
      tag(page);
      try {
        return make();
      } finally {
        tag(undefined);
      }
    },
    /** How many frames `page` has received that `which` picks. */
    received: (page: string, which: (data: Uint8Array) => boolean) => received.filter((r) => r.page === page && which(r.data)).length,
    /** How many channels `page` has opened. */
    opened: (page: string) => opened.filter((p) => p === page).length,
    busy: (page: string) => void busy.add(page),
    free: (page: string) => (busy.delete(page), held.splice(0).forEach((deliver) => deliver())),
    /** Whether `page` has received a sync answer (or, with "query", another tab's sync query). */
    answered: (page: string, kind: "answer" | "query" = "answer") =>
      received.some((r) => r.page === page && readSyncStatus(r.data)?.kind === kind),
  };
}

/**
 * A tab replica (connectTabs + store, as connectBrowser's fallback makes) whose IndexedDB open is
 * held back until `release()`; `seen.synced` once its connection is in sync.
 */
export function slowTab(name: string, host: Host, locks: FakeLocks, tag: string, cleanup: (f: () => void) => void) {
  const real = globalThis.indexedDB;
  const slow = slowIndexedDB();
  vi.stubGlobal("indexedDB", slow.factory);
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, snapshotBytes: 0 });
  vi.stubGlobal("indexedDB", real);
  const store = createSharedFetchStore({ doc, fetch: host.fetchAs(tag), locks: locks.forTab(tag), settleMs: 0 });
  cleanup(() => (store.destroy(), tabs.destroy(), doc.destroy(), slow.release()));
  const seen = { synced: false };
  void tabs.whenSynced.then(() => (seen.synced = true));
  return { doc, tabs, store, seen, release: slow.release };
}
