import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs } from "../../src/sync/index.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.unstubAllGlobals();
});

const uniqueName = (): string => `persist-${Math.random().toString(36).slice(2)}`;

function openTab(name: string, opts: { indexeddb?: boolean } = {}) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, ...opts });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  return { doc, conn, map: doc.getMap<unknown>("m") };
}

describe("connectTabs persistence (y-indexeddb)", () => {
  it("lets a tab opened after the writer is gone see what it wrote", async () => {
    const name = uniqueName();
    const a = openTab(name);
    await a.conn.whenSynced;
    a.map.set("result", { ok: true });
    a.conn.destroy();
    a.doc.destroy();

    const b = openTab(name);
    await b.conn.whenSynced;
    expect(b.map.get("result")).toEqual({ ok: true });
  });

  it("reads IndexedDB without any tab message (a crashed tab answers nothing)", async () => {
    const name = uniqueName();
    const crashed = openTab(name);
    await crashed.conn.whenSynced;
    crashed.map.set("claim", "r1");

    vi.stubGlobal("BroadcastChannel", undefined); // the newcomer hears no tab at all
    const b = openTab(name);
    vi.unstubAllGlobals();
    await b.conn.whenSynced;
    expect(b.map.get("claim")).toBe("r1");
  });

  it("persists nothing with indexeddb: false", async () => {
    const name = uniqueName();
    const a = openTab(name, { indexeddb: false });
    await a.conn.whenSynced;
    a.map.set("x", 1);
    a.conn.destroy();
    a.doc.destroy();

    const b = openTab(name);
    await b.conn.whenSynced;
    expect(b.map.has("x")).toBe(false);
  });
});
