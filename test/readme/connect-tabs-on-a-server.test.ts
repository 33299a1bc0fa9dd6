/**
 * README, Next.js App Router: a store of its own for each server render, on a plain Y.Doc, and
 * `connectTabs` only in the browser. In Node, `connectTabs` joins every doc of the process that
 * connects on the same name (Node's BroadcastChannel reaches the other channels of its own thread,
 * not only worker threads): two server renders that each called it would share one doc, and a
 * request whose key is the same for two users (one identity, the user told by a cookie the app's
 * own `fetch` forwards) would be answered with the other user's record, without a request.
 * `connectBrowser` likewise: in Node (no SharedWorker, no Web Locks) its fallback is `connectTabs`.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectBrowser, connectTabs, createSharedFetchStore, type Connection, type SharedFetchStore } from "../../src/index.ts";

const URL_ME = "https://api.example.com/me";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** One server render: its user's cookie goes out with every request through the app's own fetch. */
function serverRender(user: string, withTabs: boolean) {
  const doc = new Y.Doc();
  const tabs: Connection | undefined = withTabs ? connectTabs(doc, { name: "my-app", indexeddb: false }) : undefined;
  const fetch = vi.fn(async () => new Response(JSON.stringify({ user }), { headers: { "content-type": "application/json" } }));
  const store: SharedFetchStore = createSharedFetchStore({ doc, settleMs: 0, fetch, ...(tabs ? { awareness: tabs.awareness } : {}) });
  cleanups.push(() => {
    store.destroy();
    tabs?.destroy();
    doc.destroy();
  });
  return { store, fetch, tabs };
}

describe("server renders in one Node process", () => {
  it("each on a plain doc: a render sends its own request and sees only its own user's answer", async () => {
    const a = serverRender("alice", false);
    const b = serverRender("bob", false);
    expect((await a.store.ensure({ url: URL_ME })).data).toEqual({ user: "alice" });
    expect((await b.store.ensure({ url: URL_ME })).data).toEqual({ user: "bob" });
    expect([a.fetch.mock.calls.length, b.fetch.mock.calls.length]).toEqual([1, 1]);
  });

  it("each on connectTabs with one name: their docs are joined, and the second render is answered with the first user's record", async () => {
    const a = serverRender("alice", true);
    const b = serverRender("bob", true);
    await Promise.all([a.tabs!.whenSynced, b.tabs!.whenSynced]);
    expect((await a.store.ensure({ url: URL_ME })).data).toEqual({ user: "alice" });
    await vi.waitFor(() => expect(b.store.snapshot({ url: URL_ME }).data).toEqual({ user: "alice" }));
    expect((await b.store.ensure({ url: URL_ME })).data).toEqual({ user: "alice" });
    expect(b.fetch).not.toHaveBeenCalled();
  });

  it("each on connectBrowser with one name (its fallback in Node is connectTabs): the second render is answered with the first user's record", async () => {
    const render = (user: string) => {
      const fetch = vi.fn(async () => new Response(JSON.stringify({ user }), { headers: { "content-type": "application/json" } }));
      const store = connectBrowser({ name: "my-app", fetch });
      cleanups.push(() => store.destroy());
      return { store, fetch };
    };
    const a = render("alice");
    const b = render("bob");
    expect(a.store.mode).toBe("tab");
    expect((await a.store.ensure({ url: URL_ME })).data).toEqual({ user: "alice" });
    await vi.waitFor(() => expect(b.store.snapshot({ url: URL_ME }).data).toEqual({ user: "alice" }));
    expect((await b.store.ensure({ url: URL_ME })).data).toEqual({ user: "alice" });
    expect(b.fetch).not.toHaveBeenCalled();
  });
});
