/**
 * Issue "time to data" on a page open all day: once the doc passed `snapshotBytes` its tab removed
 * the localStorage copy and never wrote one again, even after retention's sweeps shrank the doc
 * back under the limit, so every later return visit rendered without its data (README, Design:
 * "A return visit renders with its data"). The copy comes back once the state fits, and while it
 * does not the tab encodes its state at most once a minute, not at every change.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { fakeStorage, noOtherReplica } from "./boot-fakes.ts";

// Counts the keeper's encodes of the whole state (the cost it must bound while over the limit).
const encodes = vi.hoisted(() => ({ of: new Map<unknown, number>() }));
vi.mock("yjs", async (importOriginal) => {
  const yjs = await importOriginal<typeof import("yjs")>();
  return {
    ...yjs,
    encodeStateAsUpdate: (doc: Y.Doc, vector?: Uint8Array) => {
      encodes.of.set(doc, (encodes.of.get(doc) ?? 0) + 1);
      return yjs.encodeStateAsUpdate(doc, vector);
    },
  };
});

// The unit project's setup file loaded src/ with the real yjs: load it again, on the counting one.
vi.resetModules();
const { connectTabs } = await import("../../src/sync/index.ts");

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const snapshotKey = (name: string) => `shared-fetch:snapshot:${name}`;

async function openTab(snapshotBytes: number) {
  const name = `snapshot-over-${Math.random().toString(36).slice(2)}`;
  const storage = fakeStorage();
  vi.stubGlobal("localStorage", storage);
  vi.stubGlobal("navigator", noOtherReplica);
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, snapshotBytes });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  await conn.whenSynced;
  const copy = (): Y.Map<unknown> | undefined => {
    const stored = storage.items.get(snapshotKey(name));
    if (stored === undefined) return undefined;
    const read = new Y.Doc();
    Y.applyUpdate(read, Buffer.from(stored, "base64"));
    return read.getMap("m");
  };
  return { doc, conn, map: doc.getMap<unknown>("m"), copy };
}

describe("connectTabs' copy once the doc passed snapshotBytes", () => {
  it("a doc that grew past the limit and was swept back under it is copied again (a dashboard open all day)", async () => {
    const tab = await openTab(1000);
    vi.useFakeTimers();
    tab.map.set("result", "r1");
    vi.advanceTimersByTime(1000);
    expect(tab.copy()?.get("result")).toBe("r1");

    tab.map.set("big", "x".repeat(2000));
    vi.advanceTimersByTime(1000);
    expect(tab.copy()).toBeUndefined(); // over the limit: no copy, and the older one is gone

    // A sweep deletes the large record here (this tab's change), and a result changes after it.
    tab.map.delete("big");
    tab.map.set("result", "r2");
    vi.advanceTimersByTime(60_000);
    expect(tab.copy()?.get("result")).toBe("r2");
    expect(tab.copy()?.has("big")).toBe(false);

    // Back under the limit, the copy follows each change within a second again.
    tab.map.set("result", "r3");
    vi.advanceTimersByTime(1000);
    expect(tab.copy()?.get("result")).toBe("r3");
  });

  it("while over the limit, a change every second encodes the state at most once a minute", async () => {
    const tab = await openTab(1000);
    vi.useFakeTimers();
    tab.map.set("big", "x".repeat(2000));
    vi.advanceTimersByTime(1000);
    expect(tab.copy()).toBeUndefined();
    encodes.of.clear();
    for (let s = 0; s < 180; s++) {
      tab.map.set("n", s);
      vi.advanceTimersByTime(1000);
    }
    // It still looks (a sweep may have shrunk it), but 3 times in 3 minutes, not 180.
    expect(encodes.of.get(tab.doc)).toBeGreaterThanOrEqual(1);
    expect(encodes.of.get(tab.doc)).toBeLessThanOrEqual(3);
    expect(tab.copy()).toBeUndefined();
  });

  it("a page going away while over the limit writes the copy if the state fits by then", async () => {
    const tab = await openTab(1000);
    vi.useFakeTimers();
    tab.map.set("big", "x".repeat(2000));
    vi.advanceTimersByTime(1000);
    expect(tab.copy()).toBeUndefined();
    tab.map.delete("big");
    tab.map.set("result", "r1");
    tab.conn.destroy(); // what closes the connection writes the change still waiting
    expect(tab.copy()?.get("result")).toBe("r1");
  });
});
