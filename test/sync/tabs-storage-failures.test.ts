/**
 * Storage that fails, as browsers fail it (a denied or hung open, a full disk, a connection the
 * browser closes, another page deleting the database): connectTabs goes on without persisting —
 * the tabs still share one request (invariant 1), `ensure` still resolves (invariant 8), no write
 * throws into its writer's transaction, nothing escapes as an unhandled rejection, and one warning
 * says what happened. Plus the format: y-indexeddb's databases and ours read each other.
 */
import "fake-indexeddb/auto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IndexeddbPersistence } from "y-indexeddb";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";

let escaped: unknown[] = [];
let warnings: string[] = [];
const onEscape = (reason: unknown): void => void escaped.push(reason);
let cleanups: (() => void)[] = [];
beforeEach(() => {
  escaped = [];
  warnings = [];
  process.on("unhandledRejection", onEscape);
  process.on("uncaughtException", onEscape);
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(String(args[0])));
});
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  await new Promise((resolve) => setTimeout(resolve, 20)); // rejections are reported a task later
  process.off("unhandledRejection", onEscape);
  process.off("uncaughtException", onEscape);
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const uniqueName = (): string => `storage-${Math.random().toString(36).slice(2)}`;
const idbWarnings = (): string[] => warnings.filter((w) => w.includes("IndexedDB"));

function tab(name: string, host: Host) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetch, leaseMs: 60_000 });
  cleanups.push(() => (store.destroy(), conn.destroy(), doc.destroy()));
  return { doc, conn, store };
}

type Tab = ReturnType<typeof tab>;

/** Tabs a and b ask for one key, b once a's request is out: one request, both answered. */
async function shareOneRequest(a: Tab, b: Tab, host: Host, path: string): Promise<void> {
  const req = { url: `https://api.example.test/${path}` };
  const first = a.store.ensure(req);
  const [call] = await host.whenCalls(1);
  const second = b.store.ensure(req);
  call!.respond(200, { ok: 1 });
  expect([(await first).data, (await second).data]).toEqual([{ ok: 1 }, { ok: 1 }]);
  expect(host.calls).toHaveLength(1);
}

/** Two tabs of `name`, in sync, share one request. */
async function twoTabsShareOneRequest(name: string): Promise<void> {
  const host = new Host();
  const a = tab(name, host);
  const b = tab(name, host);
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
  await shareOneRequest(a, b, host, name);
}

/** An IDBFactory whose `open` does what `how` says, every other method the real one's. */
function factoryWhoseOpen(how: (name: string) => IDBOpenDBRequest): IDBFactory {
  const factory = Object.create(globalThis.indexedDB) as IDBFactory;
  (factory as { open: unknown }).open = how;
  return factory;
}

