import { describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import type { Awareness } from "y-protocols/awareness";
import { connectTabs } from "../../src/sync/index.ts";
import { tabChannelName } from "../../src/sync/tab-protocol.ts";
import { cleanupsAfterEach } from "../harness/indexeddb-records.ts";
import { nextEvent, until } from "./wait.ts";

const onCleanup = cleanupsAfterEach();

const uniqueName = (): string => `tabs-${Math.random().toString(36).slice(2)}`;

function openTab(name: string, before?: (doc: Y.Doc) => void) {
  const doc = new Y.Doc();
  before?.(doc);
  const conn = connectTabs(doc, { name, indexeddb: false });
  onCleanup(() => {
    conn.destroy();
    doc.destroy();
  });
  return { doc, conn, map: doc.getMap<unknown>("m") };
}

const sharedFetchOf = (awareness: Awareness, clientID: number): unknown =>
  (awareness.getStates().get(clientID) as { sharedFetch?: unknown } | undefined)?.sharedFetch;

describe("connectTabs over BroadcastChannel", () => {
  it("syncs two tabs both ways, live", async () => {
    const name = uniqueName();
    const a = openTab(name);
    const b = openTab(name);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);

    a.map.set("x", 1);
    await until(b.doc, "update", () => b.map.get("x") === 1);
    b.map.set("y", 2);
    await until(a.doc, "update", () => a.map.get("y") === 2);
    expect(a.map.toJSON()).toEqual({ x: 1, y: 2 });
  });

  it("brings a tab opened later up to date, and spreads what it wrote before connecting", async () => {
    const name = uniqueName();
    const a = openTab(name);
    const b = openTab(name);
    a.map.set("x", 1);
    await until(b.doc, "update", () => b.map.get("x") === 1);

    const c = openTab(name, (doc) => doc.getMap("m").set("offline", true));
    await until(c.doc, "update", () => c.map.get("x") === 1);
    await until(a.doc, "update", () => a.map.get("offline") === true);
    await until(b.doc, "update", () => b.map.get("offline") === true);
  });

  it("keeps docs with different names apart", async () => {
    const name = uniqueName();
    const writer = openTab(name);
    // A tab of the same name proves the write went out; the stranger must not have received it.
    const witness = openTab(name);
    const stranger = openTab(uniqueName());
    writer.map.set("x", 1);
    await until(witness.doc, "update", () => witness.map.get("x") === 1);
    expect(stranger.map.has("x")).toBe(false);
  });

  it("shows each tab's awareness state to the other and reports removal on destroy", async () => {
    const name = uniqueName();
    const a = openTab(name);
    const b = openTab(name);
    a.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "ra", browserId: "br" });
    b.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "rb", browserId: "br" });
    await until(b.conn.awareness, "change", () => sharedFetchOf(b.conn.awareness, a.doc.clientID) !== undefined);
    await until(a.conn.awareness, "change", () => sharedFetchOf(a.conn.awareness, b.doc.clientID) !== undefined);
    expect(sharedFetchOf(b.conn.awareness, a.doc.clientID)).toEqual({ replicaId: "ra", browserId: "br" });
    expect(sharedFetchOf(a.conn.awareness, b.doc.clientID)).toEqual({ replicaId: "rb", browserId: "br" });

    const removal = nextEvent<[{ removed: number[] }, unknown]>(b.conn.awareness, "change", (change) =>
      change.removed.includes(a.doc.clientID),
    );
    a.conn.destroy();
    await removal;
    expect(b.conn.awareness.getStates().has(a.doc.clientID)).toBe(false);
  });

  it("is visible again at once when the same doc reconnects after destroy (StrictMode remount)", async () => {
    const name = uniqueName();
    const b = openTab(name);
    const doc = new Y.Doc();
    onCleanup(() => doc.destroy());
    const first = connectTabs(doc, { name, indexeddb: false });
    first.awareness.setLocalStateField("sharedFetch", { replicaId: "r1", browserId: "br" });
    await until(b.conn.awareness, "change", () => sharedFetchOf(b.conn.awareness, doc.clientID) !== undefined);
    const left = nextEvent<[{ removed: number[] }]>(b.conn.awareness, "change", (c) => c.removed.includes(doc.clientID));
    first.destroy();
    await left;

    const second = connectTabs(doc, { name, indexeddb: false });
    onCleanup(() => second.destroy());
    second.awareness.setLocalStateField("sharedFetch", { replicaId: "r2", browserId: "br" });
    await until(b.conn.awareness, "change", () => sharedFetchOf(b.conn.awareness, doc.clientID) !== undefined);
    expect(sharedFetchOf(b.conn.awareness, doc.clientID)).toEqual({ replicaId: "r2", browserId: "br" });
  });

  it("lets a tab opened later learn the presence of the tabs already there", async () => {
    const name = uniqueName();
    const a = openTab(name);
    a.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "ra", browserId: "br" });
    const c = openTab(name);
    await until(c.conn.awareness, "change", () => sharedFetchOf(c.conn.awareness, a.doc.clientID) !== undefined);
  });

  it("removes its presence on pagehide and restores it when shown from the back/forward cache", async () => {
    const page = new EventTarget();
    vi.stubGlobal("addEventListener", page.addEventListener.bind(page));
    vi.stubGlobal("removeEventListener", page.removeEventListener.bind(page));
    const name = uniqueName();
    const a = openTab(name);
    vi.unstubAllGlobals(); // only `a` lives in the fake page
    const b = openTab(name);
    a.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "ra", browserId: "br" });
    await until(b.conn.awareness, "change", () => sharedFetchOf(b.conn.awareness, a.doc.clientID) !== undefined);

    const left = nextEvent<[{ removed: number[] }]>(b.conn.awareness, "change", (c) => c.removed.includes(a.doc.clientID));
    page.dispatchEvent(new Event("pagehide"));
    await left;

    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    await until(b.conn.awareness, "change", () => sharedFetchOf(b.conn.awareness, a.doc.clientID) !== undefined);
    expect(sharedFetchOf(b.conn.awareness, a.doc.clientID)).toEqual({ replicaId: "ra", browserId: "br" });
  });

  it("ignores malformed messages and keeps syncing", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const name = uniqueName();
    const a = openTab(name);
    const b = openTab(name);
    const rogue = new BroadcastChannel(tabChannelName(name));
    onCleanup(() => rogue.close());
    rogue.postMessage(new Uint8Array([0, 2, 200, 1, 2])); // a truncated update
    rogue.postMessage("not bytes");
    rogue.postMessage(new Uint8Array([42])); // an unknown frame kind
    a.map.set("x", 1);
    await until(b.doc, "update", () => b.map.get("x") === 1);
    expect(warn).toHaveBeenCalled();
  });

  it("destroys itself with the doc and resolves whenSynced", async () => {
    const doc = new Y.Doc();
    const conn = connectTabs(doc, { name: uniqueName(), indexeddb: false });
    doc.destroy();
    await conn.whenSynced;
    conn.destroy(); // idempotent
  });

  it("rejects an empty name", () => {
    expect(() => connectTabs(new Y.Doc(), { name: "" })).toThrow(TypeError);
  });
});
