/**
 * Logout with another tab open. Alice logs out in tab A (README: destroy, then `await
 * clearTabsStorage(name)`) while her tab B stays open, and B closes or writes only afterwards.
 * Nothing of Alice's may come back into this browser's storage: B stops its copy of the doc in
 * localStorage (and removes it) once the database is deleted under it, and writes no persisted
 * mark; a tab loads a copy only beside that mark, so a copy a tab of an older version left behind
 * is not read either. Bob's login then starts from nothing: his doc and his database hold none of
 * Alice's results.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { clearTabsStorage, connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { fakeStorage, markKey } from "./boot-fakes.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const SECRET = "ALICE-PRIVATE-DATA";
const uniqueName = (): string => `logout-${Math.random().toString(36).slice(2)}`;
const snapshotKey = (name: string) => `shared-fetch:snapshot:${name}`;
const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
const answering = (body: unknown) => (async () => json(body)) as typeof fetch;
const decoded = (copy: string | undefined): string => (copy === undefined ? "" : Buffer.from(copy, "base64").toString("latin1"));

function openTab(name: string, identity: string, fetch: typeof globalThis.fetch) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, identity, fetch });
  const close = (): void => {
    store.destroy();
    conn.destroy();
    doc.destroy();
  };
  return { doc, conn, store, close };
}

it("after Alice logs out in tab A, her tab B still open (writing, then closed) puts nothing of hers back, and Bob's login reads none of it", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {}); // B warns that its database is being deleted
  const storage = fakeStorage();
  vi.stubGlobal("localStorage", storage);
  const name = uniqueName();
  const a = openTab(name, "alice", answering({ secret: SECRET }));
  const b = openTab(name, "alice", answering({ secret: SECRET }));
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
  await a.store.ensure({ url: "https://api.example.test/me" });
  // B's own pane fetched just now (a poll, a focus): B's copy has a write waiting.
  await b.store.ensure({ url: "https://api.example.test/notifications" });

  // Logout in tab A, as the README says. A's copy (written as it closes) holds Alice's results.
  a.close();
  expect(decoded(storage.items.get(snapshotKey(name)))).toContain(SECRET);
  await clearTabsStorage(name);
  expect(storage.items.has(snapshotKey(name))).toBe(false);

  // Tab B goes on a little (another write of its own), then the user closes it.
  await b.store.ensure({ url: "https://api.example.test/settings" });
  b.close();
  expect(storage.items.has(snapshotKey(name))).toBe(false);
  expect(storage.items.has(markKey(name))).toBe(false); // nothing is persisted: Bob's tab waits for no database

  // Bob logs in on this browser.
  const bob = openTab(name, "bob", answering({ secret: "bob" }));
  await bob.conn.whenSynced;
  await bob.store.ensure({ url: "https://api.example.test/me" });
  expect(Buffer.from(Y.encodeStateAsUpdate(bob.doc)).toString("latin1")).not.toContain(SECRET);
  bob.close();
  expect(await indexedDbText(name)).not.toContain(SECRET);
});

it("a copy in localStorage without the persisted mark (left after a logout) is not loaded, and the tab's own copy replaces it", async () => {
  const name = uniqueName();
  const left = new Y.Doc();
  left.getMap("m").set("secret", SECRET);
  const storage = fakeStorage({ [snapshotKey(name)]: Buffer.from(Y.encodeStateAsUpdate(left)).toString("base64") });
  vi.stubGlobal("localStorage", storage);

  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  expect(doc.getMap("m").get("secret")).toBeUndefined();
  await conn.whenSynced;
  doc.getMap("m").set("mine", 1);
  conn.destroy(); // writes this tab's copy, now beside the mark
  expect(storage.items.has(markKey(name))).toBe(true);
  expect(decoded(storage.items.get(snapshotKey(name)))).not.toContain(SECRET);
  doc.destroy();
});