describe("connectTabs when IndexedDB fails", () => {
  it("an open refused with an error event: the tabs share one request, one warning, nothing escapes", async () => {
    vi.stubGlobal(
      "indexedDB",
      factoryWhoseOpen(() => {
        const request = { error: new DOMException("open refused", "UnknownError") } as unknown as IDBOpenDBRequest;
        setTimeout(() => request.onerror?.({ target: request } as unknown as Event), 5);
        return request;
      }),
    );
    await twoTabsShareOneRequest(uniqueName());
    expect(idbWarnings()).toHaveLength(2); // one per tab
    expect(idbWarnings()[0]).toMatch(/could not be opened/);
    expect(escaped).toEqual([]);
  });

  it("an open that throws (SecurityError), and a global `indexedDB` whose very read throws: the same", async () => {
    vi.stubGlobal(
      "indexedDB",
      factoryWhoseOpen(() => {
        throw new DOMException("The operation is insecure.", "SecurityError");
      }),
    );
    await twoTabsShareOneRequest(uniqueName());
    vi.unstubAllGlobals();
    const own = Object.getOwnPropertyDescriptor(globalThis, "indexedDB")!;
    Object.defineProperty(globalThis, "indexedDB", {
      configurable: true,
      get: () => {
        throw new DOMException("The operation is insecure.", "SecurityError");
      },
    });
    try {
      await twoTabsShareOneRequest(uniqueName());
    } finally {
      Object.defineProperty(globalThis, "indexedDB", own);
    }
    expect(escaped).toEqual([]);
  });

  it("an open that never answers on a return visit: whenSynced resolves and the request goes out, one warning", async () => {
    vi.stubGlobal(
      "indexedDB",
      factoryWhoseOpen(() => ({}) as IDBOpenDBRequest),
    );
    const host = new Host();
    const name = uniqueName();
    const doc = new Y.Doc();
    const conn = connectTabs(doc, { name, persisted: true }); // a return visit: the database is read before claims
    const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetch });
    cleanups.push(() => (store.destroy(), conn.destroy(), doc.destroy()));
    const answer = store.ensure({ url: "https://api.example.test/hung-open" });
    await conn.whenSynced;
    const [call] = await host.whenCalls(1);
    call!.respond(200, { ok: 1 });
    expect((await answer).data).toEqual({ ok: 1 });
    expect(idbWarnings()).toEqual([expect.stringMatching(/has not opened within 2000 ms/)]);
    expect(escaped).toEqual([]);
  });

  it("every write refused (QuotaExceededError): one request, one warning per tab, not one rejection per update", async () => {
    const name = uniqueName();
    const host = new Host();
    const a = tab(name, host);
    const b = tab(name, host);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    const prototype = IDBObjectStore.prototype;
    const add = vi.spyOn(prototype, "add").mockImplementation(() => {
      const request = { error: new DOMException("quota", "QuotaExceededError") } as unknown as IDBRequest<IDBValidKey>;
      setTimeout(() => request.onerror?.({ target: request } as unknown as Event), 1);
      return request;
    });
    await shareOneRequest(a, b, host, "quota");
    for (let i = 0; i < 5; i++) a.doc.getMap("m").set("k", i); // later writes: no new warning, no rejection
    await new Promise((resolve) => setTimeout(resolve, 20));
    add.mockRestore();
    expect(host.calls).toHaveLength(1);
    expect(idbWarnings()).toHaveLength(2);
    expect(idbWarnings()[0]).toMatch(/refused a write/);
    expect(escaped).toEqual([]);
  });

  it("a connection the browser closed under a tab: its writes throw nothing and still reach the other tab; its ensure resolves", async () => {
    const opened: IDBDatabase[] = [];
    const real = globalThis.indexedDB;
    vi.stubGlobal(
      "indexedDB",
      factoryWhoseOpen((name) => {
        const request = real.open(name);
        request.addEventListener("success", () => opened.push(request.result));
        return request;
      }),
    );
    const name = uniqueName();
    const host = new Host();
    const a = tab(name, host);
    await a.conn.whenSynced;
    const b = tab(name, host);
    await b.conn.whenSynced;
    await vi.waitFor(() => expect(opened).toHaveLength(2));
    opened[0]!.close(); // as Safari's "connection to Indexed Database server lost": transactions throw
    expect(() => a.doc.getMap("m").set("x", 1)).not.toThrow();
    await vi.waitFor(() => expect(b.doc.getMap("m").get("x")).toBe(1));
    await shareOneRequest(a, b, host, "closed");
    expect(idbWarnings()).toEqual([expect.stringMatching(/refused a write/)]);
    expect(escaped).toEqual([]);
  });

  it("the database deleted by another page (clearTabsStorage at logout elsewhere): the tab lets it go and goes on", async () => {
    const name = uniqueName();
    const host = new Host();
    const a = tab(name, host);
    await a.conn.whenSynced;
    a.doc.getMap("m").set("x", 1);
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error);
    });
    const answer = a.store.ensure({ url: "https://api.example.test/after-delete" });
    const [call] = await host.whenCalls(1);
    call!.respond(200, { ok: 1 });
    expect((await answer).data).toEqual({ ok: 1 });
    expect(idbWarnings()).toEqual([expect.stringMatching(/being deleted or upgraded by another page/)]);
    expect(escaped).toEqual([]);
  });
});

describe("the IndexedDB format is y-indexeddb's", () => {
  it("a doc y-indexeddb stored (an earlier version of this package) is read by connectTabs, and y-indexeddb reads what connectTabs stores", async () => {
    const name = uniqueName();
    const before = new Y.Doc();
    const old = new IndexeddbPersistence(name, before);
    await old.whenSynced;
    before.getMap("m").set("from", "y-indexeddb");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await old.destroy();

    const doc = new Y.Doc();
    const conn = connectTabs(doc, { name, persisted: true });
    await conn.whenSynced;
    expect(doc.getMap("m").get("from")).toBe("y-indexeddb");
    doc.getMap("m").set("then", "connectTabs");
    await new Promise((resolve) => setTimeout(resolve, 20));
    conn.destroy();

    const after = new Y.Doc();
    const reader = new IndexeddbPersistence(name, after);
    await reader.whenSynced;
    expect(after.getMap("m").toJSON()).toEqual({ from: "y-indexeddb", then: "connectTabs" });
    await reader.destroy();
    expect(idbWarnings()).toEqual([]);
  });
});
