// @vitest-environment jsdom
/**
 * A page frozen (or put into the back/forward cache) while a claim waits for a reconnect's sync
 * lets its Web Lock go; shown again, its claims wait for that lock again (engine resume). The
 * reconnect's wait, still under way, must not stand for that one: when it ended, the store counted
 * itself ready and sent the request without its lock, its claim naming no browser. FakeLocks as
 * the browser's one lock manager; another tab holds the lock the page let go. Nor may the lock
 * stand for the reconnect: granted at once on the page's return, the claims still wait for the
 * reconnect under way (they sent the request during it), holding no key lock meanwhile.
 */
import { expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../sim/fake-locks.ts";
import { registerConnector } from "../src/core/connectors.ts";
import { createSharedFetchStore } from "../src/index.ts";

it("a claim waiting for a reconnect when the page is frozen waits for its Web Lock again once shown, not for the reconnect alone", async () => {
  const locks = new FakeLocks();
  const realm = locks.forTab("page");
  const names = new Set<string>();
  const doc = new Y.Doc();
  let resync: Promise<void> | undefined;
  registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: true, resync: () => resync });
  const sent: string[] = [];
  const store = createSharedFetchStore({
    doc,
    fetch: async (input) => (sent.push(String(input)), new Response("{}")),
    settleMs: 0,
    locks: { request: (name, options, callback) => (names.add(name), realm.request(name, options, callback)) },
  });
  try {
    await store.ensure({ url: "https://api.example.test/warm" }); // started: its lock held

    let reconnected!: () => void;
    resync = new Promise<void>((resolve) => (reconnected = resolve));
    const asked = store.ensure({ url: "https://api.example.test/after" });
    expect(store.inspect().lifecycle).toBe("starting");

    window.dispatchEvent(new Event("pagehide"));
    // Another tab takes the locks the page let go.
    let release!: () => void;
    const other = locks.forTab("other");
    const kept = new Promise<void>((resolve) => (release = resolve));
    for (const name of names) if (!name.startsWith("shared-fetch:key:")) void other.request(name, {}, () => kept);
    window.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));

    reconnected();
    await vi.waitFor(() => expect(store.inspect().lifecycle).toBe("starting"));
    await new Promise((r) => setTimeout(r, 20)); // what a claim made now would have sent
    expect(sent).toEqual(["https://api.example.test/warm"]);

    release();
    await expect(asked).resolves.toMatchObject({ status: "success" });
    expect(sent).toEqual(["https://api.example.test/warm", "https://api.example.test/after"]);
  } finally {
    store.destroy();
    doc.destroy();
  }
});

it("a claim waiting for a reconnect when the page is frozen, shown again with its Web Lock free at once, still waits for that reconnect, holding no key lock meanwhile", async () => {
  const locks = new FakeLocks();
  const realm = locks.forTab("page");
  const doc = new Y.Doc();
  let resync: Promise<void> | undefined;
  registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: true, resync: () => resync });
  const sent: string[] = [];
  // The key locks the page holds, and each grant of its replica lock.
  const keys: string[] = [];
  let grants = 0;
  const store = createSharedFetchStore({
    doc,
    fetch: async (input) => (sent.push(String(input)), new Response("{}")),
    settleMs: 0,
    locks: {
      request: (name, options, callback) =>
        realm.request(name, options, async (granted) => {
          if (!granted) return callback(granted);
          if (!name.startsWith("shared-fetch:key:")) return ((grants += 1), callback(granted));
          keys.push(name);
          try {
            return await callback(granted);
          } finally {
            keys.splice(keys.indexOf(name), 1);
          }
        }),
    },
  });
  try {
    await store.ensure({ url: "https://api.example.test/warm" }); // started: its lock held
    await vi.waitFor(() => expect(keys).toEqual([])); // the warm key's lock goes after its flush

    let reconnected!: () => void;
    resync = new Promise<void>((resolve) => (reconnected = resolve));
    const asked = store.ensure({ url: "https://api.example.test/after" });
    expect(store.inspect().lifecycle).toBe("starting");

    const before = grants;
    window.dispatchEvent(new Event("pagehide"));
    window.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    await vi.waitFor(() => expect(grants).toBe(before + 1));
    // Turns enough for a claim decided at that grant to take its key lock and send the request.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    // The reconnect is still under way: no request yet, and no key lock that a tab in sync would queue behind.
    expect([sent, keys, store.inspect().lifecycle]).toEqual([["https://api.example.test/warm"], [], "starting"]);

    reconnected();
    await expect(asked).resolves.toMatchObject({ status: "success" });
    expect(sent).toEqual(["https://api.example.test/warm", "https://api.example.test/after"]);
  } finally {
    store.destroy();
    doc.destroy();
  }
});
